//! Zed: `settings.json` (JSONC) at user and project (`.zed/`) scope.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://zed.dev/docs/configuring-zed";
const LLM_DOC: &str = "https://zed.dev/docs/ai/llm-providers";
const AGENT_DOC: &str = "https://zed.dev/docs/ai/agent-settings";
const MCP_DOC: &str = "https://zed.dev/docs/ai/mcp";

const NO_HOOKS: &str = "Zed documents no command hooks before agent tool actions";
const NO_MCP: &str = "Zed's context_servers have no deny list";
const NO_MANAGED: &str = "Zed documents no administrator-managed settings file";

const LINUX_DOC: &str = "https://zed.dev/docs/linux";
const CLI_DOC: &str = "https://zed.dev/docs/getting-started";

/// The Linux install script's `~/.local/bin/zed`, and macOS's "Install CLI" link.
static INSTALL_DIRS: &[InstallDir] = &[
    InstallDir::home(".local/bin", LINUX_DOC),
    InstallDir::absolute("/usr/local/bin", CLI_DOC),
];

/// Zed.
pub static ZED: ToolDescriptor = ToolDescriptor {
    id: "zed",
    display_name: "Zed",
    detection: Detection::binary(&["zed", "zeditor"], ">=0.180.0")
        .installed_in(&[INSTALL_DIRS, install::HOMEBREW])
        .configured_in(".config/zed"),
    settings: &[
        SettingsFile::user(".config/zed/settings.json", SettingsFormat::Jsonc),
        SettingsFile::project(".zed/settings.json", SettingsFormat::Jsonc),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Native {
            edits: &[
                edit_in(
                    ScopeSet::USER,
                    &["language_models", "anthropic", "api_url"],
                    ValueTemplate::GatewayBaseUrl,
                ),
                edit_in(
                    ScopeSet::USER,
                    &["language_models", "openai", "api_url"],
                    ValueTemplate::GatewayBaseUrl,
                ),
            ],
        },
        http_proxy: MechanismSupport::Native {
            edits: &[edit_in(ScopeSet::USER, &["proxy"], ValueTemplate::ProxyUrl)],
        },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[edit(
                &["agent", "always_allow_tool_actions"],
                ValueTemplate::WhenApprovalRequired(Literal::Bool(false)),
            )],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, DOC),
        unsupported(
            C::ManagedLaunch,
            "Zed is an editor; devint builds no launch command for it",
            DOC,
        ),
        supported(C::ModelPathInterception, LLM_DOC),
        supported(C::ModelGatewayBaseUrl, LLM_DOC),
        supported(C::HttpProxy, DOC),
        unsupported(C::Hooks, NO_HOOKS, AGENT_DOC),
        supported(C::McpDiscovery, MCP_DOC),
        unsupported(C::McpGovernance, NO_MCP, MCP_DOC),
        supported(C::ToolActionApproval, AGENT_DOC),
        unsupported(
            C::NativeIdeUi,
            "Zed offers no extension point devint uses for a status or approval surface yet",
            DOC,
        ),
        supported(C::HostEnforcement, DOC),
    ],
    warnings: &[],
};
