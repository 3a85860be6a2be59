//! Amp (Sourcegraph): `settings.json` with flat `amp.*` keys, JSON with comments, at user
//! (`~/.config/amp`), workspace (`.amp/`) and managed (`/etc/ampcode`) scope.
//!
//! Amp's permission rules (`amp.permissions`) are checked in order, the first match
//! deciding: a project's rules, then the user's, then Amp's built-in ones (which allow
//! read-only commands, `python -c`, `node -e`, web search and MCP tools). A managed file's
//! lists come before both. A `Bash` rule also covers Amp's `shell_command` and
//! `async_shell_command` tools.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://ampcode.com/manual";
const PERMISSIONS_DOC: &str = "https://ampcode.com/manual#permissions";

const NO_GATEWAY: &str = "Amp sends model requests through the Amp service (amp.url names that service, whose API a model gateway does not speak); it has no model endpoint to set";
const NO_HOOKS: &str = "Amp runs a program before a tool call only as a permission rule's delegate, whose exit code replaces Amp's own decision (0 allows without asking) and which an earlier rule skips; devint installs no such program";
const NO_MCP: &str = "devint does not deny Amp's MCP servers yet: amp.tools.disable acts only when the model calls a tool, which no offline judge can show, and amp.mcpPermissions is not written";

/// The install script's shim and its own binary directory.
static INSTALL_DIRS: &[InstallDir] = &[
    InstallDir::home(".local/bin", DOC),
    InstallDir::home(".amp/bin", DOC),
];

/// The deny rules as `amp.permissions` reject rules. A rule naming a whole tool rejects
/// every call of it; a command or URL pattern is matched against the whole command line or
/// URL of one call (`cd x && curl …` passes a `curl *` rule).
static PERMISSION_RULES: &[RuleWriting] = &[
    RuleWriting::new(
        RuleKind::Shell,
        &[r#"{"tool": "Bash", "action": "reject"}"#],
        &[],
        Strength::Enforced,
    ),
    RuleWriting::new(
        RuleKind::Shell,
        &[],
        &[r#"{"tool": "Bash", "matches": {"cmd": ["{cmd}", "{cmd} *"]}, "action": "reject"}"#],
        Strength::Advisory,
    ),
    RuleWriting::new(
        RuleKind::WebFetch,
        &[r#"{"tool": "read_web_page", "action": "reject"}"#],
        &[],
        Strength::Enforced,
    ),
    RuleWriting::new(
        RuleKind::WebFetch,
        &[],
        &[
            r#"{"tool": "read_web_page", "matches": {"url": ["http://{domain}", "http://{domain}/*", "https://{domain}", "https://{domain}/*"]}, "action": "reject"}"#,
        ],
        Strength::Advisory,
    ),
    RuleWriting::new(
        RuleKind::WebSearch,
        &[r#"{"tool": "web_search", "action": "reject"}"#],
        &[],
        Strength::Enforced,
    ),
];

/// MCP tools disabled outright by `amp.tools.disable` glob (Amp matches it against
/// `mcp__<server>__<tool>` with the server's own name).
static DISABLED_MCP_TOOLS: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::Mcp,
    &["mcp__{server}__*"],
    &["mcp__{server}__{tool}"],
    Strength::Enforced,
)];

/// Amp.
pub static AMP: ToolDescriptor = ToolDescriptor {
    id: "amp",
    display_name: "Amp",
    detection: Detection::binary(&["amp"], ">=0.0.1")
        .installed_in(&[INSTALL_DIRS, install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".config/amp"),
    settings: &[
        SettingsFile::user(".config/amp/settings.json", SettingsFormat::Jsonc),
        SettingsFile::project(".amp/settings.json", SettingsFormat::Jsonc),
        SettingsFile::managed("/etc/ampcode/managed-settings.json", SettingsFormat::Jsonc),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Native {
            edits: &[edit(&["amp.proxy"], ValueTemplate::ProxyUrl)],
        },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(
                    &["amp.permissions"],
                    ValueTemplate::DenyRules {
                        rules: PERMISSION_RULES,
                        shape: RuleShape::ListObject,
                    },
                ),
                // Listed after the deny rules, so that a denied call meets its reject rule
                // before the catch-all.
                edit(
                    &["amp.permissions"],
                    ValueTemplate::ApprovalEntries {
                        entries: &[r#"{"tool": "*", "action": "ask"}"#],
                        shape: RuleShape::ListObject,
                    },
                ),
                edit(
                    &["amp.tools.disable"],
                    ValueTemplate::DenyRules {
                        rules: DISABLED_MCP_TOOLS,
                        shape: RuleShape::ListItem,
                    },
                ),
                // With dangerouslyAllowAll Amp allows every call and checks no rule.
                edit(
                    &["amp.dangerouslyAllowAll"],
                    ValueTemplate::WhenDenying(Literal::Bool(false)),
                ),
                edit(
                    &["amp.dangerouslyAllowAll"],
                    ValueTemplate::WhenApprovalRequired(Literal::Bool(false)),
                ),
            ],
        },
        managed_settings: MechanismSupport::Native { edits: &[] },
    },
    capabilities: [
        discovery(DOC),
        supported(C::ManagedSettings, DOC),
        ruled_out(
            C::ManagedLaunch,
            "devint integrates Amp through settings.json and builds no launch command",
            DOC,
        ),
        ruled_out(C::ModelPathInterception, NO_GATEWAY, DOC),
        ruled_out(C::ModelGatewayBaseUrl, NO_GATEWAY, DOC),
        seen(C::HttpProxy, DOC),
        ruled_out(C::Hooks, NO_HOOKS, PERMISSIONS_DOC),
        supported(C::McpDiscovery, DOC),
        ruled_out(C::McpGovernance, NO_MCP, DOC),
        seen(C::ToolActionApproval, PERMISSIONS_DOC),
        ruled_out(
            C::NativeIdeUi,
            "Amp offers no extension point for a third-party status or approval surface",
            DOC,
        ),
        supported(C::HostEnforcement, DOC),
    ],
    warnings: &[
        ToolWarning::when_denying(ScopeSet::USER_PROJECT, "Amp applies the first permission rule that matches, a project's .amp/settings.json before the user's file: an allow rule listed before devint's (the user's own, or a project's) wins over it"),
        ToolWarning::when_denying(ScopeSet::ALL, "Amp matches a command rule against the whole command line and has no rule for reading or writing files: a denied command run inside another one (cd x && curl …, a script) passes, and read and write rules are not written"),
    ],
};
