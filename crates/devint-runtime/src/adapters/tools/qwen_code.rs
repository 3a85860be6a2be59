//! Qwen Code (a Gemini CLI fork): settings.json at user, project and system scope.

use super::gemini_cli;
use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://qwenlm.github.io/qwen-code-docs/en/users/configuration/settings/";
const HOOKS_DOC: &str = "https://qwenlm.github.io/qwen-code-docs/en/users/features/hooks/";

/// The deny rules, as Qwen Code's own `permissions.deny` rules (its `Bash` alias covers
/// `run_shell_command`; a specifier without `*` matches the command or a word prefix of it,
/// per sub-command).
static DENY_RULES: &[RuleWriting] = &[
    RuleWriting::new(
        RuleKind::Shell,
        &["Bash"],
        &["Bash({cmd})"],
        Strength::Advisory,
    ),
    RuleWriting::new(
        RuleKind::WebFetch,
        &["WebFetch"],
        &["WebFetch(domain:{domain})"],
        Strength::Advisory,
    ),
    RuleWriting::new(RuleKind::WebSearch, &["WebSearch"], &[], Strength::Enforced),
    RuleWriting::new(RuleKind::FileRead, &["Read"], &[], Strength::Advisory),
    RuleWriting::new(RuleKind::FileWrite, &["Edit"], &[], Strength::Advisory),
    RuleWriting::new(
        RuleKind::Mcp,
        &["mcp__{server}"],
        &["mcp__{server}__{tool}"],
        Strength::Enforced,
    ),
];

/// Qwen Code.
pub static QWEN_CODE: ToolDescriptor = ToolDescriptor {
    id: "qwen-code",
    display_name: "Qwen Code",
    detection: Detection::binary(&["qwen"], ">=0.1.0")
        .installed_in(&[install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".qwen"),
    settings: &[
        SettingsFile::user(".qwen/settings.json", SettingsFormat::Jsonc),
        SettingsFile::project(".qwen/settings.json", SettingsFormat::Jsonc),
        SettingsFile::managed("/etc/qwen-code/settings.json", SettingsFormat::Jsonc),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Adapted {
            edits: &[
                // The auth method's name, never a secret: the one displaced is restored.
                edit(&["security", "auth", "selectedType"], ValueTemplate::Always(Literal::Str("openai"))).holding_no_secret(),
                edit(&["security", "auth", "baseUrl"], ValueTemplate::GatewayBaseUrl).holding_no_secret(),
            ],
            how: "selects Qwen Code's OpenAI-compatible auth with the gateway as its base URL (the auth method and URL it had come back on removal; a displaced value that looks like a credential is never stored); its key comes from OPENAI_API_KEY",
        },
        http_proxy: MechanismSupport::Native {
            edits: &[edit(&["proxy"], ValueTemplate::ProxyUrl)],
        },
        hooks: MechanismSupport::Native {
            edits: &[edit(&["hooks", "PreToolUse"], ValueTemplate::HookEntries(&[r#"{"matcher": ".*", "hooks": [{"type": "command", "command": "{command}"}]}"#]))],
        },
        mcp_governance: gemini_cli::MCP_EXCLUDED,
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(&["permissions", "deny"], ValueTemplate::DenyRules { rules: DENY_RULES, shape: RuleShape::ListItem }),
                edit(&["tools", "approvalMode"], ValueTemplate::WhenApprovalRequired(Literal::Str("default"))),
            ],
        },
        managed_settings: MechanismSupport::Native { edits: &[] },
    },
    capabilities: [
        discovery(DOC),
        supported(C::ManagedSettings, DOC),
        unsupported(C::ManagedLaunch, "devint integrates Qwen Code through settings.json and builds no launch command", DOC),
        seen(C::ModelPathInterception, DOC),
        seen(C::ModelGatewayBaseUrl, DOC),
        seen(C::HttpProxy, DOC),
        seen(C::Hooks, HOOKS_DOC),
        seen(C::McpDiscovery, DOC),
        seen(C::McpGovernance, DOC),
        seen(C::ToolActionApproval, DOC),
        unsupported(C::NativeIdeUi, "Qwen Code is a terminal tool with no extension point for a third-party status or approval surface", DOC),
        supported(C::HostEnforcement, DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::PROJECT, "with folder trust enabled, Qwen Code ignores .qwen/settings.json in a folder that is not trusted"),
        ToolWarning::always(ScopeSet::ALL, "Qwen Code's --bare and --safe-mode flags drop every deny rule, hook and MCP server its settings hold"),
    ],
};
