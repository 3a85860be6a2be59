//! Kilo Code CLI (`kilo`, npm `@kilocode/cli`, an OpenCode fork with files of its own):
//! `~/.config/kilo/kilo.jsonc` at user scope.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const CLI_DOC: &str = "https://kilo.ai/docs/cli";
const CONFIG_DOC: &str = "https://opencode.ai/docs/config/";
const PROVIDERS_DOC: &str = "https://opencode.ai/docs/providers/";
const PERMISSIONS_DOC: &str = "https://opencode.ai/docs/permissions/";
const MCP_DOC: &str = "https://opencode.ai/docs/mcp-servers/";
const PLUGINS_DOC: &str = "https://opencode.ai/docs/plugins/";
const PACKAGE_DOC: &str = "https://www.npmjs.com/package/@kilocode/cli";

const NO_PROXY: &str = "Kilo Code CLI takes a proxy from the HTTPS_PROXY environment of its launch; kilo.jsonc has no proxy key";
const NO_HOOKS: &str =
    "Kilo Code CLI hooks are JavaScript plugins, not settings keys; devint writes no plugin code";
const NO_MANAGED: &str = "Kilo Code CLI reads /etc/kilo/kilo.jsonc last, but devint does not write it yet: the real-tool conformance job cannot judge a file under /etc";

/// Shell rules, as `permission.bash` patterns on each sub-command's text; the last matching
/// rule wins, so a rule after the user's own ones holds. `curl *` also matches a bare `curl`.
static BASH_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::Shell,
    &["*"],
    &["{cmd} *"],
    Strength::Advisory,
)];

/// Web fetches: `permission.webfetch` takes an action only (no domain); a denied tool is
/// not offered.
static WEBFETCH_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::WebFetch,
    &["on"],
    &[],
    Strength::Enforced,
)];

/// Web searches: `permission.websearch`.
static WEBSEARCH_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::WebSearch,
    &["on"],
    &[],
    Strength::Enforced,
)];

/// File writes: `permission.edit` covers edit, write and patch.
static EDIT_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::FileWrite,
    &["*"],
    &[],
    Strength::Advisory,
)];

/// File reads: `permission.read`.
static READ_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::FileRead,
    &["*"],
    &[],
    Strength::Advisory,
)];

/// MCP tools are named `<server>_<tool>`; a permission key is a wildcard on tool names, and
/// a tool whose every call is denied is not offered to the model.
static MCP_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::Mcp,
    &["{server}_*"],
    &["{server}_{tool}"],
    Strength::Enforced,
)];

/// Kilo Code CLI.
pub static KILO_CODE_CLI: ToolDescriptor = ToolDescriptor {
    id: "kilo-code-cli",
    display_name: "Kilo Code CLI",
    detection: Detection::binary(&["kilo", "kilocode"], ">=7.0.0")
        .installed_in(&[install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".config/kilo"),
    // The global files load config.json, kilo.json, kilo.jsonc, then the legacy
    // opencode.json and opencode.jsonc, a later one winning; Kilo creates kilo.jsonc itself.
    settings: &[SettingsFile::user(".config/kilo/kilo.jsonc", SettingsFormat::Jsonc)],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Adapted {
            edits: &[edit(&["provider", "anthropic", "options", "baseURL"], ValueTemplate::GatewayBaseUrl)],
            how: "set as the baseURL of the anthropic provider; models of other providers (Kilo's own gateway included) do not pass through the gateway",
        },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Native {
            edits: &[edit(&["permission"], ValueTemplate::McpDeny { entries: &["{server}_*"], shape: RuleShape::ObjectKey(Literal::Str("deny")) })],
        },
        // The approval defaults come first: a deny rule for the same key replaces them where
        // they stand, and the other deny patterns follow them (the last match wins).
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(&["permission", "bash", "*"], ValueTemplate::WhenApprovalRequired(Literal::Str("ask"))),
                edit(&["permission", "edit", "*"], ValueTemplate::WhenApprovalRequired(Literal::Str("ask"))),
                edit(&["permission", "webfetch"], ValueTemplate::WhenApprovalRequired(Literal::Str("ask"))),
                edit(&["permission", "bash"], ValueTemplate::DenyRules { rules: BASH_RULES, shape: RuleShape::ObjectKey(Literal::Str("deny")) }),
                edit(&["permission", "edit"], ValueTemplate::DenyRules { rules: EDIT_RULES, shape: RuleShape::ObjectKey(Literal::Str("deny")) }),
                edit(&["permission", "read"], ValueTemplate::DenyRules { rules: READ_RULES, shape: RuleShape::ObjectKey(Literal::Str("deny")) }),
                edit(&["permission", "webfetch"], ValueTemplate::DenyRules { rules: WEBFETCH_RULES, shape: RuleShape::Flag(Literal::Str("deny")) }),
                edit(&["permission", "websearch"], ValueTemplate::DenyRules { rules: WEBSEARCH_RULES, shape: RuleShape::Flag(Literal::Str("deny")) }),
                edit(&["permission"], ValueTemplate::DenyRules { rules: MCP_RULES, shape: RuleShape::ObjectKey(Literal::Str("deny")) }),
            ],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(PACKAGE_DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, CONFIG_DOC),
        unsupported(C::ManagedLaunch, "devint integrates Kilo Code CLI through kilo.jsonc and builds no launch command", CLI_DOC),
        seen(C::ModelPathInterception, PROVIDERS_DOC),
        seen(C::ModelGatewayBaseUrl, PROVIDERS_DOC),
        unsupported(C::HttpProxy, NO_PROXY, CONFIG_DOC),
        unsupported(C::Hooks, NO_HOOKS, PLUGINS_DOC),
        seen(C::McpDiscovery, MCP_DOC),
        seen(C::McpGovernance, PERMISSIONS_DOC),
        seen(C::ToolActionApproval, PERMISSIONS_DOC),
        unsupported(C::NativeIdeUi, "Kilo Code CLI is a terminal tool with no extension point for a third-party status or approval surface", CLI_DOC),
        unsupported(C::HostEnforcement, "Kilo Code CLI takes no proxy from its settings, so host controls cannot be wired through them", CONFIG_DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::USER, "Kilo Code CLI takes the last permission rule that matches, in file order: a project kilo.jsonc, a legacy ~/.config/kilo/opencode.json(c), or a rule the user adds after devint's, can allow what devint denies"),
        ToolWarning::always(ScopeSet::USER, "a permission.bash or permission.edit that is a single string (Kilo's own first-run migration writes \"bash\": \"allow\") must become an object before devint can add rules to it"),
        ToolWarning::always(ScopeSet::USER, "Kilo Code CLI's first start sets permission.bash to allow when no global file sets it; with devint's rules there it skips that for good, so after removal bash keeps Kilo's default, ask"),
    ],
};
