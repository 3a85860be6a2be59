//! Roo Code: a VS Code extension (a Cline fork) whose configuration lives in extension storage.

use super::vscode;
use crate::adapters::descriptor::*;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://docs.roocode.com/";
const MCP_DOC: &str = "https://docs.roocode.com/features/mcp/using-mcp-in-roo";

const NO_GATEWAY: &str = "Roo Code keeps its provider base URL in extension state set through its UI, not in a settings file";
const NO_HOOKS: &str = "Roo Code has no command hooks before tool actions";
const NO_MCP: &str = "Roo Code's MCP servers live in mcp_settings.json and .roo/mcp.json, disabled per server entry; there is no deny list";
const NO_APPROVAL: &str =
    "Roo Code's auto-approve choices are extension state set through its UI, not a settings file";

/// Roo Code.
pub static ROO_CODE: ToolDescriptor = ToolDescriptor {
    id: "roo-code",
    display_name: "Roo Code",
    detection: Detection {
        binaries: &[],
        version_args: &[],
        supported: ">=3.0.0",
        extensions: &[ExtensionDir {
            parent: ".vscode/extensions",
            prefix: "rooveterinaryinc.roo-cline-",
        }],
    },
    settings: &[vscode::CODE_SETTINGS[0]],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: vscode::HTTP_PROXY,
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Unsupported {
            reason: NO_APPROVAL,
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
        unsupported(C::McpGovernance, NO_MCP, MCP_DOC),
        unsupported(C::ToolActionApproval, NO_APPROVAL, DOC),
        supported(C::NativeIdeUi, DOC),
        supported(C::HostEnforcement, vscode::PROXY_DOC),
    ],
    warnings: &[],
};
