//! Continue: `config.yaml` under `~/.continue`, read by the IDE extension and the `cn` CLI.

use super::vscode;
use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://docs.continue.dev/reference";
const MCP_DOC: &str = "https://docs.continue.dev/customize/deep-dives/mcp";

const NO_GATEWAY: &str = "Continue sets apiBase per entry of its models list; devint edits keys, not list entries it does not own";
const NO_PROXY: &str = "Continue sets a proxy per model entry (requestOptions.proxy) in its models list; devint edits keys, not list entries it does not own";
const NO_HOOKS: &str = "Continue documents no command hooks before tool actions";
const NO_MCP: &str = "Continue's mcpServers is a list with no deny list";
const NO_APPROVAL: &str = "Continue's tool policies are set through its UI, not config.yaml";
const NO_MANAGED: &str =
    "Continue's organisation policies come from Continue Hub, not a local managed file";

/// Continue.
pub static CONTINUE: ToolDescriptor = ToolDescriptor {
    id: "continue",
    display_name: "Continue",
    detection: Detection {
        binaries: &["cn"],
        version_args: &["--version"],
        supported: ">=1.0.0",
        extensions: &[vscode::extension("continue.continue-")],
        install_dirs: &[install::NPM_GLOBAL],
        config_dir: Some(".continue"),
    },
    settings: &[SettingsFile::user(
        ".continue/config.yaml",
        SettingsFormat::Yaml,
    )],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
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
            "devint builds no launch command for Continue",
            DOC,
        ),
        unsupported(C::ModelPathInterception, NO_GATEWAY, DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, DOC),
        unsupported(C::HttpProxy, NO_PROXY, DOC),
        unsupported(C::Hooks, NO_HOOKS, DOC),
        supported(C::McpDiscovery, MCP_DOC),
        unsupported(C::McpGovernance, NO_MCP, MCP_DOC),
        unsupported(C::ToolActionApproval, NO_APPROVAL, DOC),
        supported(C::NativeIdeUi, DOC),
        unsupported(
            C::HostEnforcement,
            "Continue takes no proxy devint can set, so host controls cannot be wired through it",
            DOC,
        ),
    ],
    warnings: &[],
};
