//! Continue: the `cn` CLI's tool permissions, `~/.continue/permissions.yaml`.
//!
//! Continue's `config.yaml` holds nothing devint can own: the gateway and a proxy are set
//! on each entry of its `models` list (`apiBase`, `requestOptions.proxy`), and those entries
//! are the user's. `permissions.yaml` is the one file `cn` reads its tool policies from
//! (`allow`, `ask`, `exclude`: tool names, or `Bash(<command glob>)`, `Fetch(<url glob>)`),
//! each list checked in the order exclude, ask, allow, the first match winning.

use super::vscode;
use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://docs.continue.dev/reference";
const CLI_DOC: &str = "https://docs.continue.dev/cli/tool-permissions";
const MCP_DOC: &str = "https://docs.continue.dev/customize/deep-dives/mcp";

const NO_GATEWAY: &str = "Continue sets the model endpoint (apiBase) on each entry of the models list in config.yaml, and those entries are the user's; devint owns no model entry";
const NO_PROXY: &str = "Continue sets a proxy (requestOptions.proxy) on each entry of the models list in config.yaml, and those entries are the user's; devint owns no model entry";
const NO_HOOKS: &str =
    "cn 1.5 reads Claude Code-style hooks from settings.json but never runs them";
const NO_MCP: &str = "Continue's mcpServers list has no deny list or disabled flag, and permissions.yaml names MCP tools by tool name, not by server";
const NO_MANAGED: &str =
    "Continue's organisation policies come from Continue Hub, not a local managed file";

/// The tool-neutral deny rules as `exclude` entries. A whole tool excluded is never offered
/// to the model; a `Bash(…)` or `Fetch(…)` pattern is matched against the whole command line
/// or URL of one call (`cd x && curl …` passes `Bash(curl *)`).
static EXCLUDE_RULES: &[RuleWriting] = &[
    RuleWriting::new(RuleKind::Shell, &["Bash"], &[], Strength::Enforced),
    RuleWriting::new(
        RuleKind::Shell,
        &[],
        &["Bash({cmd})", "Bash({cmd} *)"],
        Strength::Advisory,
    ),
    RuleWriting::new(RuleKind::WebFetch, &["Fetch"], &[], Strength::Enforced),
    RuleWriting::new(
        RuleKind::WebFetch,
        &[],
        &[
            "Fetch(http://{domain})",
            "Fetch(http://{domain}/*)",
            "Fetch(https://{domain})",
            "Fetch(https://{domain}/*)",
        ],
        Strength::Advisory,
    ),
    RuleWriting::new(RuleKind::FileRead, &["Read"], &[], Strength::Enforced),
    RuleWriting::new(
        RuleKind::FileWrite,
        &["Write", "Edit", "MultiEdit"],
        &[],
        Strength::Enforced,
    ),
];

/// Continue.
pub static CONTINUE: ToolDescriptor = ToolDescriptor {
    id: "continue",
    display_name: "Continue",
    detection: Detection {
        binaries: &["cn"],
        version_args: &["--version"],
        supported: ">=1.0.0",
        extensions: &[vscode::extension("continue.continue-")],
        install_dirs: &[install::NPM_GLOBAL],
        config_dir: Some(".continue"),
    },
    settings: &[SettingsFile::user(
        ".continue/permissions.yaml",
        SettingsFormat::Yaml,
    )],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(
                    &["exclude"],
                    ValueTemplate::DenyRules {
                        rules: EXCLUDE_RULES,
                        shape: RuleShape::ListItem,
                    },
                ),
                edit(
                    &["ask"],
                    ValueTemplate::ApprovalEntries {
                        entries: &["*"],
                        shape: RuleShape::ListItem,
                    },
                ),
            ],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(DOC),
        ruled_out(C::ManagedSettings, NO_MANAGED, DOC),
        ruled_out(
            C::ManagedLaunch,
            "devint builds no launch command for Continue",
            DOC,
        ),
        ruled_out(C::ModelPathInterception, NO_GATEWAY, DOC),
        ruled_out(C::ModelGatewayBaseUrl, NO_GATEWAY, DOC),
        ruled_out(C::HttpProxy, NO_PROXY, DOC),
        ruled_out(C::Hooks, NO_HOOKS, DOC),
        supported(C::McpDiscovery, MCP_DOC),
        ruled_out(C::McpGovernance, NO_MCP, MCP_DOC),
        seen(C::ToolActionApproval, CLI_DOC),
        supported(C::NativeIdeUi, DOC),
        ruled_out(
            C::HostEnforcement,
            "Continue takes no proxy devint can set, so host controls cannot be wired through it",
            DOC,
        ),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::USER, "Only the cn CLI reads ~/.continue/permissions.yaml; the Continue IDE extensions keep their tool policies in their own settings"),
        ToolWarning::always(ScopeSet::USER, "cn --auto, --readonly and an --agent file replace the policies of permissions.yaml, and a .env file in the directory cn runs in can move its whole configuration elsewhere (CONTINUE_GLOBAL_DIR)"),
        ToolWarning::always(ScopeSet::USER, "cn ignores a permissions.yaml it cannot parse, and then allows every tool in a run without a terminal (cn -p)"),
    ],
};
