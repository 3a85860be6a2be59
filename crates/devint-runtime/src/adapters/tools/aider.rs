//! Aider: `.aider.conf.yml`, read from the home directory, the git root and the directory
//! it runs in (that order, the later file winning per key).
//!
//! Aider reads the file with configargparse: every key is a long command-line option, so a
//! key Aider does not know stops it at start (`unrecognized arguments`). Each key below is
//! gated on the first release whose options include it.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const DOC: &str = "https://aider.chat/docs/config/aider_conf.html";
const OPTIONS_DOC: &str = "https://aider.chat/docs/config/options.html";
const API_KEYS_DOC: &str = "https://aider.chat/docs/config/api-keys.html";

const NO_HOOKS: &str = "Aider has no hooks before edits or commands (lint-cmd and test-cmd run after edits and cannot block)";
const NO_MCP: &str = "Aider does not support MCP";
const NO_MANAGED: &str = "Aider documents no administrator-managed settings file";

const INSTALL_DOC: &str = "https://aider.chat/docs/install.html";

/// Where `aider-install`, uv and pipx put the `aider` command.
static INSTALL_DIRS: &[InstallDir] = &[InstallDir::home(".local/bin", INSTALL_DOC)];

/// The first release with `--set-env`.
const SET_ENV: Versions = Versions::since("0.68.0");

/// `suggest-shell-commands: false`: Aider never offers to run a shell command the model
/// suggests (it has no narrower rule: a command prefix cannot be denied).
static SHELL_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::Shell,
    &["on"],
    &[],
    Strength::Enforced,
)];

/// `detect-urls: false`: Aider never offers to fetch a URL met in the chat (a domain cannot
/// be denied).
static WEB_FETCH_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::WebFetch,
    &["on"],
    &[],
    Strength::Enforced,
)];

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
            edits: &[
                edit(&["openai-api-base"], ValueTemplate::GatewayBaseUrl),
                // litellm takes OPENAI_BASE_URL before the OPENAI_API_BASE that
                // openai-api-base sets, and Anthropic models' base from ANTHROPIC_API_BASE.
                edit(
                    &["set-env"],
                    ValueTemplate::GatewayEntries(&["OPENAI_BASE_URL={url}", "ANTHROPIC_API_BASE={url}"]),
                )
                .read_by(SET_ENV),
            ],
            how: "set as openai-api-base and, in set-env (Aider 0.68 and later), as OPENAI_BASE_URL and ANTHROPIC_API_BASE: OpenAI-compatible and Anthropic models go to the gateway, models of other providers do not",
        },
        http_proxy: MechanismSupport::Adapted {
            edits: &[edit(
                &["set-env"],
                ValueTemplate::ProxyEntries(&["HTTPS_PROXY={url}", "HTTP_PROXY={url}"]),
            )
            .read_by(SET_ENV)],
            how: "set as HTTPS_PROXY and HTTP_PROXY in set-env, which Aider puts in its own environment at start: everything it fetches, and the commands it runs, take the proxy",
        },
        hooks: MechanismSupport::Unsupported { reason: NO_HOOKS },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(
                    &["suggest-shell-commands"],
                    ValueTemplate::DenyRules { rules: SHELL_RULES, shape: RuleShape::Flag(Literal::Bool(false)) },
                )
                .read_by(Versions::since("0.54.0")),
                edit(
                    &["detect-urls"],
                    ValueTemplate::DenyRules { rules: WEB_FETCH_RULES, shape: RuleShape::Flag(Literal::Bool(false)) },
                )
                .read_by(Versions::since("0.65.0")),
            ],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(OPTIONS_DOC),
        ruled_out(C::ManagedSettings, NO_MANAGED, DOC),
        ruled_out(C::ManagedLaunch, "devint integrates Aider through .aider.conf.yml and builds no launch command", DOC),
        seen(C::ModelPathInterception, API_KEYS_DOC),
        seen(C::ModelGatewayBaseUrl, API_KEYS_DOC),
        seen(C::HttpProxy, OPTIONS_DOC),
        ruled_out(C::Hooks, NO_HOOKS, OPTIONS_DOC),
        ruled_out(C::McpDiscovery, NO_MCP, OPTIONS_DOC),
        ruled_out(C::McpGovernance, NO_MCP, OPTIONS_DOC),
        seen(C::ToolActionApproval, OPTIONS_DOC),
        ruled_out(C::NativeIdeUi, "Aider is a terminal tool with no extension point for a third-party status or approval surface", DOC),
        supported(C::HostEnforcement, OPTIONS_DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::ALL, "Aider takes each key from the first .aider.conf.yml that has it (the working directory's, the git root's, then home's) and set-env whole from one file: a project set-env drops devint's entries, and AIDER_* variables override every file"),
        ToolWarning::always(ScopeSet::PROJECT, "Aider reads a project's .aider.conf.yml only when it runs in the project directory or the project directory is the git root"),
        ToolWarning::when_denying(ScopeSet::ALL, "Aider's deny switches are all or nothing: suggest-shell-commands: false stops every shell command the model suggests, detect-urls: false every URL it offers to fetch; /run and /web, typed by the user, still work"),
    ],
};
