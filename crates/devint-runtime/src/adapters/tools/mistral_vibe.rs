//! Mistral Vibe (`vibe`, PyPI `mistral-vibe`): `~/.vibe/config.toml` at user scope.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const CONFIG_DOC: &str = "https://docs.mistral.ai/vibe/code/cli/configuration";
const REFERENCE_DOC: &str = "https://docs.mistral.ai/vibe/code/cli/configuration-reference";
const SAFETY_DOC: &str = "https://docs.mistral.ai/vibe/code/safety-approvals-permissions";
const HOOKS_DOC: &str = "https://docs.mistral.ai/vibe/code/cli/hooks";
const PACKAGE_DOC: &str = "https://pypi.org/project/mistral-vibe/";

const NO_PROXY: &str = "Vibe takes a proxy only from HTTPS_PROXY in its environment or in ~/.vibe/.env, a file of its own beside config.toml that devint does not write";
const NO_HOOKS: &str = "Vibe reads hooks from ~/.vibe/hooks.toml, a file of its own beside config.toml; devint edits one settings file per scope and does not write it";
const NO_MANAGED: &str =
    "Vibe's administrator settings come from Mistral's service, not from a local managed file";

/// The deny rules. A whole kind of action is taken away through `disabled_tools` (globs on
/// tool names; a disabled shell takes Vibe's process tools with it). A command prefix goes
/// to the denylist of each of Vibe's shells (`bash`; `git_bash` and `powershell` on
/// Windows), matched on each sub-command's first words: `env curl`, `sh -c 'curl …'` or
/// `/usr/bin/curl` pass it. Vibe names an MCP tool `<server>_<tool>`, the server's `-`
/// written `_`.
static DISABLED_TOOLS: &[RuleWriting] = &[
    RuleWriting::new(
        RuleKind::Shell,
        &["bash", "git_bash", "powershell"],
        &[],
        Strength::Enforced,
    ),
    RuleWriting::new(RuleKind::WebFetch, &["web_fetch"], &[], Strength::Enforced),
    RuleWriting::new(
        RuleKind::WebSearch,
        &["web_search"],
        &[],
        Strength::Enforced,
    ),
    RuleWriting::new(RuleKind::FileRead, &["read_file"], &[], Strength::Advisory),
    RuleWriting::new(
        RuleKind::FileWrite,
        &["write_file", "edit"],
        &[],
        Strength::Advisory,
    ),
    RuleWriting::new(
        RuleKind::Mcp,
        &["{server_ident}_*"],
        &["{server_ident}_{tool}"],
        Strength::Enforced,
    ),
];

/// Command prefixes, for one shell's `denylist`.
static SHELL_PREFIXES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::Shell,
    &[],
    &["{cmd}"],
    Strength::Advisory,
)];

/// Mistral Vibe.
pub static MISTRAL_VIBE: ToolDescriptor = ToolDescriptor {
    id: "mistral-vibe",
    display_name: "Mistral Vibe",
    detection: Detection::binary(&["vibe"], ">=3.0.0")
        .installed_in(&[install::PYTHON_TOOLS])
        .configured_in(".vibe"),
    settings: &[SettingsFile::user(".vibe/config.toml", SettingsFormat::Toml)],
    mechanisms: Mechanisms {
        // Providers merge by name over Vibe's built-in ones, each entry whole: this one stands
        // in for the built-in `mistral` provider, keeping its key variable and sign-in pages.
        model_gateway_base_url: MechanismSupport::Adapted {
            edits: &[edit(&["providers"], ValueTemplate::GatewayObjects(&[r#"{"name": "mistral", "api_base": "{url}", "api_key_env_var": "MISTRAL_API_KEY", "backend": "mistral", "browser_auth_base_url": "https://console.mistral.ai", "browser_auth_api_base_url": "https://console.mistral.ai/api"}"#]))],
            how: "set as the endpoint of Vibe's built-in mistral provider, which its default models use (the gateway gets Mistral's chat completions API and MISTRAL_API_KEY); a model of another provider does not pass through the gateway",
        },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Native {
            edits: &[edit(&["disabled_tools"], ValueTemplate::McpDeny { entries: &["{server_ident}_*"], shape: RuleShape::ListItem })],
        },
        // Auto-approve (the programmatic mode's default, `--yolo`, the auto-approve agent)
        // skips the denylists and every per-tool permission: only `enable_auto_approve =
        // false` keeps them in force.
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(&["disabled_tools"], ValueTemplate::DenyRules { rules: DISABLED_TOOLS, shape: RuleShape::ListItem }),
                edit(&["tools", "bash", "denylist"], ValueTemplate::DenyRules { rules: SHELL_PREFIXES, shape: RuleShape::ListItem }),
                edit(&["tools", "git_bash", "denylist"], ValueTemplate::DenyRules { rules: SHELL_PREFIXES, shape: RuleShape::ListItem }),
                edit(&["tools", "powershell", "denylist"], ValueTemplate::DenyRules { rules: SHELL_PREFIXES, shape: RuleShape::ListItem }),
                edit(&["enable_auto_approve"], ValueTemplate::WhenDenying(Literal::Bool(false))),
                edit(&["enable_auto_approve"], ValueTemplate::WhenApprovalRequired(Literal::Bool(false))),
                edit(&["default_agent"], ValueTemplate::WhenApprovalRequired(Literal::Str("ask"))),
            ],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(PACKAGE_DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, CONFIG_DOC),
        unsupported(C::ManagedLaunch, "devint integrates Vibe through config.toml and builds no launch command", CONFIG_DOC),
        seen(C::ModelPathInterception, REFERENCE_DOC),
        seen(C::ModelGatewayBaseUrl, REFERENCE_DOC),
        unsupported(C::HttpProxy, NO_PROXY, CONFIG_DOC),
        unsupported(C::Hooks, NO_HOOKS, HOOKS_DOC),
        seen(C::McpDiscovery, REFERENCE_DOC),
        seen(C::McpGovernance, REFERENCE_DOC),
        seen(C::ToolActionApproval, SAFETY_DOC),
        unsupported(C::NativeIdeUi, "Vibe's terminal interface has no extension point for a third-party status or approval surface", CONFIG_DOC),
        unsupported(C::HostEnforcement, "Vibe takes no proxy from config.toml, so host controls cannot be wired through it", CONFIG_DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::USER, "a trusted project's .vibe/config.toml overrides the user's: its lists replace devint's, and it can turn auto-approve back on"),
        ToolWarning::when_denying(ScopeSet::USER, "Vibe matches a command prefix on each sub-command's first words: `env curl`, `sh -c 'curl …'` or a full path to the command pass it"),
        ToolWarning::always(ScopeSet::USER, "Vibe names an MCP tool <server>_<tool> with the server's `-` written `_`: denying a server also hides the tools of a server whose name differs from it only there"),
    ],
};
