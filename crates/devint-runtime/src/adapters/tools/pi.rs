//! Pi (the minimal terminal coding agent): `~/.pi/agent/models.json`, its provider file.
//!
//! Pi deliberately ships no MCP, no permission prompts and no built-in hooks; those come
//! from TypeScript extensions, and devint writes no code. Its `settings.json` holds nothing
//! governance-related; `models.json` overrides a built-in provider's `baseUrl` while keeping
//! its models, which is where the gateway goes.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://pi.dev/docs/latest";
const MODELS_DOC: &str =
    "https://github.com/badlogic/pi-mono/blob/main/packages/coding-agent/docs/models.md#overriding-built-in-providers";
const REPO: &str = "https://github.com/earendil-works/pi";

const NO_PROXY: &str = "Pi takes a proxy only from the HTTPS_PROXY environment of its launch; neither settings.json nor models.json has a proxy key";
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
    settings: &[SettingsFile::user(
        ".pi/agent/models.json",
        SettingsFormat::Json,
    )],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Adapted {
            edits: &[edit(
                &["providers", "anthropic", "baseUrl"],
                ValueTemplate::GatewayBaseUrl,
            )],
            how: "set as the baseUrl of Pi's built-in anthropic provider in models.json, which keeps its models: Anthropic models go to the gateway, models of other providers do not",
        },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Unsupported { reason: NO_APPROVAL },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(REPO),
        ruled_out(C::ManagedSettings, NO_MANAGED, DOC),
        ruled_out(C::ManagedLaunch, "devint builds no launch command for Pi", DOC),
        seen(C::ModelPathInterception, MODELS_DOC),
        seen(C::ModelGatewayBaseUrl, MODELS_DOC),
        ruled_out(C::HttpProxy, NO_PROXY, DOC),
        ruled_out(C::Hooks, NO_HOOKS, DOC),
        ruled_out(C::McpDiscovery, NO_MCP, DOC),
        ruled_out(C::McpGovernance, NO_MCP, DOC),
        ruled_out(C::ToolActionApproval, NO_APPROVAL, DOC),
        ruled_out(C::NativeIdeUi, "Pi is a terminal tool with no extension point devint uses for a status or approval surface", DOC),
        ruled_out(C::HostEnforcement, "Pi takes no proxy from its files, so host controls cannot be wired through them", DOC),
    ],
    warnings: &[ToolWarning::always(
        ScopeSet::USER,
        "Pi reads models.json from PI_CODING_AGENT_DIR instead of ~/.pi/agent when that variable is set in its environment",
    )],
};
