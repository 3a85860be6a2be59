//! Aider: YAML config (`.aider.conf.yml`) in the home directory and the project (git root).

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://aider.chat/docs/config/aider_conf.html";
const OPTIONS_DOC: &str = "https://aider.chat/docs/config/options.html";

const NO_PROXY: &str = "Aider takes a proxy from the HTTPS_PROXY environment of its launch; .aider.conf.yml has no proxy key";
const NO_HOOKS: &str = "Aider has no hooks before edits or commands (lint-cmd and test-cmd run after edits and cannot block)";
const NO_MCP: &str = "Aider does not support MCP";
const NO_MANAGED: &str = "Aider documents no administrator-managed settings file";

const INSTALL_DOC: &str = "https://aider.chat/docs/install.html";

/// Where `aider-install`, uv and pipx put the `aider` command.
static INSTALL_DIRS: &[InstallDir] = &[InstallDir::home(".local/bin", INSTALL_DOC)];

/// Aider.
pub static AIDER: ToolDescriptor = ToolDescriptor {
    id: "aider",
    display_name: "Aider",
    detection: Detection::binary(&["aider"], ">=0.50.0")
        .installed_in(&[INSTALL_DIRS, install::PYTHON_TOOLS, install::HOMEBREW]),
    settings: &[
        SettingsFile::user(".aider.conf.yml", SettingsFormat::Yaml),
        SettingsFile::project(".aider.conf.yml", SettingsFormat::Yaml),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Adapted {
            edits: &[edit(&["openai-api-base"], ValueTemplate::GatewayBaseUrl)],
            how: "set as openai-api-base, which routes OpenAI-compatible models only; other providers do not pass through the gateway",
        },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[edit(&["yes-always"], ValueTemplate::WhenApprovalRequired(Literal::Bool(false)))],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(OPTIONS_DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, DOC),
        unsupported(C::ManagedLaunch, "devint integrates Aider through .aider.conf.yml and builds no launch command", DOC),
        supported(C::ModelPathInterception, OPTIONS_DOC),
        supported(C::ModelGatewayBaseUrl, OPTIONS_DOC),
        unsupported(C::HttpProxy, NO_PROXY, OPTIONS_DOC),
        unsupported(C::Hooks, NO_HOOKS, OPTIONS_DOC),
        unsupported(C::McpDiscovery, NO_MCP, OPTIONS_DOC),
        unsupported(C::McpGovernance, NO_MCP, OPTIONS_DOC),
        supported(C::ToolActionApproval, OPTIONS_DOC),
        unsupported(C::NativeIdeUi, "Aider is a terminal tool with no extension point for a third-party status or approval surface", DOC),
        unsupported(C::HostEnforcement, "Aider takes no proxy from its settings, so host controls cannot be wired through them", DOC),
    ],
    warnings: &[ToolWarning::always(ScopeSet::PROJECT, "Aider reads .aider.conf.yml from the git root of the project; a project directory that is not the git root is not read")],
};
