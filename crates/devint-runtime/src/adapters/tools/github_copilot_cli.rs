//! GitHub Copilot CLI (`copilot`, npm `@github/copilot`): `~/.copilot/settings.json` at user
//! scope. Copilot in VS Code is a different tool (`github-copilot`).

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const CONFIG_DOC: &str =
    "https://docs.github.com/en/copilot/how-tos/copilot-cli/set-up-copilot-cli/configure-copilot-cli";
const HOOKS_DOC: &str =
    "https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference";
const USE_HOOKS_DOC: &str =
    "https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/use-hooks";
const MANAGED_DOC: &str = "https://docs.github.com/en/copilot/how-tos/administer-copilot/manage-mcp-usage/configure-enterprise-allowlist";
const PACKAGE_DOC: &str = "https://www.npmjs.com/package/@github/copilot";

const NO_GATEWAY: &str = "Copilot CLI sends model traffic to GitHub's Copilot API; its own-model route (COPILOT_PROVIDER_BASE_URL) is an environment variable of its launch, not a settings key";
const NO_MANAGED: &str = "Copilot CLI reads /etc/github-copilot/managed-settings.json, but devint does not write it yet: the real-tool conformance job cannot judge a file under /etc";

/// URL rules, as `deniedUrls` entries. Copilot CLI matches them against the URLs a shell
/// command or a web fetch names ("applies to the shell and web-fetch tools"); a bare domain
/// means `https://` only, so both schemes are written. Subdomains are other domains to it.
/// Every other kind of rule (`shell(curl)`, `write(path)`, an MCP tool) it takes only as a
/// launch flag (`--deny-tool`), so those are not enforceable through its settings.
static URL_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::WebFetch,
    &[],
    &["https://{domain}", "http://{domain}"],
    Strength::Advisory,
)];

/// An MCP server denied by a rule, as `disabledMcpServers` entries: the server is not
/// started, so none of its tools is offered.
static SERVER_RULES: &[RuleWriting] = &[RuleWriting::new(
    RuleKind::Mcp,
    &["{server}"],
    &[],
    Strength::Enforced,
)];

/// GitHub Copilot CLI.
pub static GITHUB_COPILOT_CLI: ToolDescriptor = ToolDescriptor {
    id: "github-copilot-cli",
    display_name: "GitHub Copilot CLI",
    // User settings live in settings.json from 1.0.35 on (config.json before).
    detection: Detection::binary(&["copilot"], ">=1.0.35")
        .installed_in(&[install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".copilot"),
    settings: &[SettingsFile::user(".copilot/settings.json", SettingsFormat::Json)],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Native {
            edits: &[edit(&["proxyUrl"], ValueTemplate::ProxyUrl)],
        },
        // Flat command handlers: a Claude-style group with matcher "*" is read as a regex
        // that matches no tool, and the hook is dropped without a word.
        hooks: MechanismSupport::Native {
            edits: &[edit(&["hooks", "preToolUse"], ValueTemplate::HookEntries(&[r#"{"type": "command", "bash": "{command}"}"#]))],
        },
        mcp_governance: MechanismSupport::Native {
            edits: &[edit(&["disabledMcpServers"], ValueTemplate::McpDeny { entries: &["{server}"], shape: RuleShape::ListItem })],
        },
        tool_action_approval: MechanismSupport::Native {
            edits: &[
                edit(&["deniedUrls"], ValueTemplate::DenyRules { rules: URL_RULES, shape: RuleShape::ListItem }),
                edit(&["disabledMcpServers"], ValueTemplate::DenyRules { rules: SERVER_RULES, shape: RuleShape::ListItem }),
                edit(&["defaultPermissionMode"], ValueTemplate::WhenApprovalRequired(Literal::Str("manual")))
                    .read_by(Versions::since("1.0.81")),
            ],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(PACKAGE_DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, MANAGED_DOC),
        unsupported(C::ManagedLaunch, "devint integrates Copilot CLI through settings.json and builds no launch command", CONFIG_DOC),
        unsupported(C::ModelPathInterception, NO_GATEWAY, CONFIG_DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, CONFIG_DOC),
        seen(C::HttpProxy, CONFIG_DOC),
        seen(C::Hooks, HOOKS_DOC),
        seen(C::McpDiscovery, CONFIG_DOC),
        seen(C::McpGovernance, CONFIG_DOC),
        seen(C::ToolActionApproval, CONFIG_DOC),
        unsupported(C::NativeIdeUi, "Copilot CLI is a terminal tool with no extension point for a third-party status or approval surface", USE_HOOKS_DOC),
        supported(C::HostEnforcement, CONFIG_DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::USER, "Copilot CLI ignores its whole settings.json, without a word, when one value in it is invalid: a bad value added later turns devint's keys off too (`copilot config --list` shows what it read)"),
        ToolWarning::always(ScopeSet::USER, "an HTTP_PROXY or HTTPS_PROXY in Copilot CLI's environment overrides proxyUrl"),
        ToolWarning::always(ScopeSet::USER, "Copilot CLI's --allow-all-tools and --yolo launch flags approve every tool its deny rules do not name; only its managed settings can forbid them, and defaultPermissionMode applies to interactive sessions only"),
        ToolWarning::when_denying(ScopeSet::USER, "Copilot CLI takes shell, file and MCP-tool rules only as launch flags (--deny-tool), so its settings can hold only web-fetch rules by domain and whole MCP servers"),
    ],
};
