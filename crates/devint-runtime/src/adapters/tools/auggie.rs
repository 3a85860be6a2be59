//! Auggie (Augment Code's CLI, npm `@augmentcode/auggie`): `~/.augment/settings.json` at user
//! scope.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const PERMISSIONS_DOC: &str = "https://docs.augmentcode.com/cli/v0/permissions";
const HOOKS_DOC: &str = "https://docs.augmentcode.com/cli/v0/hooks";
const SETTINGS_DOC: &str = "https://docs.augmentcode.com/cli/settings";
const PACKAGE_DOC: &str = "https://www.npmjs.com/package/@augmentcode/auggie";

const NO_GATEWAY: &str = "Auggie sends model traffic to the Augment service of the account it is logged in to; it has no custom model endpoint";
const NO_PROXY: &str = "Auggie takes a proxy from the HTTPS_PROXY environment of its launch; settings.json has no proxy key";
const NO_MCP: &str = "Auggie has no MCP deny list; a server is disabled only inside its own mcpServers entry, which devint does not own";
const NO_MANAGED: &str = "Auggie reads /etc/augment/settings.json first, but devint does not write it yet: the real-tool conformance job cannot judge a file under /etc";

/// Tools taken away whole, by Auggie's own names, as `removedTools` entries (a removed tool is
/// never offered). An MCP tool is named `<tool>_<server>`; a server as a whole has no name to
/// remove by.
static REMOVED_TOOLS: &[RuleWriting] = &[
    RuleWriting::new(
        RuleKind::Shell,
        &["launch-process"],
        &[],
        Strength::Enforced,
    ),
    RuleWriting::new(RuleKind::WebFetch, &["web-fetch"], &[], Strength::Enforced),
    RuleWriting::new(
        RuleKind::FileRead,
        &[
            "view",
            "view-range-untruncated",
            "search-untruncated",
            "grep-search",
        ],
        &[],
        Strength::Advisory,
    ),
    RuleWriting::new(
        RuleKind::FileWrite,
        &[
            "save-file",
            "str-replace-editor",
            "apply_patch",
            "remove-files",
        ],
        &[],
        Strength::Advisory,
    ),
    RuleWriting::new(RuleKind::Mcp, &[], &["{tool}_{server}"], Strength::Enforced),
];

/// A command prefix, as a `toolPermissions` rule on the shell tool: a JavaScript regular
/// expression matched against the whole command line, here the prefix where a command
/// starts (the line's start, or after `;`, `&`, `|`, `(` or a newline). `env curl`,
/// `sh -c 'curl …'` or a full path pass it.
static SHELL_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::Shell,
    &[],
    &[
        r#"{"toolName": "launch-process", "shellInputRegex": "(^|[;&|(\\n])\\s*{cmd_regex}(\\s|$)", "permission": {"type": "deny"}}"#,
    ],
    Strength::Advisory,
)];

/// Auggie.
pub static AUGGIE: ToolDescriptor = ToolDescriptor {
    id: "auggie",
    display_name: "Auggie",
    detection: Detection::binary(&["auggie"], ">=0.36.0")
        .installed_in(&[install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".augment"),
    settings: &[SettingsFile::user(".augment/settings.json", SettingsFormat::Jsonc)],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        // Matchers are regular expressions: ".*" is every tool (Claude Code's "*" is not one).
        hooks: MechanismSupport::Native {
            edits: &[edit(&["hooks", "PreToolUse"], ValueTemplate::HookEntries(&[r#"{"matcher": ".*", "hooks": [{"type": "command", "command": "{command}"}]}"#]))],
        },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(&["removedTools"], ValueTemplate::DenyRules { rules: REMOVED_TOOLS, shape: RuleShape::ListItem }),
                edit(&["toolPermissions"], ValueTemplate::DenyRules { rules: SHELL_RULES, shape: RuleShape::ListObject }),
            ],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(PACKAGE_DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, HOOKS_DOC),
        unsupported(C::ManagedLaunch, "devint integrates Auggie through settings.json and builds no launch command", SETTINGS_DOC),
        unsupported(C::ModelPathInterception, NO_GATEWAY, SETTINGS_DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, SETTINGS_DOC),
        unsupported(C::HttpProxy, NO_PROXY, SETTINGS_DOC),
        seen(C::Hooks, HOOKS_DOC),
        seen(C::McpDiscovery, SETTINGS_DOC),
        unsupported(C::McpGovernance, NO_MCP, SETTINGS_DOC),
        seen(C::ToolActionApproval, PERMISSIONS_DOC),
        unsupported(C::NativeIdeUi, "Auggie is a terminal tool with no extension point for a third-party status or approval surface", SETTINGS_DOC),
        unsupported(C::HostEnforcement, "Auggie's model traffic goes to the Augment service and its settings take no proxy", SETTINGS_DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::USER, "Auggie runs hooks only when the Augment account it is logged in to has hooks turned on (a setting of the account's organisation, not of this file)"),
        ToolWarning::always(ScopeSet::USER, "Auggie ignores a settings.json it cannot parse (its hooks aside) and drops a key whose value it cannot read, without a word until an interactive session starts"),
        ToolWarning::when_denying(ScopeSet::USER, "Auggie applies the first toolPermissions rule of a settings file that matches: a rule of the user's for the same tool before devint's wins over it"),
    ],
};
