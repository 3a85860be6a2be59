//! Goose (Block): `~/.config/goose/config.yaml`.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://block.github.io/goose/docs/guides/config-files";
const MODES_DOC: &str = "https://block.github.io/goose/docs/guides/goose-permissions";

const NO_PROXY: &str = "Goose takes a proxy from the HTTPS_PROXY environment of its launch; config.yaml has no proxy key";
const NO_HOOKS: &str = "Goose documents no command hooks before tool actions";
const NO_MCP: &str = "Goose has no extension deny list; an extension is disabled only inside its own extensions entry, which devint does not own";
const NO_MANAGED: &str = "Goose documents no administrator-managed settings file";

const INSTALL_DOC: &str = "https://block.github.io/goose/docs/getting-started/installation";

/// `download_cli.sh`'s default `GOOSE_BIN_DIR`.
static INSTALL_DIRS: &[InstallDir] = &[InstallDir::home(".local/bin", INSTALL_DOC)];

/// Goose.
pub static GOOSE: ToolDescriptor = ToolDescriptor {
    id: "goose",
    display_name: "Goose",
    detection: Detection::binary(&["goose"], ">=1.0.0")
        .installed_in(&[INSTALL_DIRS, install::HOMEBREW])
        .configured_in(".config/goose"),
    settings: &[SettingsFile::user(".config/goose/config.yaml", SettingsFormat::Yaml)],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Adapted {
            edits: &[
                edit(&["ANTHROPIC_HOST"], ValueTemplate::GatewayBaseUrl),
                edit(&["OPENAI_HOST"], ValueTemplate::GatewayBaseUrl),
            ],
            how: "set as ANTHROPIC_HOST and OPENAI_HOST; other providers do not pass through the gateway",
        },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[edit(&["GOOSE_MODE"], ValueTemplate::WhenApprovalRequired(Literal::Str("approve")))],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, DOC),
        unsupported(C::ManagedLaunch, "devint integrates Goose through config.yaml and builds no launch command", DOC),
        supported(C::ModelPathInterception, DOC),
        supported(C::ModelGatewayBaseUrl, DOC),
        unsupported(C::HttpProxy, NO_PROXY, DOC),
        unsupported(C::Hooks, NO_HOOKS, DOC),
        supported(C::McpDiscovery, DOC),
        unsupported(C::McpGovernance, NO_MCP, DOC),
        supported(C::ToolActionApproval, MODES_DOC),
        unsupported(C::NativeIdeUi, "Goose offers no extension point for a third-party status or approval surface", DOC),
        unsupported(C::HostEnforcement, "Goose takes no proxy from its settings, so host controls cannot be wired through them", DOC),
    ],
    warnings: &[],
};
