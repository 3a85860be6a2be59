//! Factory Droid: `.factory/settings.json` at user, project and managed scope.

use crate::adapters::descriptor::*;
use crate::adapters::vocabulary::Capability as C;

const SETTINGS_DOC: &str = "https://docs.factory.ai/cli/configuration/settings";
const HOOKS_DOC: &str = "https://docs.factory.ai/reference/hooks-reference";
const ORG_DOC: &str = "https://docs.factory.ai/enterprise/hierarchical-settings-and-org-control";
const MCP_DOC: &str = "https://docs.factory.ai/cli/configuration/mcp";

const NO_GATEWAY: &str = "Droid's custom model endpoints are list entries (customModels) in its config, not a key devint can own";
const NO_PROXY: &str = "Droid takes a proxy from the HTTPS_PROXY environment of its launch; settings.json has no proxy key devint can vouch for";
const NO_MCP: &str = "Droid's MCP servers live in .factory/mcp.json, disabled per server entry; there is no deny list in settings.json";

const INSTALL_DOC: &str = "https://docs.factory.ai/cli/getting-started/quickstart";

/// The install script's directory.
static INSTALL_DIRS: &[InstallDir] = &[InstallDir::home(".local/bin", INSTALL_DOC)];

/// Shell command prefixes, as `commandDenylist` entries.
static COMMAND_DENYLIST: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::Shell,
    &[],
    &["{cmd}"],
    Strength::Advisory,
)];

/// Factory Droid.
pub static FACTORY_DROID: ToolDescriptor = ToolDescriptor {
    id: "factory-droid",
    display_name: "Factory Droid",
    detection: Detection::binary(&["droid"], ">=0.18.0")
        .installed_in(&[INSTALL_DIRS])
        .configured_in(".factory"),
    settings: &[
        SettingsFile::user(".factory/settings.json", SettingsFormat::Json),
        SettingsFile::project(".factory/settings.json", SettingsFormat::Json),
        SettingsFile::managed("/etc/factory/settings.json", SettingsFormat::Json),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Native {
            edits: &[edit(&["hooks", "PreToolUse"], ValueTemplate::HookEntries(HOOK_MATCHER_GROUP))],
        },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Adapted {
            edits: &[edit(&["commandDenylist"], ValueTemplate::DenyRules { rules: COMMAND_DENYLIST, shape: RuleShape::ListItem })],
            how: "deny patterns go to commandDenylist: in user and project settings Droid then always asks before those commands; only org-managed settings deny them outright",
        },
        managed_settings: MechanismSupport::Native { edits: &[] },
    },
    capabilities: [
        discovery(SETTINGS_DOC),
        supported(C::ManagedSettings, ORG_DOC),
        unsupported(C::ManagedLaunch, "devint integrates Droid through settings.json and builds no launch command", SETTINGS_DOC),
        unsupported(C::ModelPathInterception, NO_GATEWAY, SETTINGS_DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, SETTINGS_DOC),
        unsupported(C::HttpProxy, NO_PROXY, SETTINGS_DOC),
        supported(C::Hooks, HOOKS_DOC),
        supported(C::McpDiscovery, MCP_DOC),
        unsupported(C::McpGovernance, NO_MCP, MCP_DOC),
        supported(C::ToolActionApproval, SETTINGS_DOC),
        unsupported(C::NativeIdeUi, "Droid is a terminal tool with no extension point for a third-party status or approval surface", SETTINGS_DOC),
        unsupported(C::HostEnforcement, "Droid takes no proxy from its settings, so host controls cannot be wired through them", SETTINGS_DOC),
    ],
    warnings: &[ToolWarning::always(ScopeSet::ALL, "Droid reads the hooks key of settings.json only when no hooks.json sits beside it; an existing hooks.json takes precedence")],
};
