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

/// The deny rules, as `permissions.deny` entries. A shell rule names both of Claude Code's
/// shell tools (`PowerShell` runs where `CLAUDE_CODE_USE_POWERSHELL_TOOL` is set): a `Bash`
/// rule alone leaves the other route open. Claude Code matches a `Bash(…)` rule per
/// sub-command, with wrappers and paths resolved, but `bash -c '…'` passes it.
static DENY_RULES: &[RuleWriting] = &[
    RuleWriting::new(
        RuleKind::Shell,
        &["Bash", "PowerShell"],
        &["Bash({cmd} *)", "PowerShell({cmd} *)"],
        Strength::Advisory,
    ),
    RuleWriting::new(
        RuleKind::WebFetch,
        &["WebFetch"],
        &["WebFetch(domain:{domain})"],
        Strength::Advisory,
    ),
    RuleWriting::new(RuleKind::WebSearch, &["WebSearch"], &[], Strength::Enforced),
    RuleWriting::new(
        RuleKind::FileRead,
        &["Read"],
        &["Read({claude_path})"],
        Strength::Advisory,
    ),
    // Only `Edit(path)` rules are matched by the file checks; `Write(path)` is refused with a
    // warning by Claude Code itself.
    RuleWriting::new(
        RuleKind::FileWrite,
        &["Edit"],
        &["Edit({claude_path})"],
        Strength::Advisory,
    ),
    RuleWriting::new(
        RuleKind::Mcp,
        &["mcp__{server}"],
        &["mcp__{server}__{tool}"],
        Strength::Enforced,
    ),
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
            edits: &[edit(&["hooks", "PreToolUse"], ValueTemplate::HookEntries(HOOK_MATCHER_GROUP))],
        },
        mcp_governance: MechanismSupport::Native {
            edits: &[edit(&["deniedMcpServers"], ValueTemplate::McpDeny { entries: &[r#"{"serverName": "{server}"}"#], shape: RuleShape::ListObject })],
        },
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(&["permissions", "deny"], ValueTemplate::DenyRules { rules: DENY_RULES, shape: RuleShape::ListItem }),
                edit(&["permissions", "defaultMode"], ValueTemplate::WhenApprovalRequired(Literal::Str("default"))),
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
        ruled_out(
            C::ManagedLaunch,
            "devint integrates Claude Code through its settings files and builds no launch command",
            SETTINGS_DOC,
        ),
        seen(C::ModelPathInterception, GATEWAY_DOC),
        seen(C::ModelGatewayBaseUrl, GATEWAY_DOC),
        seen(C::HttpProxy, NETWORK_DOC),
        seen(C::Hooks, HOOKS_DOC),
        seen(C::McpDiscovery, MCP_DOC),
        seen(C::McpGovernance, MANAGED_MCP_DOC),
        seen(C::ToolActionApproval, IAM_DOC),
        ruled_out(
            C::NativeIdeUi,
            "Claude Code is a terminal tool with no extension point for a third-party status or approval surface",
            SETTINGS_DOC,
        ),
        supported(C::HostEnforcement, NETWORK_DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::PROJECT, "Claude Code ignores .claude/settings.json in a project until the folder is trusted in its trust dialog"),
    ],
};
