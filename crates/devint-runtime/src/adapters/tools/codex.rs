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
const NO_MCP: &str = "Codex has no MCP deny list; a server is disabled only inside its own mcp_servers entry, which devint does not own";

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
        SettingsFile::managed("/etc/codex/managed_config.toml", SettingsFormat::Toml),
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
        hooks: MechanismSupport::Adapted {
            edits: &[edit(&["notify"], ValueTemplate::HookArgv)],
            how: "installed as the notify program, which Codex runs after each agent turn: it observes but cannot block a tool call, and it replaces any notify program already set (restored on removal)",
        },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[edit(&["approval_policy"], ValueTemplate::WhenApprovalRequired(Literal::Str("on-request")))],
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
        supported(C::ModelPathInterception, CONFIG_DOC),
        supported(C::ModelGatewayBaseUrl, REFERENCE_DOC),
        unsupported(C::HttpProxy, NO_PROXY, CONFIG_DOC),
        supported(C::Hooks, REFERENCE_DOC),
        supported(C::McpDiscovery, CONFIG_DOC),
        unsupported(C::McpGovernance, NO_MCP, CONFIG_DOC),
        supported(C::ToolActionApproval, REFERENCE_DOC),
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
        ToolWarning {
            scopes: ScopeSet::PROJECT,
            text: "Codex loads a project's .codex/config.toml only after the project is marked trusted",
        },
        ToolWarning {
            scopes: ScopeSet::MANAGED,
            text: "/etc/codex/managed_config.toml holds defaults Codex reapplies at each start, which users can change in a session; enforced constraints live in /etc/codex/requirements.toml, which this adapter does not write",
        },
        ToolWarning {
            scopes: ScopeSet::ALL,
            text: "the gateway provider reads its key from OPENAI_API_KEY; devint never writes a credential",
        },
    ],
};
