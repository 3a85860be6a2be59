//! GitHub Copilot in VS Code: the Copilot Chat extension, configured through VS Code settings.

use super::vscode;
use crate::adapters::descriptor::*;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://code.visualstudio.com/docs/copilot/reference/copilot-settings";
const MCP_DOC: &str = "https://code.visualstudio.com/docs/copilot/customization/mcp-servers";

const NO_GATEWAY: &str = "Copilot sends its own models' traffic to GitHub's service; VS Code has no base-URL setting for it";
const NO_HOOKS: &str =
    "Copilot in VS Code has no settings key for a command hook before tool actions";
const NO_MCP_DENY: &str =
    "VS Code offers only chat.mcp.access (all, registry or none), not a per-server deny list";

/// GitHub Copilot (VS Code).
pub static GITHUB_COPILOT: ToolDescriptor = ToolDescriptor {
    id: "github-copilot",
    display_name: "GitHub Copilot (VS Code)",
    detection: Detection::extension(&[vscode::extension("github.copilot-chat-")], ">=0.20.0"),
    settings: vscode::CODE_SETTINGS,
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: vscode::HTTP_PROXY,
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported {
            reason: NO_MCP_DENY,
        },
        tool_action_approval: MechanismSupport::Native {
            edits: &[edit(
                &["chat.tools.global.autoApprove"],
                ValueTemplate::WhenApprovalRequired(Literal::Bool(false)),
            )],
        },
        managed_settings: MechanismSupport::Unsupported {
            reason: vscode::NO_MANAGED,
        },
    },
    capabilities: [
        discovery(DOC),
        unsupported(C::ManagedSettings, vscode::NO_MANAGED, vscode::SETTINGS_DOC),
        unsupported(C::ManagedLaunch, vscode::NO_LAUNCH, DOC),
        supported(C::ModelPathInterception, vscode::PROXY_DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, DOC),
        supported(C::HttpProxy, vscode::PROXY_DOC),
        unsupported(C::Hooks, NO_HOOKS, DOC),
        supported(C::McpDiscovery, MCP_DOC),
        unsupported(C::McpGovernance, NO_MCP_DENY, MCP_DOC),
        supported(C::ToolActionApproval, DOC),
        supported(C::NativeIdeUi, DOC),
        supported(C::HostEnforcement, vscode::PROXY_DOC),
    ],
    warnings: &[vscode::TRUST_WARNING],
};
