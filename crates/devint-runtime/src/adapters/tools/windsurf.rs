//! Windsurf (Cascade): governance through Cascade hooks (`hooks.json`).

use crate::adapters::descriptor::*;
use crate::adapters::vocabulary::Capability as C;

const HOOKS_DOC: &str = "https://docs.windsurf.com/windsurf/cascade/hooks";
const MCP_DOC: &str = "https://docs.windsurf.com/windsurf/cascade/mcp";
const DOC: &str = "https://docs.windsurf.com/windsurf/getting-started";

const NO_GATEWAY: &str =
    "Cascade sends model requests through Windsurf's service; there is no base-URL setting";
const NO_PROXY: &str = "Windsurf's http.proxy lives in its editor settings.json, a file this adapter does not manage (it manages hooks.json)";
const NO_MCP: &str = "Windsurf's MCP servers live in mcp_config.json with no deny list; MCP calls are gated by the pre_mcp_tool_use hook the hooks mechanism installs";
const NO_APPROVAL: &str = "Cascade's allow and deny command lists are editor settings, not keys of hooks.json; use the hooks mechanism to gate commands";

/// The `windsurf` command's directory that setup puts on the shell's `PATH`, and the
/// macOS app bundle's.
static INSTALL_DIRS: &[InstallDir] = &[
    InstallDir::home(".codeium/windsurf/bin", DOC),
    InstallDir::absolute("/Applications/Windsurf.app/Contents/Resources/app/bin", DOC),
];

/// Windsurf (Cascade).
pub static WINDSURF_CASCADE: ToolDescriptor = ToolDescriptor {
    id: "windsurf-cascade",
    display_name: "Windsurf (Cascade)",
    detection: Detection::binary(&["windsurf"], ">=1.12.0")
        .installed_in(&[INSTALL_DIRS])
        .configured_in(".codeium/windsurf"),
    settings: &[
        SettingsFile::user(".codeium/windsurf/hooks.json", SettingsFormat::Json),
        SettingsFile::project(".windsurf/hooks.json", SettingsFormat::Json),
        SettingsFile::managed("/etc/windsurf/hooks.json", SettingsFormat::Json),
    ],
    mechanisms: Mechanisms {
        model_gateway_base_url: MechanismSupport::Unsupported { reason: NO_GATEWAY },
        http_proxy: MechanismSupport::Unsupported { reason: NO_PROXY },
        hooks: MechanismSupport::Native {
            edits: &[
                edit(&["hooks", "pre_run_command"], ValueTemplate::HookEntries(HOOK_COMMAND_OBJECT)),
                edit(&["hooks", "pre_mcp_tool_use"], ValueTemplate::HookEntries(HOOK_COMMAND_OBJECT)),
                edit(&["hooks", "pre_write_code"], ValueTemplate::HookEntries(HOOK_COMMAND_OBJECT)),
            ],
        },
        mcp_governance: MechanismSupport::Unsupported { reason: NO_MCP },
        tool_action_approval: MechanismSupport::Unsupported { reason: NO_APPROVAL },
        managed_settings: MechanismSupport::Native { edits: &[] },
    },
    capabilities: [
        discovery(DOC),
        supported(C::ManagedSettings, HOOKS_DOC),
        unsupported(C::ManagedLaunch, "Windsurf is an editor; devint integrates it through hooks.json and builds no launch command", DOC),
        unsupported(C::ModelPathInterception, NO_GATEWAY, DOC),
        unsupported(C::ModelGatewayBaseUrl, NO_GATEWAY, DOC),
        unsupported(C::HttpProxy, NO_PROXY, DOC),
        supported(C::Hooks, HOOKS_DOC),
        supported(C::McpDiscovery, MCP_DOC),
        unsupported(C::McpGovernance, NO_MCP, MCP_DOC),
        unsupported(C::ToolActionApproval, NO_APPROVAL, DOC),
        unsupported(C::NativeIdeUi, "Windsurf offers no extension point devint uses for a status or approval surface yet", DOC),
        unsupported(C::HostEnforcement, "Cascade's model traffic goes through Windsurf's service, out of reach of host controls", DOC),
    ],
    warnings: &[],
};
