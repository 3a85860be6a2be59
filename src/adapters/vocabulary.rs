//! The spec §4 string vocabularies the adapters speak: capabilities, support tokens,
//! adapter ceilings, compatibility, settings scopes and step action kinds.
//!
//! Owns the closed enums and their exact snake_case tokens. Must never accept a token
//! outside its vocabulary (parsing returns `None`), and must never reorder
//! [`Capability::ALL`]: the spec fixes the order in which every tool lists them.

/// One of the twelve integration capabilities (spec §4 "capabilities"), in spec order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Capability {
    /// The adapter can detect presence and version.
    Discovery,
    /// The adapter can render and merge a managed (administrator) settings block.
    ManagedSettings,
    /// The adapter can build a governed launch command.
    ManagedLaunch,
    /// The tool's model traffic can be routed through the gateway at all.
    ModelPathInterception,
    /// The tool honours a configurable model base URL.
    ModelGatewayBaseUrl,
    /// The tool honours an HTTP(S) proxy from its settings.
    HttpProxy,
    /// The tool exposes pre/post hooks devint can install.
    Hooks,
    /// The tool exposes its configured MCP servers.
    McpDiscovery,
    /// The tool honours an MCP server allow/deny list.
    McpGovernance,
    /// The tool can gate individual tool actions on approval or deny them.
    ToolActionApproval,
    /// A first-class in-IDE surface exists for status and approval.
    NativeIdeUi,
    /// The integration can be backed by host controls (proxy CA, eBPF).
    HostEnforcement,
}

impl Capability {
    // spec[S4-CAPABILITY-ORDER] §4: all twelve capabilities, for every tool, in this order.
    /// All twelve capabilities, in the order spec §4 requires every tool to list them.
    pub const ALL: [Capability; 12] = [
        Capability::Discovery,
        Capability::ManagedSettings,
        Capability::ManagedLaunch,
        Capability::ModelPathInterception,
        Capability::ModelGatewayBaseUrl,
        Capability::HttpProxy,
        Capability::Hooks,
        Capability::McpDiscovery,
        Capability::McpGovernance,
        Capability::ToolActionApproval,
        Capability::NativeIdeUi,
        Capability::HostEnforcement,
    ];

    /// The wire token (spec §4).
    pub const fn token(self) -> &'static str {
        match self {
            Capability::Discovery => "discovery",
            Capability::ManagedSettings => "managed_settings",
            Capability::ManagedLaunch => "managed_launch",
            Capability::ModelPathInterception => "model_path_interception",
            Capability::ModelGatewayBaseUrl => "model_gateway_base_url",
            Capability::HttpProxy => "http_proxy",
            Capability::Hooks => "hooks",
            Capability::McpDiscovery => "mcp_discovery",
            Capability::McpGovernance => "mcp_governance",
            Capability::ToolActionApproval => "tool_action_approval",
            Capability::NativeIdeUi => "native_ide_ui",
            Capability::HostEnforcement => "host_enforcement",
        }
    }

    /// Parses a wire token; `None` for anything outside the vocabulary.
    pub fn from_token(token: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.token() == token)
    }
}

/// `CapabilityView.support` (spec §4): a capability as resolved on this host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SupportToken {
    /// Declared and effective here.
    Supported,
    /// Declared unsupported, with a user-facing reason.
    Unsupported,
    /// Needs a newer version than the one detected.
    RequiresVersion,
    /// Not declared, or its evidence is missing (never read as supported).
    Absent,
}

impl SupportToken {
    /// The wire token (spec §4).
    pub const fn token(self) -> &'static str {
        match self {
            SupportToken::Supported => "supported",
            SupportToken::Unsupported => "unsupported",
            SupportToken::RequiresVersion => "requires_version",
            SupportToken::Absent => "absent",
        }
    }
}

/// `adapter_ceiling` (spec §4): the highest integration an adapter can reach on this host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AdapterCeiling {
    /// Detection only.
    L0Discover,
    /// Traffic can be observed (gateway base URL or proxy).
    L1Observe,
    /// Actions can be blocked (hooks, MCP deny list, tool permissions).
    L2Enforce,
    /// Enforcement from administrator-managed settings the user cannot override.
    L3Native,
}

impl AdapterCeiling {
    /// The wire token (spec §4).
    pub const fn token(self) -> &'static str {
        match self {
            AdapterCeiling::L0Discover => "l0_discover",
            AdapterCeiling::L1Observe => "l1_observe",
            AdapterCeiling::L2Enforce => "l2_enforce",
            AdapterCeiling::L3Native => "l3_native",
        }
    }
}

/// `ToolSummary.compatibility` (spec §4): the detected version against the supported range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compatibility {
    /// The detected version is in the supported range.
    Compatible,
    /// No version could be read (absent tool, unparsable output, timeout).
    Unknown,
    /// The detected version is outside the supported range.
    Incompatible,
}

impl Compatibility {
    /// The wire token (spec §4).
    pub const fn token(self) -> &'static str {
        match self {
            Compatibility::Compatible => "compatible",
            Compatibility::Unknown => "unknown",
            Compatibility::Incompatible => "incompatible",
        }
    }
}

/// Settings scope (spec §4): mandatory on plan, never inferred from a working directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SettingsScope {
    /// The user's own settings under `HOME`.
    User,
    /// One project's settings, under the project directory.
    Project,
    /// Administrator-managed settings (usually under `/etc`, a privileged write).
    Managed,
}

impl SettingsScope {
    /// The three scopes in spec order.
    pub const ALL: [SettingsScope; 3] = [
        SettingsScope::User,
        SettingsScope::Project,
        SettingsScope::Managed,
    ];

    /// The wire token (spec §4).
    pub const fn token(self) -> &'static str {
        match self {
            SettingsScope::User => "user",
            SettingsScope::Project => "project",
            SettingsScope::Managed => "managed",
        }
    }

    /// Parses a wire token; `None` for anything outside the vocabulary.
    pub fn from_token(token: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.token() == token)
    }
}

/// `StepView.action_kind` (spec §4): what kind of change a plan step makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionKind {
    /// Write settings keys devint manages (permissions, managed blocks).
    WriteManagedSettings,
    /// Install a hook.
    InstallHook,
    /// Remove a hook.
    RemoveHook,
    /// Point the tool's model traffic at the gateway.
    ConfigureModelGatewayBaseUrl,
    /// Configure the tool's HTTP(S) proxy.
    ConfigureProxy,
    /// Install trust material (a CA) — a privileged host step.
    MaterialiseTrustMaterial,
    /// Inject environment into a governed launch.
    InjectLaunchEnvironment,
    /// Configure MCP servers or their allow/deny list.
    ConfigureMcpServers,
    /// Register an IDE client.
    RegisterIdeClient,
    /// Connect the tool to the local runtime.
    ConnectLocalRuntime,
    /// Run a protection test.
    RunProtectionTest,
    /// Manage a file artifact.
    ManageArtifact,
}

impl ActionKind {
    /// The wire token (spec §4).
    pub const fn token(self) -> &'static str {
        match self {
            ActionKind::WriteManagedSettings => "write_managed_settings",
            ActionKind::InstallHook => "install_hook",
            ActionKind::RemoveHook => "remove_hook",
            ActionKind::ConfigureModelGatewayBaseUrl => "configure_model_gateway_base_url",
            ActionKind::ConfigureProxy => "configure_proxy",
            ActionKind::MaterialiseTrustMaterial => "materialise_trust_material",
            ActionKind::InjectLaunchEnvironment => "inject_launch_environment",
            ActionKind::ConfigureMcpServers => "configure_mcp_servers",
            ActionKind::RegisterIdeClient => "register_ide_client",
            ActionKind::ConnectLocalRuntime => "connect_local_runtime",
            ActionKind::RunProtectionTest => "run_protection_test",
            ActionKind::ManageArtifact => "manage_artifact",
        }
    }
}
