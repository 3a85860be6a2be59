//! Grok CLI (`grok`, npm `@vibe-kit/grok-cli`): `~/.grok/user-settings.json` at user scope.
//!
//! Its settings hold the model endpoint and nothing governance-related: confirmations are
//! asked per session in its interface, MCP servers live in the project's `.grok/settings.json`
//! without a way to disable one, and it has no hooks.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const REPO_DOC: &str = "https://github.com/superagent-ai/grok-cli";
const PACKAGE_DOC: &str = "https://www.npmjs.com/package/@vibe-kit/grok-cli";

const NO_PROXY: &str =
    "Grok CLI has no proxy settings key; use the HTTPS_PROXY environment of its launch";
const NO_HOOKS: &str = "Grok CLI has no hooks";
const NO_MCP: &str = "Grok CLI reads MCP servers from the project's .grok/settings.json and has no way to deny or disable one";
const NO_APPROVAL: &str = "Grok CLI asks for confirmation per session in its interface; no settings key forces or denies a tool action";
const NO_MANAGED: &str = "Grok CLI documents no administrator-managed settings file";

/// Grok CLI.
pub static GROK_CLI: ToolDescriptor = ToolDescriptor {
    id: "grok-cli",
    display_name: "Grok CLI",
    // `grok --version` reports 1.0.1 for the npm package 0.0.34.
    detection: Detection::binary(&["grok"], ">=1.0.0")
        .installed_in(&[install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".grok"),
    settings: &[SettingsFile::user(".grok/user-settings.json", SettingsFormat::Json)],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Native {
            edits: &[edit(&["baseURL"], ValueTemplate::GatewayBaseUrl)],
        },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Unsupported { reason: NO_APPROVAL },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(PACKAGE_DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, REPO_DOC),
        unsupported(C::ManagedLaunch, "devint integrates Grok CLI through user-settings.json and builds no launch command", REPO_DOC),
        seen(C::ModelPathInterception, REPO_DOC),
        seen(C::ModelGatewayBaseUrl, REPO_DOC),
        unsupported(C::HttpProxy, NO_PROXY, REPO_DOC),
        unsupported(C::Hooks, NO_HOOKS, REPO_DOC),
        supported(C::McpDiscovery, REPO_DOC),
        unsupported(C::McpGovernance, NO_MCP, REPO_DOC),
        unsupported(C::ToolActionApproval, NO_APPROVAL, REPO_DOC),
        unsupported(C::NativeIdeUi, "Grok CLI is a terminal tool with no extension point for a third-party status or approval surface", REPO_DOC),
        unsupported(C::HostEnforcement, "Grok CLI takes no proxy from its settings, so host controls cannot be wired through them", REPO_DOC),
    ],
    warnings: &[ToolWarning::always(ScopeSet::USER, "Grok CLI's --base-url flag and GROK_BASE_URL environment variable override the baseURL in its settings")],
};
