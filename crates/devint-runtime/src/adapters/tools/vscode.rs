//! Pieces shared by tools that live inside VS Code (or a fork of it): the user and
//! workspace settings files (JSONC), the `http.proxy` key, the workspace-trust caveat, and
//! the whole shape of an extension that keeps its own configuration in extension storage.

use crate::adapters::descriptor::*;
use crate::adapters::vocabulary::Capability as C;

/// VS Code's proxy setting documentation.
pub const PROXY_DOC: &str = "https://code.visualstudio.com/docs/setup/network";
/// VS Code's settings documentation.
pub const SETTINGS_DOC: &str = "https://code.visualstudio.com/docs/configure/settings";

const USER_SETTINGS: SettingsFile =
    SettingsFile::user(".config/Code/User/settings.json", SettingsFormat::Jsonc);

/// VS Code's user and workspace settings on Linux.
pub const CODE_SETTINGS: &[SettingsFile] = &[
    USER_SETTINGS,
    SettingsFile::project(".vscode/settings.json", SettingsFormat::Jsonc),
];

/// VS Code's user settings on Linux, alone.
pub const CODE_USER_SETTINGS: &[SettingsFile] = &[USER_SETTINGS];

/// A VS Code extension installed under `~/.vscode/extensions` as `<prefix><version>`.
pub const fn extension(prefix: &'static str) -> ExtensionDir {
    ExtensionDir {
        parent: ".vscode/extensions",
        prefix,
    }
}

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
pub const TRUST_WARNING: ToolWarning = ToolWarning::always(ScopeSet::PROJECT, "VS Code applies restricted workspace settings only after the folder is trusted (Workspace Trust)");

/// What differs between VS Code extensions that keep their own configuration (provider,
/// hooks, MCP servers, auto-approve) in extension storage rather than in VS Code settings.
pub struct StorageExtension {
    /// Kebab-case tool id.
    pub id: &'static str,
    /// Name shown to people.
    pub display_name: &'static str,
    /// How to find the extension.
    pub detection: Detection,
    /// The extension's own documentation.
    pub doc: &'static str,
    /// Its MCP documentation.
    pub mcp_doc: &'static str,
    /// Why the gateway base URL cannot be set.
    pub no_gateway: &'static str,
    /// Why hooks cannot be installed.
    pub no_hooks: &'static str,
    /// Why MCP servers cannot be denied.
    pub no_mcp: &'static str,
    /// Why tool-action approval cannot be required.
    pub no_approval: &'static str,
}

/// The descriptor of an extension that keeps its configuration in extension storage (Cline
/// and its fork Roo Code): only VS Code's user `http.proxy` is a key devint can write.
pub const fn storage_extension(tool: StorageExtension) -> ToolDescriptor {
    ToolDescriptor {
        id: tool.id,
        display_name: tool.display_name,
        detection: tool.detection,
        settings: CODE_USER_SETTINGS,
        mechanisms: Mechanisms {
            model_gateway_base_url: MechanismSupport::Unsupported {
                reason: tool.no_gateway,
            },
            http_proxy: HTTP_PROXY,
            hooks: MechanismSupport::Unsupported {
                reason: tool.no_hooks,
            },
            mcp_governance: MechanismSupport::Unsupported {
                reason: tool.no_mcp,
            },
            tool_action_approval: MechanismSupport::Unsupported {
                reason: tool.no_approval,
            },
            managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
        },
        capabilities: [
            discovery(tool.doc),
            unsupported(C::ManagedSettings, NO_MANAGED, SETTINGS_DOC),
            unsupported(C::ManagedLaunch, NO_LAUNCH, tool.doc),
            supported(C::ModelPathInterception, PROXY_DOC),
            unsupported(C::ModelGatewayBaseUrl, tool.no_gateway, tool.doc),
            supported(C::HttpProxy, PROXY_DOC),
            unsupported(C::Hooks, tool.no_hooks, tool.doc),
            supported(C::McpDiscovery, tool.mcp_doc),
            unsupported(C::McpGovernance, tool.no_mcp, tool.mcp_doc),
            unsupported(C::ToolActionApproval, tool.no_approval, tool.doc),
            supported(C::NativeIdeUi, tool.doc),
            supported(C::HostEnforcement, PROXY_DOC),
        ],
        warnings: &[],
    }
}
