//! Gemini CLI (Google): settings.json (v2 nested keys) at user, project and system scope.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const CONFIG_DOC: &str = "https://geminicli.com/docs/cli/configuration";
const ENTERPRISE_DOC: &str = "https://geminicli.com/docs/cli/enterprise";
const HOOKS_DOC: &str = "https://geminicli.com/docs/hooks/reference";

const NO_GATEWAY: &str = "Gemini CLI takes a custom endpoint only from GOOGLE_GEMINI_BASE_URL in its environment or ~/.gemini/.env (with the API-key auth selected), not from settings.json";
const NO_PROXY: &str = "Gemini CLI takes a proxy from the HTTPS_PROXY environment (or ~/.gemini/.env) or the --proxy flag, not from settings.json";
const POLICY_DOC: &str = "https://geminicli.com/docs/core/policy-engine/";

/// `mcp.excluded`: the denied MCP server names (Qwen Code reads the same key).
pub(super) const MCP_EXCLUDED: MechanismSupport = MechanismSupport::Native {
    edits: &[edit(
        &["mcp", "excluded"],
        ValueTemplate::McpDeny {
            entries: &["{server}"],
            shape: RuleShape::ListItem,
        },
    )],
};

/// Gemini CLI.
pub static GEMINI_CLI: ToolDescriptor = ToolDescriptor {
    id: "gemini-cli",
    display_name: "Gemini CLI",
    detection: Detection::binary(&["gemini"], ">=0.3.0")
        .installed_in(&[install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".gemini"),
    settings: &[
        SettingsFile::user(".gemini/settings.json", SettingsFormat::Jsonc),
        SettingsFile::project(".gemini/settings.json", SettingsFormat::Jsonc),
        SettingsFile::managed("/etc/gemini-cli/settings.json", SettingsFormat::Jsonc),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Native {
            edits: &[edit(&["hooks", "BeforeTool"], ValueTemplate::HookEntries(&[r#"{"matcher": ".*", "hooks": [{"type": "command", "command": "{command}"}]}"#]))],
        },
        mcp_governance: MCP_EXCLUDED,
        // Deny rules live in the policy engine's TOML files (~/.gemini/policies), which devint
        // does not write; settings.json's tools.exclude is deprecated (every start warns) and
        // reads an entry as a literal tool name, so `run_shell_command(curl)` denies nothing.
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(&["general", "defaultApprovalMode"], ValueTemplate::WhenApprovalRequired(Literal::Str("default"))),
                edit(&["security", "disableYoloMode"], ValueTemplate::WhenApprovalRequired(Literal::Bool(true))),
            ],
        },
        managed_settings: MechanismSupport::Native { edits: &[] },
    },
    capabilities: [
        discovery(CONFIG_DOC),
        supported(C::ManagedSettings, ENTERPRISE_DOC),
        unsupported(C::ManagedLaunch, "devint integrates Gemini CLI through settings.json and builds no launch command", CONFIG_DOC),
        ruled_out(C::ModelPathInterception, NO_GATEWAY, CONFIG_DOC),
        ruled_out(C::ModelGatewayBaseUrl, NO_GATEWAY, CONFIG_DOC),
        ruled_out(C::HttpProxy, NO_PROXY, CONFIG_DOC),
        seen(C::Hooks, HOOKS_DOC),
        seen(C::McpDiscovery, CONFIG_DOC),
        seen(C::McpGovernance, ENTERPRISE_DOC),
        seen(C::ToolActionApproval, POLICY_DOC),
        unsupported(C::NativeIdeUi, "Gemini CLI is a terminal tool with no extension point for a third-party status or approval surface", CONFIG_DOC),
        unsupported(C::HostEnforcement, "Gemini CLI takes no proxy from its settings, so host controls cannot be wired through them", CONFIG_DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::PROJECT, "with folder trust enabled, Gemini CLI ignores .gemini/settings.json in a folder that is not trusted"),
        ToolWarning::always(ScopeSet::ALL, "Gemini CLI's folder trust is on by default: in a folder it does not trust it skips hooks and MCP servers from every settings file"),
        ToolWarning::when_denying(ScopeSet::ALL, "Gemini CLI takes deny rules from its policy files (~/.gemini/policies/*.toml), which devint does not write: deny rules cannot be written for it"),
    ],
};
