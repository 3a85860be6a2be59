//! Factory Droid: `.factory/settings.json` (JSON with comments) at user, project and
//! managed scope.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const SETTINGS_DOC: &str = "https://docs.factory.ai/cli/configuration/settings";
const HOOKS_DOC: &str = "https://docs.factory.ai/reference/hooks-reference";
const ORG_DOC: &str = "https://docs.factory.ai/enterprise/hierarchical-settings-and-org-control";
const MCP_DOC: &str = "https://docs.factory.ai/cli/configuration/mcp";
const AUTONOMY_DOC: &str = "https://docs.factory.ai/cli/user-guides/auto-run";

const NO_GATEWAY: &str = "Droid reaches a custom endpoint only through entries of its customModels list, each naming its own model and key; devint owns no such entry, and Droid's own models go through the Factory service";
const NO_PROXY: &str = "Droid takes a proxy only from the HTTPS_PROXY environment of its launch (the env block of user and project settings is not applied)";
const NO_MCP: &str = "Droid's MCP servers live in .factory/mcp.json, disabled per server entry (the user's); there is no deny list in settings.json";

const INSTALL_DOC: &str = "https://docs.factory.ai/cli/getting-started/quickstart";

/// The install script's directory.
static INSTALL_DIRS: &[InstallDir] = &[InstallDir::home(".local/bin", INSTALL_DOC)];

/// Shell command prefixes, as `commandBlocklist` entries: Droid refuses a blocked command
/// outright (at user and project scope too), matching each sub-command with wrappers and
/// paths resolved (`ls && curl`, `sudo curl`, `/usr/bin/curl` are blocked); a script that
/// fetches by other means passes. The list takes no wildcard, so "every shell command"
/// cannot be written.
static COMMAND_BLOCKLIST: &[RuleWriting] = &[RuleWriting::new(
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
        .installed_in(&[INSTALL_DIRS, install::NPM_GLOBAL])
        .configured_in(".factory"),
    settings: &[
        SettingsFile::user(".factory/settings.json", SettingsFormat::Jsonc),
        SettingsFile::project(".factory/settings.json", SettingsFormat::Jsonc),
        SettingsFile::managed("/etc/factory/settings.json", SettingsFormat::Json),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Native {
            edits: &[edit(&["hooks", "PreToolUse"], ValueTemplate::HookEntries(HOOK_MATCHER_GROUP))],
        },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(&["commandBlocklist"], ValueTemplate::DenyRules { rules: COMMAND_BLOCKLIST, shape: RuleShape::ListItem }),
                // The highest autonomy a session may take: "off" keeps every action that
                // changes something behind approval, whatever --auto asks.
                edit(&["maxAutonomyLevel"], ValueTemplate::WhenApprovalRequired(Literal::Str("off"))),
            ],
        },
        managed_settings: MechanismSupport::Native { edits: &[] },
    },
    capabilities: [
        discovery(SETTINGS_DOC),
        supported(C::ManagedSettings, ORG_DOC),
        ruled_out(C::ManagedLaunch, "devint integrates Droid through settings.json and builds no launch command", SETTINGS_DOC),
        ruled_out(C::ModelPathInterception, NO_GATEWAY, SETTINGS_DOC),
        ruled_out(C::ModelGatewayBaseUrl, NO_GATEWAY, SETTINGS_DOC),
        ruled_out(C::HttpProxy, NO_PROXY, SETTINGS_DOC),
        seen(C::Hooks, HOOKS_DOC),
        supported(C::McpDiscovery, MCP_DOC),
        ruled_out(C::McpGovernance, NO_MCP, MCP_DOC),
        seen(C::ToolActionApproval, AUTONOMY_DOC),
        ruled_out(C::NativeIdeUi, "Droid is a terminal tool with no extension point for a third-party status or approval surface", SETTINGS_DOC),
        ruled_out(C::HostEnforcement, "Droid takes no proxy from its settings, so host controls cannot be wired through them", SETTINGS_DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::USER_PROJECT, "Droid's hooks.json beside settings.json (.factory/hooks.json or .factory/hooks/hooks.json) replaces settings.json's list for each event it names, PreToolUse included"),
        ToolWarning::when_denying(ScopeSet::ALL, "Droid's settings deny shell commands only (commandBlocklist, one command prefix per entry); web fetches, web searches, file access and MCP tools are limited only by --remove-tools on its command line or by organisation policy"),
    ],
};
