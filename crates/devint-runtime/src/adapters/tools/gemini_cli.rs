//! Gemini CLI (Google): settings.json (v2 nested keys) at user, project and system scope.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const CONFIG_DOC: &str = "https://geminicli.com/docs/cli/configuration";
const ENTERPRISE_DOC: &str = "https://geminicli.com/docs/cli/enterprise";
const HOOKS_DOC: &str = "https://geminicli.com/docs/hooks/reference";

const NO_GATEWAY: &str = "Gemini CLI takes a custom endpoint only from the GOOGLE_GEMINI_BASE_URL environment (or a .env file), not from settings.json";
const NO_PROXY: &str = "Gemini CLI takes a proxy from the HTTPS_PROXY environment or the --proxy flag, not from a settings key devint can vouch for";

/// `mcp.excluded`: the denied MCP server names (Qwen Code inherits the key).
pub(super) const MCP_EXCLUDED: MechanismSupport = MechanismSupport::Native {
    edits: &[edit(&["mcp", "excluded"], ValueTemplate::McpDenyNames)],
};

/// `tools.exclude` and `tools.autoAccept` (Qwen Code inherits both keys).
pub(super) const TOOLS_EXCLUDE: MechanismSupport = MechanismSupport::Native {
    edits: &[
        edit(&["tools", "exclude"], ValueTemplate::DenyPatterns),
        edit(
            &["tools", "autoAccept"],
            ValueTemplate::WhenApprovalRequired(Literal::Bool(false)),
        ),
    ],
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
            edits: &[edit(&["hooks", "BeforeTool"], ValueTemplate::HookMatcherGroup { matcher: ".*" })],
        },
        mcp_governance: MCP_EXCLUDED,
        tool_action_approval: TOOLS_EXCLUDE,
        managed_settings: MechanismSupport::Native { edits: &[] },
    },
    capabilities: [
        discovery(CONFIG_DOC),
        supported(C::ManagedSettings, ENTERPRISE_DOC),
        unsupported(C::ManagedLaunch, "devint integrates Gemini CLI through settings.json and builds no launch command", CONFIG_DOC),
        unsupported(C::ModelPathInterception, NO_GATEWAY, CONFIG_DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, CONFIG_DOC),
        unsupported(C::HttpProxy, NO_PROXY, CONFIG_DOC),
        supported(C::Hooks, HOOKS_DOC),
        supported(C::McpDiscovery, CONFIG_DOC),
        supported(C::McpGovernance, ENTERPRISE_DOC),
        supported(C::ToolActionApproval, ENTERPRISE_DOC),
        unsupported(C::NativeIdeUi, "Gemini CLI is a terminal tool with no extension point for a third-party status or approval surface", CONFIG_DOC),
        unsupported(C::HostEnforcement, "Gemini CLI takes no proxy from its settings, so host controls cannot be wired through them", CONFIG_DOC),
    ],
    warnings: &[
        ToolWarning {
            scopes: ScopeSet::PROJECT,
            text: "with folder trust enabled, Gemini CLI ignores .gemini/settings.json in a folder that is not trusted",
        },
        ToolWarning {
            scopes: ScopeSet::ALL,
            text: "some Gemini CLI releases run hooks only when hooks are enabled in settings; verify reads the hook back but cannot prove it runs",
        },
    ],
};
