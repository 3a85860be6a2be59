//! Cursor: governance through Cursor hooks (`hooks.json`) at user, project and enterprise scope.

use crate::adapters::descriptor::*;
use crate::adapters::vocabulary::Capability as C;

const HOOKS_DOC: &str = "https://cursor.com/docs/agent/hooks";
const MCP_DOC: &str = "https://cursor.com/docs/context/mcp";
const PROXY_DOC: &str = "https://cursor.com/docs/enterprise/network-configuration";

const NO_GATEWAY: &str = "Cursor sends model requests through its own backend; its base-URL override lives in app state, not a settings file";
const NO_PROXY: &str = "Cursor's http.proxy lives in its VS Code-style settings.json, a file this adapter does not manage (it manages hooks.json)";
const NO_MCP: &str = "Cursor has no MCP deny list; MCP calls are gated by the beforeMCPExecution hook that the hooks mechanism installs";
const NO_APPROVAL: &str = "Cursor's allow and deny lists live in cli-config.json and app state, not in hooks.json; use the hooks mechanism to gate actions";

const SHELL_DOC: &str = "https://cursor.com/docs/configuration/shell";

/// The `cursor` shell command: the link "Install 'cursor' command" makes, and the app
/// bundle it points into.
static INSTALL_DIRS: &[InstallDir] = &[
    InstallDir::absolute("/usr/local/bin", SHELL_DOC),
    InstallDir::absolute(
        "/Applications/Cursor.app/Contents/Resources/app/bin",
        SHELL_DOC,
    ),
];

/// Cursor.
pub static CURSOR: ToolDescriptor = ToolDescriptor {
    id: "cursor",
    display_name: "Cursor",
    detection: Detection::binary(&["cursor"], ">=1.7.0")
        .installed_in(&[INSTALL_DIRS])
        .configured_in(".cursor"),
    settings: &[
        SettingsFile::user(".cursor/hooks.json", SettingsFormat::Json),
        SettingsFile::project(".cursor/hooks.json", SettingsFormat::Json),
        SettingsFile::managed("/etc/cursor/hooks.json", SettingsFormat::Json),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Native {
            edits: &[
                edit(&["version"], ValueTemplate::Always(Literal::Int(1))),
                edit(&["hooks", "beforeShellExecution"], ValueTemplate::HookEntries(HOOK_COMMAND_OBJECT)),
                edit(&["hooks", "beforeMCPExecution"], ValueTemplate::HookEntries(HOOK_COMMAND_OBJECT)),
            ],
        },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Unsupported { reason: NO_APPROVAL },
        managed_settings: MechanismSupport::Native { edits: &[] },
    },
    capabilities: [
        discovery(HOOKS_DOC),
        requires(C::ManagedSettings, "1.7.0", HOOKS_DOC),
        unsupported(C::ManagedLaunch, "Cursor is an editor; devint integrates it through hooks.json and builds no launch command", HOOKS_DOC),
        unsupported(C::ModelPathInterception, NO_GATEWAY, PROXY_DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, PROXY_DOC),
        unsupported(C::HttpProxy, NO_PROXY, PROXY_DOC),
        requires(C::Hooks, "1.7.0", HOOKS_DOC),
        supported(C::McpDiscovery, MCP_DOC),
        unsupported(C::McpGovernance, NO_MCP, HOOKS_DOC),
        unsupported(C::ToolActionApproval, NO_APPROVAL, HOOKS_DOC),
        unsupported(C::NativeIdeUi, "Cursor offers no extension point devint uses for a status or approval surface yet", HOOKS_DOC),
        unsupported(C::HostEnforcement, "Cursor's model traffic goes through its own backend, out of reach of host controls", PROXY_DOC),
    ],
    warnings: &[ToolWarning::always(ScopeSet::PROJECT, "Cursor runs project hooks from .cursor/hooks.json only in a trusted workspace")],
};
