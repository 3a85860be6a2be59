//! Crush (Charm's terminal agent, npm `@charmland/crush`): `~/.config/crush/crush.json` at user
//! scope. Described from its public documentation and schema only: its npm package downloads
//! the release binary from GitHub when installed, which the real-tool conformance job cannot
//! reach, so no row here was judged by a real release.

use crate::adapters::descriptor::*;
use crate::adapters::install;
use crate::adapters::vocabulary::Capability as C;

const README_DOC: &str = "https://github.com/charmbracelet/crush#configuration";
const SCHEMA_DOC: &str = "https://charm.land/crush.json";
const MCP_DOC: &str = "https://mintlify.com/charmbracelet/crush/configuration/mcp";
const CONFIG_DOC: &str = "https://mintlify.com/charmbracelet/crush/configuration/overview";
const HOOKS_DOC: &str =
    "https://raw.githubusercontent.com/charmbracelet/crush/HEAD/internal/skills/builtin/crush-config/SKILL.md";

const NO_PROXY: &str = "Crush takes a proxy from the HTTPS_PROXY environment of its launch; crush.json has no proxy key";
const NO_MCP: &str = "Crush has no MCP deny list; a server is disabled only inside its own mcp entry, which devint does not own";
const NO_MANAGED: &str = "Crush documents no administrator-managed settings file";

/// `go install` puts the binary in Go's default GOBIN.
static INSTALL_DIRS: &[InstallDir] = &[InstallDir::home("go/bin", README_DOC)];

/// Built-in tools taken away whole, as `options.disabled_tools` entries (a disabled tool is
/// never offered). A web fetch has three routes: `fetch`, `agentic_fetch` and `download`.
static DISABLED_TOOLS: &[RuleWriting] = &[
    RuleWriting::new(RuleKind::Shell, &["bash"], &[], Strength::Enforced),
    RuleWriting::new(
        RuleKind::WebFetch,
        &["fetch", "agentic_fetch", "download"],
        &[],
        Strength::Enforced,
    ),
    RuleWriting::new(
        RuleKind::FileRead,
        &["view", "ls", "glob", "grep"],
        &[],
        Strength::Advisory,
    ),
    RuleWriting::new(
        RuleKind::FileWrite,
        &["edit", "multiedit", "write"],
        &[],
        Strength::Advisory,
    ),
];

/// Crush.
pub static CRUSH: ToolDescriptor = ToolDescriptor {
    id: "crush",
    display_name: "Crush",
    detection: Detection::binary(&["crush"], ">=0.96.0")
        .installed_in(&[INSTALL_DIRS, install::NPM_GLOBAL, install::HOMEBREW])
        .configured_in(".config/crush"),
    settings: &[SettingsFile::user(".config/crush/crush.json", SettingsFormat::Json)],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Adapted {
            edits: &[edit(&["providers", "anthropic", "base_url"], ValueTemplate::GatewayBaseUrl)],
            how: "set as the base_url of the anthropic provider; models of other providers do not pass through the gateway",
        },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        // Flat command entries; the matcher is a regular expression on the tool name.
        hooks: MechanismSupport::Native {
            edits: &[edit(&["hooks", "PreToolUse"], ValueTemplate::HookEntries(&[r#"{"matcher": ".*", "command": "{command}"}"#]))],
        },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Native {
            edits: &[edit(&["options", "disabled_tools"], ValueTemplate::DenyRules { rules: DISABLED_TOOLS, shape: RuleShape::ListItem })],
        },
        managed_settings: MechanismSupport::Unsupported { reason: NO_MANAGED },
    },
    capabilities: [
        discovery(README_DOC),
        unsupported(C::ManagedSettings, NO_MANAGED, CONFIG_DOC),
        unsupported(C::ManagedLaunch, "devint integrates Crush through crush.json and builds no launch command", README_DOC),
        supported(C::ModelPathInterception, SCHEMA_DOC),
        supported(C::ModelGatewayBaseUrl, SCHEMA_DOC),
        unsupported(C::HttpProxy, NO_PROXY, SCHEMA_DOC),
        supported(C::Hooks, HOOKS_DOC),
        supported(C::McpDiscovery, MCP_DOC),
        unsupported(C::McpGovernance, NO_MCP, MCP_DOC),
        supported(C::ToolActionApproval, SCHEMA_DOC),
        unsupported(C::NativeIdeUi, "Crush is a terminal tool with no extension point for a third-party status or approval surface", README_DOC),
        unsupported(C::HostEnforcement, "Crush takes no proxy from crush.json, so host controls cannot be wired through it", SCHEMA_DOC),
    ],
    warnings: &[
        ToolWarning::always(ScopeSet::USER, "a project's .crush.json or crush.json overrides the user's crush.json, and --yolo skips every permission prompt"),
        ToolWarning::when_denying(ScopeSet::USER, "Crush has no deny rules, only whole tools to disable: a command prefix, a domain or a path cannot be expressed"),
    ],
};
