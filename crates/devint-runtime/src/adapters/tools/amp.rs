//! Amp (Sourcegraph): `~/.config/amp/settings.json` with flat `amp.*` keys.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://ampcode.com/manual";

const NO_GATEWAY: &str =
    "Amp sends model requests through the Amp service and has no custom model endpoint";
const NO_PROXY: &str = "Amp takes a proxy from the HTTPS_PROXY environment of its launch, not from a settings key devint can vouch for";
const NO_HOOKS: &str = "Amp documents no command hooks devint can vouch for";
const NO_MCP: &str = "Amp has no MCP server deny list";
const NO_MANAGED: &str =
    "Amp's workspace policies come from the Amp service, not a local managed file";

/// The install script's shim and its own binary directory.
static INSTALL_DIRS: &[InstallDir] = &[
    InstallDir::home(".local/bin", DOC),
    InstallDir::home(".amp/bin", DOC),
];

/// Tools disabled outright, by Amp's own tool names.
static DISABLED_TOOLS: &[RuleWriting] = &[
    RuleWriting::new(RuleKind::Shell, &["shell_command"], &[], Strength::Enforced),
    RuleWriting::new(
        RuleKind::WebFetch,
        &["read_web_page"],
        &[],
        Strength::Advisory,
    ),
];

/// Amp.
pub static AMP: ToolDescriptor = ToolDescriptor {
    id: "amp",
    display_name: "Amp",
    detection: Detection::binary(&["amp"], ">=0.0.1")
        .installed_in(&[INSTALL_DIRS, install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".config/amp"),
    settings: &[SettingsFile::user(
        ".config/amp/settings.json",
        SettingsFormat::Json,
    )],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(
                    &["amp.tools.disable"],
                    ValueTemplate::DenyRules {
                        rules: DISABLED_TOOLS,
                        shape: RuleShape::ListItem,
                    },
                ),
                edit(
                    &["amp.dangerouslyAllowAll"],
                    ValueTemplate::WhenApprovalRequired(Literal::Bool(false)),
                ),
            ],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, DOC),
        unsupported(
            C::ManagedLaunch,
            "devint integrates Amp through settings.json and builds no launch command",
            DOC,
        ),
        unsupported(C::ModelPathInterception, NO_GATEWAY, DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, DOC),
        unsupported(C::HttpProxy, NO_PROXY, DOC),
        unsupported(C::Hooks, NO_HOOKS, DOC),
        supported(C::McpDiscovery, DOC),
        unsupported(C::McpGovernance, NO_MCP, DOC),
        supported(C::ToolActionApproval, DOC),
        unsupported(
            C::NativeIdeUi,
            "Amp offers no extension point for a third-party status or approval surface",
            DOC,
        ),
        unsupported(
            C::HostEnforcement,
            "Amp's model traffic goes to the Amp service; devint sets no proxy for it",
            DOC,
        ),
    ],
    warnings: &[],
};
