//! Pieces shared by tools that live inside VS Code (or a fork of it): the user and
//! workspace settings files (JSONC), the `http.proxy` key, and the workspace-trust caveat.

use crate::adapters::descriptor::*;
use crate::adapters::vocabulary::SettingsScope as S;

/// VS Code's proxy setting documentation.
pub const PROXY_DOC: &str = "https://code.visualstudio.com/docs/setup/network";
/// VS Code's settings documentation.
pub const SETTINGS_DOC: &str = "https://code.visualstudio.com/docs/configure/settings";

/// VS Code's user and workspace settings on Linux.
pub const CODE_SETTINGS: &[SettingsFile] = &[
    SettingsFile {
        scope: S::User,
        base: PathBase::Home,
        path: ".config/Code/User/settings.json",
        format: SettingsFormat::Jsonc,
    },
    SettingsFile {
        scope: S::Project,
        base: PathBase::Project,
        path: ".vscode/settings.json",
        format: SettingsFormat::Jsonc,
    },
];

/// `http.proxy`, honoured by the extension host for every extension's requests. VS Code
/// reads it only from user settings (it is an application-scoped setting).
pub const HTTP_PROXY: MechanismSupport = MechanismSupport::Native {
    edits: &[edit_in(
        ScopeSet::USER,
        &["http.proxy"],
        ValueTemplate::ProxyUrl,
    )],
};

/// Why a VS Code extension has no managed settings file.
pub const NO_MANAGED: &str =
    "VS Code enterprise policies arrive through OS policy (Group Policy, configuration profiles), not a settings file devint can write";

/// Why an editor extension has no launch command.
pub const NO_LAUNCH: &str = "an editor extension has no launch command of its own";

/// Workspace-trust caveat for project settings.
pub const TRUST_WARNING: ToolWarning = ToolWarning {
    scopes: ScopeSet::PROJECT,
    text: "VS Code applies restricted workspace settings only after the folder is trusted (Workspace Trust)",
};
