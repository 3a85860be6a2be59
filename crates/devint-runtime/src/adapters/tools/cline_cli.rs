//! Cline CLI (`cline`, npm `cline`): `~/.cline/data/settings/global-settings.json` at user
//! scope. The Cline VS Code extension is a different tool (`cline`).
//!
//! Cline keeps each concern in a file of its own under `~/.cline/data/settings/`: the model
//! endpoint in `providers.json`, MCP servers in `cline_mcp_settings.json`, tool settings in
//! `global-settings.json`; hooks are executable files in `~/.cline/hooks/`. devint edits one
//! settings file per scope, the one that governs tool actions.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const CONFIG_DOC: &str = "https://docs.cline.bot/getting-started/config";
const CLI_CONFIG_DOC: &str = "https://docs.cline.bot/cline-cli/configuration";
const TOOLS_DOC: &str = "https://docs.cline.bot/tools-reference/all-cline-tools";
const AUTO_APPROVE_DOC: &str = "https://docs.cline.bot/features/auto-approve";
const PACKAGE_DOC: &str = "https://www.npmjs.com/package/cline";

const NO_GATEWAY: &str = "Cline CLI keeps its model endpoint in ~/.cline/data/settings/providers.json, a file of its own beside the one devint edits (and it replaces a providers.json it cannot read)";
const NO_PROXY: &str =
    "Cline CLI has no proxy settings key; use the HTTPS_PROXY environment of its launch";
const NO_HOOKS: &str = "Cline CLI hooks are executable files in ~/.cline/hooks/, not settings keys; devint writes no hook files";
const NO_MCP: &str = "Cline CLI keeps MCP servers in ~/.cline/data/settings/cline_mcp_settings.json, a file of its own, with no deny list";
const NO_MANAGED: &str =
    "Cline CLI documents no administrator-managed settings file devint can write";

/// Tools taken away whole, as `disabledTools` entries (a disabled tool is never offered).
/// Cline has no command, path or domain rules.
static DISABLED_TOOLS: &[RuleWriting] = &[
    RuleWriting::new(RuleKind::Shell, &["run_commands"], &[], Strength::Enforced),
    RuleWriting::new(
        RuleKind::WebFetch,
        &["fetch_web_content"],
        &[],
        Strength::Enforced,
    ),
    RuleWriting::new(
        RuleKind::WebSearch,
        &["web_search"],
        &[],
        Strength::Enforced,
    ),
    RuleWriting::new(
        RuleKind::FileRead,
        &["read_files", "search_codebase"],
        &[],
        Strength::Advisory,
    ),
    RuleWriting::new(
        RuleKind::FileWrite,
        &["editor", "apply_patch"],
        &[],
        Strength::Advisory,
    ),
];

/// Cline CLI.
pub static CLINE_CLI: ToolDescriptor = ToolDescriptor {
    id: "cline-cli",
    display_name: "Cline CLI",
    detection: Detection::binary(&["cline"], ">=3.0.0")
        .installed_in(&[install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".cline"),
    settings: &[SettingsFile::user(
        ".cline/data/settings/global-settings.json",
        SettingsFormat::Json,
    )],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        // A prompt run (`cline "<prompt>"`) auto-approves every tool unless toolAutoApprove is
        // false (or --auto-approve false is passed).
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(&["disabledTools"], ValueTemplate::DenyRules { rules: DISABLED_TOOLS, shape: RuleShape::ListItem }),
                edit(&["toolAutoApprove"], ValueTemplate::WhenApprovalRequired(Literal::Bool(false))),
            ],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(PACKAGE_DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, CONFIG_DOC),
        unsupported(C::ManagedLaunch, "devint integrates Cline CLI through global-settings.json and builds no launch command", CLI_CONFIG_DOC),
        unsupported(C::ModelPathInterception, NO_GATEWAY, CONFIG_DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, CONFIG_DOC),
        unsupported(C::HttpProxy, NO_PROXY, CONFIG_DOC),
        unsupported(C::Hooks, NO_HOOKS, CONFIG_DOC),
        supported(C::McpDiscovery, TOOLS_DOC),
        unsupported(C::McpGovernance, NO_MCP, TOOLS_DOC),
        seen(C::ToolActionApproval, AUTO_APPROVE_DOC),
        unsupported(C::NativeIdeUi, "Cline CLI is a terminal tool with no extension point for a third-party status or approval surface", CLI_CONFIG_DOC),
        unsupported(C::HostEnforcement, "Cline CLI takes no proxy from its settings, so host controls cannot be wired through them", CONFIG_DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::USER, "Cline CLI reads a value of the wrong type in global-settings.json as its default, and a file it cannot parse as no settings, without a word"),
        ToolWarning::when_denying(ScopeSet::USER, "Cline CLI has no command, path or domain rules, only whole tools to disable"),
    ],
};
