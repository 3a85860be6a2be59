//! Pi (the minimal terminal coding agent): `~/.pi/agent/settings.json` and `.pi/settings.json`.
//!
//! Pi deliberately ships no MCP, no permission prompts and no built-in hooks; those come
//! from TypeScript extensions. Nothing governance-related is a settings key, and this
//! descriptor says so rather than inventing keys.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://pi.dev/docs/latest";
const REPO: &str = "https://github.com/earendil-works/pi";

const NO_GATEWAY: &str = "Pi takes custom endpoints as provider entries in models.json, a file this adapter does not manage";
const NO_PROXY: &str = "Pi has no proxy settings key this adapter can vouch for; use the HTTPS_PROXY environment of its launch";
const NO_HOOKS: &str =
    "Pi hooks are TypeScript extensions, not settings keys; devint writes no extension code";
const NO_MCP: &str = "Pi has no built-in MCP support (it comes only from third-party extensions)";
const NO_APPROVAL: &str =
    "Pi has no built-in permission prompts or deny list (by design); gating needs an extension";
const NO_MANAGED: &str = "Pi documents no administrator-managed settings file";

/// Pi.
pub static PI: ToolDescriptor = ToolDescriptor {
    id: "pi",
    display_name: "Pi",
    detection: Detection::binary(&["pi"], ">=0.10.0")
        .installed_in(&[install::NPM_GLOBAL])
        .configured_in(".pi"),
    settings: &[
        SettingsFile::user(".pi/agent/settings.json", SettingsFormat::Json),
        SettingsFile::project(".pi/settings.json", SettingsFormat::Json),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Unsupported { reason: NO_APPROVAL },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(REPO),
        unsupported(C::ManagedSettings, NO_MANAGED, DOC),
        unsupported(C::ManagedLaunch, "devint builds no launch command for Pi", DOC),
        unsupported(C::ModelPathInterception, NO_GATEWAY, DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, DOC),
        unsupported(C::HttpProxy, NO_PROXY, DOC),
        unsupported(C::Hooks, NO_HOOKS, DOC),
        unsupported(C::McpDiscovery, NO_MCP, DOC),
        unsupported(C::McpGovernance, NO_MCP, DOC),
        unsupported(C::ToolActionApproval, NO_APPROVAL, DOC),
        unsupported(C::NativeIdeUi, "Pi is a terminal tool with no extension point devint uses for a status or approval surface", DOC),
        unsupported(C::HostEnforcement, "Pi takes no proxy from its settings, so host controls cannot be wired through them", DOC),
    ],
    warnings: &[ToolWarning::always(ScopeSet::PROJECT, "Pi reads a project's .pi/settings.json only after the project is trusted")],
};
