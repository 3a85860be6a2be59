//! Codex CLI (OpenAI): TOML config at user, trusted-project and managed scope.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const CONFIG_DOC: &str = "https://developers.openai.com/codex/config-basic";
const REFERENCE_DOC: &str = "https://developers.openai.com/codex/config-reference";
const ENTERPRISE_DOC: &str = "https://developers.openai.com/codex/enterprise/managed-configuration";

/// Codex writes config.toml through a `tempfile` temporary persisted over it
/// (`codex-rs/core/src/path_utils.rs`, `write_atomically`), so the file it creates is `0600`.
const CODEX_CONFIG_MODE: u32 = 0o600;

const NO_PROXY: &str = "Codex reads a proxy only from the HTTPS_PROXY environment of its launch; config.toml has no proxy key";
const NO_MCP: &str = "Codex has no MCP deny list: a server is turned off only by enabled = false inside its own mcp_servers entry, which devint does not own, and Codex refuses an entry that names no command (\"invalid transport\")";
const HOOKS_DOC: &str = "https://developers.openai.com/codex/hooks";

/// The first release that reads lifecycle hooks inline in config.toml (`hooks.<Event>` as a
/// list of matcher groups) and runs them by default; earlier releases do not read hooks
/// there, so nothing is written for them.
const HOOKS_SINCE: &str = "0.124.0";

/// What Codex does with the hook devint writes, and what that leaves to the user.
const HOOK_TRUST: &str = "Codex runs the hook devint writes to config.toml only after you trust it in Codex's /hooks screen, and again after devint changes it; until then Codex skips it silently, and devint cannot see whether you did";

/// The deny rules config.toml can hold. Codex's command rules live in `rules/*.rules`
/// (Starlark), a file devint does not write, and it has no web fetch tool of its own.
static DENY_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::WebSearch,
    &["on"],
    &[],
    Strength::Enforced,
)];

const GATEWAY_SCOPES: ScopeSet = ScopeSet {
    user: true,
    project: false,
    managed: true,
};

/// Codex CLI.
pub static CODEX: ToolDescriptor = ToolDescriptor {
    id: "codex",
    display_name: "Codex CLI",
    detection: Detection::binary(&["codex"], ">=0.30.0")
        .installed_in(&[install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".codex"),
    settings: &[
        SettingsFile::user(".codex/config.toml", SettingsFormat::Toml).created_with(CODEX_CONFIG_MODE),
        SettingsFile::project(".codex/config.toml", SettingsFormat::Toml).created_with(CODEX_CONFIG_MODE),
        SettingsFile::managed("/etc/codex/config.toml", SettingsFormat::Toml),
    ],
    mechanisms: Mechanisms {
        // A trusted project's .codex/config.toml cannot select model_provider.
        model_gateway_base_url: MechanismSupport::Native {
            edits: &[
                edit_in(GATEWAY_SCOPES, &["model_providers", "devint-gateway", "name"], ValueTemplate::Always(Literal::Str("devint gateway"))),
                edit_in(GATEWAY_SCOPES, &["model_providers", "devint-gateway", "base_url"], ValueTemplate::GatewayBaseUrl),
                edit_in(GATEWAY_SCOPES, &["model_providers", "devint-gateway", "wire_api"], ValueTemplate::Always(Literal::Str("responses"))),
                edit_in(GATEWAY_SCOPES, &["model_providers", "devint-gateway", "env_key"], ValueTemplate::Always(Literal::Str("OPENAI_API_KEY"))),
                edit_in(GATEWAY_SCOPES, &["model_provider"], ValueTemplate::Always(Literal::Str("devint-gateway"))),
            ],
        },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        // A PreToolUse matcher group in config.toml, which can block a tool call. Codex runs a
        // hook that is not managed (requirements.toml) only once the user has trusted it:
        // the trust record holds a hash Codex computes over the hook, and writing it would
        // skip the consent Codex asks for, so devint leaves it to the user and says so.
        hooks: MechanismSupport::Adapted {
            edits: &[edit(&["hooks", "PreToolUse"], ValueTemplate::HookEntries(HOOK_MATCHER_GROUP)).read_by(Versions::since(HOOKS_SINCE))],
            how: "installed as a PreToolUse hook in config.toml, which can block a tool call, but inert until you trust it once in Codex's /hooks screen (Codex skips an untrusted hook without a message)",
        },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(&["web_search"], ValueTemplate::DenyRules { rules: DENY_RULES, shape: RuleShape::Flag(Literal::Str("disabled")) }),
                edit(&["approval_policy"], ValueTemplate::WhenApprovalRequired(Literal::Str("on-request"))),
            ],
        },
        managed_settings: MechanismSupport::Native { edits: &[] },
    },
    capabilities: [
        discovery(CONFIG_DOC),
        supported(C::ManagedSettings, ENTERPRISE_DOC),
        unsupported(
            C::ManagedLaunch,
            "devint integrates Codex through config.toml and builds no launch command",
            CONFIG_DOC,
        ),
        seen(C::ModelPathInterception, CONFIG_DOC),
        seen(C::ModelGatewayBaseUrl, REFERENCE_DOC),
        ruled_out(C::HttpProxy, NO_PROXY, CONFIG_DOC),
        // Judged on 0.171.0; Codex reads hooks in config.toml from HOOKS_SINCE on.
        CapabilityRow { capability: C::Hooks, support: DeclaredSupport::RequiresVersion { min: HOOKS_SINCE }, source: HOOKS_DOC, checked: JUDGED },
        seen(C::McpDiscovery, CONFIG_DOC),
        ruled_out(C::McpGovernance, NO_MCP, CONFIG_DOC),
        seen(C::ToolActionApproval, REFERENCE_DOC),
        unsupported(
            C::NativeIdeUi,
            "Codex CLI is a terminal tool with no extension point for a third-party status or approval surface",
            CONFIG_DOC,
        ),
        unsupported(
            C::HostEnforcement,
            "Codex takes no proxy from its settings, so host controls cannot be wired through them",
            CONFIG_DOC,
        ),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::PROJECT, "Codex loads a project's .codex/config.toml only after the project is marked trusted"),
        ToolWarning::always(ScopeSet::MANAGED, "/etc/codex/config.toml holds defaults Codex applies at each start, which users can change; enforced constraints live in /etc/codex/requirements.toml, which this adapter does not write"),
        ToolWarning::always(ScopeSet::ALL, "the gateway provider reads its key from OPENAI_API_KEY; devint never writes a credential"),
        ToolWarning::always(ScopeSet::ALL, HOOK_TRUST),
        ToolWarning::when_denying(ScopeSet::ALL, "Codex takes command deny rules from rules/*.rules files (Starlark), which devint does not write, and has no web fetch tool of its own: shell and web-fetch deny rules cannot be written for it"),
    ],
};
