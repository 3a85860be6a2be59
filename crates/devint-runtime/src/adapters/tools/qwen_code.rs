//! Qwen Code (a Gemini CLI fork): settings.json at user, project and system scope.

use super::gemini_cli;
use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://qwenlm.github.io/qwen-code-docs/en/users/configuration/settings/";

const NO_GATEWAY: &str = "Qwen Code takes an OpenAI-compatible endpoint from OPENAI_BASE_URL (environment or .qwen/.env), not from a settings key devint can vouch for";
const NO_PROXY: &str = "Qwen Code takes a proxy from the HTTPS_PROXY environment or the --proxy flag, not from a settings key devint can vouch for";
const NO_HOOKS: &str = "Qwen Code documents no command hooks before tool actions";

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
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: gemini_cli::MCP_EXCLUDED,
        tool_action_approval: gemini_cli::TOOLS_EXCLUDE,
        managed_settings: MechanismSupport::Native { edits: &[] },
    },
    capabilities: [
        discovery(DOC),
        supported(C::ManagedSettings, DOC),
        unsupported(C::ManagedLaunch, "devint integrates Qwen Code through settings.json and builds no launch command", DOC),
        unsupported(C::ModelPathInterception, NO_GATEWAY, DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, DOC),
        unsupported(C::HttpProxy, NO_PROXY, DOC),
        unsupported(C::Hooks, NO_HOOKS, DOC),
        supported(C::McpDiscovery, DOC),
        supported(C::McpGovernance, DOC),
        supported(C::ToolActionApproval, DOC),
        unsupported(C::NativeIdeUi, "Qwen Code is a terminal tool with no extension point for a third-party status or approval surface", DOC),
        unsupported(C::HostEnforcement, "Qwen Code takes no proxy from its settings, so host controls cannot be wired through them", DOC),
    ],
    warnings: &[ToolWarning {
        scopes: ScopeSet::PROJECT,
        text: "with folder trust enabled, Qwen Code ignores .qwen/settings.json in a folder that is not trusted",
    }],
};
