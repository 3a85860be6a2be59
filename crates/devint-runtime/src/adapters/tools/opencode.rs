//! OpenCode (sst): opencode.jsonc at user scope (the file OpenCode creates, and the global file
//! it loads last), opencode.json at project scope; both JSONC.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const CONFIG_DOC: &str = "https://opencode.ai/docs/config/";
const PROVIDERS_DOC: &str = "https://opencode.ai/docs/providers/";
const PERMISSIONS_DOC: &str = "https://opencode.ai/docs/permissions/";
const MCP_DOC: &str = "https://opencode.ai/docs/mcp-servers/";
const PLUGINS_DOC: &str = "https://opencode.ai/docs/plugins/";

const NO_PROXY: &str = "OpenCode takes a proxy from the HTTPS_PROXY environment of its launch; opencode.json has no proxy key";
const NO_HOOKS: &str =
    "OpenCode hooks are JavaScript plugins, not settings keys; devint writes no plugin code";
/// How a denied MCP server is held: by its tools' names, which OpenCode forms as
/// `<server>_<tool>`.
const MCP_BY_TOOL_NAME: &str = "denies every tool of the server by name (a `<server>_*` permission rule): OpenCode still starts the server but never offers its tools to the model; a server whose name is the denied name followed by an underscore and more is denied too";
const NO_MANAGED: &str = "OpenCode reads /etc/opencode/opencode.json last, but devint does not write it yet: the real-tool conformance job cannot judge a file under /etc";

const INSTALL_DOC: &str = "https://opencode.ai/docs/";

/// The install script's default directory.
static INSTALL_DIRS: &[InstallDir] = &[InstallDir::home(".opencode/bin", INSTALL_DOC)];

/// Shell rules, as `permission.bash` patterns. OpenCode matches each sub-command's text
/// against them and the last matching rule wins, so a rule added after the user's own ones
/// holds; `curl *` also matches a bare `curl`.
static BASH_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::Shell,
    &["*"],
    &["{cmd} *"],
    Strength::Advisory,
)];

/// Web fetches: `permission.webfetch` takes an action only (no domain). Denied, the tool is
/// not offered at all (`opencode debug agent build` lists `"webfetch": false`).
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

/// MCP tools, as top-level `permission` keys matched against the tool's name
/// (`<server>_<tool>`): a denied tool is never offered.
static MCP_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::Mcp,
    &["{server}_*"],
    &["{server}_{tool}"],
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

/// OpenCode.
pub static OPENCODE: ToolDescriptor = ToolDescriptor {
    id: "opencode",
    display_name: "OpenCode",
    detection: Detection::binary(&["opencode"], ">=0.5.0")
        .installed_in(&[INSTALL_DIRS, install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".config/opencode"),
    settings: &[
        SettingsFile::user(".config/opencode/opencode.jsonc", SettingsFormat::Jsonc),
        SettingsFile::project("opencode.json", SettingsFormat::Jsonc),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Adapted {
            edits: &[edit(&["provider", "anthropic", "options", "baseURL"], ValueTemplate::GatewayBaseUrl)],
            how: "set as the baseURL of the anthropic provider; models of other providers do not pass through the gateway",
        },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Adapted {
            edits: &[edit(&["permission"], ValueTemplate::McpDeny { entries: &["{server}_*"], shape: RuleShape::ObjectKey(Literal::Str("deny")) })],
            how: MCP_BY_TOOL_NAME,
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
        discovery(CONFIG_DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, CONFIG_DOC),
        unsupported(C::ManagedLaunch, "devint integrates OpenCode through opencode.json and builds no launch command", CONFIG_DOC),
        seen(C::ModelPathInterception, PROVIDERS_DOC),
        seen(C::ModelGatewayBaseUrl, PROVIDERS_DOC),
        unsupported(C::HttpProxy, NO_PROXY, CONFIG_DOC),
        unsupported(C::Hooks, NO_HOOKS, PLUGINS_DOC),
        seen(C::McpDiscovery, MCP_DOC),
        seen(C::McpGovernance, PERMISSIONS_DOC),
        seen(C::ToolActionApproval, PERMISSIONS_DOC),
        unsupported(C::NativeIdeUi, "OpenCode is a terminal tool with no extension point for a third-party status or approval surface", CONFIG_DOC),
        unsupported(C::HostEnforcement, "OpenCode takes no proxy from its settings, so host controls cannot be wired through them", CONFIG_DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::ALL, "OpenCode applies the last matching permission rule and devint adds its rules after yours: a project opencode.json or a later rule of yours can allow what devint denies, and a required approval (\"*\": \"ask\") overrides your bash and edit rules"),
        ToolWarning::always(ScopeSet::ALL, "a permission, permission.bash or permission.edit that is a single string must become an object before devint can add rules to it"),
    ],
};
