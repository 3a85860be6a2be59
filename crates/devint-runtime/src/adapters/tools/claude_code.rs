//! Claude Code (Anthropic's terminal agent): settings.json at user, project and managed scope.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const SETTINGS_DOC: &str = "https://code.claude.com/docs/en/settings";
const IAM_DOC: &str = "https://code.claude.com/docs/en/iam";
const HOOKS_DOC: &str = "https://code.claude.com/docs/en/hooks";
const GATEWAY_DOC: &str = "https://code.claude.com/docs/en/llm-gateway";
const NETWORK_DOC: &str = "https://code.claude.com/docs/en/network-config";
const MCP_DOC: &str = "https://code.claude.com/docs/en/mcp";
const MANAGED_MCP_DOC: &str = "https://code.claude.com/docs/en/managed-mcp";

const SETUP_DOC: &str = "https://code.claude.com/docs/en/setup";
const TROUBLESHOOTING_DOC: &str = "https://code.claude.com/docs/en/troubleshooting";

/// The native installer's `~/.local/bin/claude`, and the older per-user "local" install.
static INSTALL_DIRS: &[InstallDir] = &[
    InstallDir::home(".local/bin", SETUP_DOC),
    InstallDir::home(".claude/local", TROUBLESHOOTING_DOC),
];

/// Claude Code.
pub static CLAUDE_CODE: ToolDescriptor = ToolDescriptor {
    id: "claude-code",
    display_name: "Claude Code",
    detection: Detection::binary(&["claude"], ">=1.0.0")
        .installed_in(&[INSTALL_DIRS, install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".claude"),
    settings: &[
        SettingsFile::user(".claude/settings.json", SettingsFormat::Json),
        SettingsFile::project(".claude/settings.json", SettingsFormat::Json),
        SettingsFile::managed("/etc/claude-code/managed-settings.json", SettingsFormat::Json),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Native {
            edits: &[edit(&["env", "ANTHROPIC_BASE_URL"], ValueTemplate::GatewayBaseUrl)],
        },
        http_proxy: MechanismSupport::Native {
            edits: &[
                edit(&["env", "HTTPS_PROXY"], ValueTemplate::ProxyUrl),
                edit(&["env", "HTTP_PROXY"], ValueTemplate::ProxyUrl),
            ],
        },
        hooks: MechanismSupport::Native {
            edits: &[edit(&["hooks", "PreToolUse"], ValueTemplate::HookMatcherGroup { matcher: "*" })],
        },
        mcp_governance: MechanismSupport::Native {
            edits: &[edit(&["deniedMcpServers"], ValueTemplate::McpDenyServerObjects)],
        },
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(&["permissions", "deny"], ValueTemplate::DenyPatterns),
                edit(
                    &["permissions", "disableBypassPermissionsMode"],
                    ValueTemplate::WhenApprovalRequired(Literal::Str("disable")),
                ),
            ],
        },
        managed_settings: MechanismSupport::Native { edits: &[] },
    },
    capabilities: [
        discovery(SETTINGS_DOC),
        supported(C::ManagedSettings, IAM_DOC),
        unsupported(
            C::ManagedLaunch,
            "devint integrates Claude Code through its settings files and builds no launch command",
            SETTINGS_DOC,
        ),
        supported(C::ModelPathInterception, GATEWAY_DOC),
        supported(C::ModelGatewayBaseUrl, GATEWAY_DOC),
        supported(C::HttpProxy, NETWORK_DOC),
        supported(C::Hooks, HOOKS_DOC),
        supported(C::McpDiscovery, MCP_DOC),
        supported(C::McpGovernance, MANAGED_MCP_DOC),
        supported(C::ToolActionApproval, IAM_DOC),
        unsupported(
            C::NativeIdeUi,
            "Claude Code is a terminal tool with no extension point for a third-party status or approval surface",
            SETTINGS_DOC,
        ),
        supported(C::HostEnforcement, NETWORK_DOC),
    ],
    warnings: &[ToolWarning {
        scopes: ScopeSet::PROJECT,
        text: "Claude Code ignores .claude/settings.json in a project until the folder is trusted in its trust dialog",
    }],
};
