//! Kiro (AWS's agentic IDE, a VS Code fork): VS Code-style user settings.

use super::vscode;
use crate::adapters::descriptor::*;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://kiro.dev/docs/";
const MCP_DOC: &str = "https://kiro.dev/docs/mcp/configuration";
const HOOKS_DOC: &str = "https://kiro.dev/docs/hooks/";

const NO_GATEWAY: &str =
    "Kiro sends model requests through its own service; there is no base-URL setting";
const NO_HOOKS: &str = "Kiro agent hooks are .kiro.hook files triggered by IDE events, not settings keys, and they cannot block a tool call";
const NO_MCP: &str = "Kiro's MCP servers live in .kiro/settings/mcp.json, disabled per server entry; there is no deny list";
const NO_APPROVAL: &str =
    "Kiro's trusted commands are set through its UI, not a settings key devint can vouch for";
const NO_MANAGED: &str = "Kiro documents no administrator-managed settings file";

const CLI_DOC: &str = "https://kiro.dev/docs/editor/cli/";

/// The macOS app bundle's command directory (Linux packages install into `/usr/bin`,
/// which is on every `PATH`).
static INSTALL_DIRS: &[InstallDir] = &[InstallDir::absolute(
    "/Applications/Kiro.app/Contents/Resources/app/bin",
    CLI_DOC,
)];

/// Kiro.
pub static KIRO: ToolDescriptor = ToolDescriptor {
    id: "kiro",
    display_name: "Kiro",
    detection: Detection::binary(&["kiro"], ">=0.1.0")
        .installed_in(&[INSTALL_DIRS])
        .configured_in(".kiro"),
    settings: &[SettingsFile::user(
        ".config/Kiro/User/settings.json",
        SettingsFormat::Jsonc,
    )],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: vscode::HTTP_PROXY,
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Unsupported {
            reason: NO_APPROVAL,
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, DOC),
        unsupported(
            C::ManagedLaunch,
            "Kiro is an editor; devint builds no launch command for it",
            DOC,
        ),
        supported(C::ModelPathInterception, vscode::PROXY_DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, DOC),
        supported(C::HttpProxy, vscode::PROXY_DOC),
        unsupported(C::Hooks, NO_HOOKS, HOOKS_DOC),
        supported(C::McpDiscovery, MCP_DOC),
        unsupported(C::McpGovernance, NO_MCP, MCP_DOC),
        unsupported(C::ToolActionApproval, NO_APPROVAL, DOC),
        unsupported(
            C::NativeIdeUi,
            "Kiro offers no extension point devint uses for a status or approval surface yet",
            DOC,
        ),
        supported(C::HostEnforcement, vscode::PROXY_DOC),
    ],
    warnings: &[],
};
