//! The tool descriptor: everything devint knows about one AI coding tool, as `&'static`
//! data linked at build time.
//!
//! Owns the descriptor types only. Must never hold behaviour, perform IO, or be built at
//! run time: descriptors are `static` tables (ADR forbidden design 8 rules out dynamic
//! loading and inventory-style registration).

// Descriptors are written with `use crate::adapters::descriptor::*`: these two are in scope
// for them here, and named elsewhere by their one public path.
pub(crate) use super::rule::RuleKind;
use super::vocabulary::{Capability, SettingsScope};
pub(crate) use crate::edit::SettingsFormat;

/// The date a capability row written with [`supported`], [`unsupported`] or [`requires`]
/// was last checked against its public source.
pub const CHECKED: &str = "2026-11-29";

/// The date a row written with [`seen`] or [`ruled_out`] was last judged by the tool's real
/// release (the versions are in `conformance/tools.toml`).
pub const JUDGED: &str = "2026-12-05";

/// One AI coding tool, described as data.
#[derive(Debug)]
pub struct ToolDescriptor {
    /// Kebab-case tool id (spec §4 "tool ids").
    pub id: &'static str,
    /// Name shown to people.
    pub display_name: &'static str,
    /// How to find the tool on this host.
    pub detection: Detection,
    /// The settings file for each scope the tool reads (at most one per scope).
    pub settings: &'static [SettingsFile],
    /// Where each governance mechanism lives, or why it cannot.
    pub mechanisms: Mechanisms,
    /// All twelve capabilities, in spec order (checked by a test).
    pub capabilities: [CapabilityRow; 12],
    /// Caveats surfaced in every plan for the scopes they name.
    pub warnings: &'static [ToolWarning],
}

impl ToolDescriptor {
    /// The settings file this tool reads at `scope`, if any.
    pub fn settings_for(&self, scope: SettingsScope) -> Option<&'static SettingsFile> {
        self.settings.iter().find(|s| s.scope == scope)
    }

    /// The declared row for `capability`, if the descriptor declares it.
    pub fn capability(&self, capability: Capability) -> Option<&CapabilityRow> {
        self.capabilities
            .iter()
            .find(|r| r.capability == capability)
    }
}

/// How a tool is detected: a binary on `PATH` or in one of its documented install
/// directories, or an editor extension's install directory.
#[derive(Debug)]
pub struct Detection {
    /// Binary names looked up, first match wins.
    pub binaries: &'static [&'static str],
    /// Arguments that make the binary print its version.
    pub version_args: &'static [&'static str],
    /// The supported version range (a `semver::VersionReq`, checked by a test).
    pub supported: &'static str,
    /// Editor-extension install directories under `HOME`.
    pub extensions: &'static [ExtensionDir],
    /// The tool's documented install directories, searched after `PATH` in this order
    /// (a service manager's `PATH` is minimal, so a tool installed in `~/.local/bin` or by
    /// npm or Homebrew is found anyway). Groups are shared between tools (npm's, Homebrew's, …).
    pub install_dirs: &'static [&'static [InstallDir]],
    /// The tool's own configuration directory under `HOME`: when it exists and no binary is
    /// found, detection reports "configured but binary not found" instead of "not found".
    pub config_dir: Option<&'static str>,
}

impl Detection {
    /// A command-line tool: the first of `binaries` on `PATH`, asked `--version`.
    pub const fn binary(binaries: &'static [&'static str], supported: &'static str) -> Self {
        Detection {
            binaries,
            version_args: &["--version"],
            supported,
            extensions: &[],
            install_dirs: &[],
            config_dir: None,
        }
    }

    /// An editor extension, found only by its install directories.
    pub const fn extension(extensions: &'static [ExtensionDir], supported: &'static str) -> Self {
        Detection {
            binaries: &[],
            version_args: &[],
            supported,
            extensions,
            install_dirs: &[],
            config_dir: None,
        }
    }

    /// The same detection, also searching `dirs` (in order) after `PATH`.
    pub const fn installed_in(self, dirs: &'static [&'static [InstallDir]]) -> Self {
        Detection {
            install_dirs: dirs,
            ..self
        }
    }

    /// The same detection, with `dir` (relative to `HOME`) as the tool's configuration
    /// directory.
    pub const fn configured_in(self, dir: &'static str) -> Self {
        Detection {
            config_dir: Some(dir),
            ..self
        }
    }
}

/// One documented install directory of a tool, with the public page that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstallDir {
    /// What `path` is relative to: [`PathBase::Home`] or [`PathBase::Absolute`].
    pub base: PathBase,
    /// The directory; one whole segment may be `*` (every entry of that directory, the
    /// highest version first — e.g. nvm's `versions/node/*/bin`).
    pub path: &'static str,
    /// The public documentation that names this directory.
    pub source: &'static str,
}

impl InstallDir {
    /// A directory relative to the runtime's `HOME`.
    pub const fn home(path: &'static str, source: &'static str) -> Self {
        InstallDir {
            base: PathBase::Home,
            path,
            source,
        }
    }

    /// An absolute directory.
    pub const fn absolute(path: &'static str, source: &'static str) -> Self {
        InstallDir {
            base: PathBase::Absolute,
            path,
            source,
        }
    }

    /// The directory as people write it: `~/…` for a `HOME`-relative one.
    pub fn display(&self) -> String {
        match self.base {
            PathBase::Home => format!("~/{}", self.path),
            _ => self.path.to_owned(),
        }
    }
}

/// An editor extension installed as `HOME/<parent>/<prefix><version>/`.
#[derive(Debug)]
pub struct ExtensionDir {
    /// Directory under `HOME` that holds extensions, e.g. `.vscode/extensions`.
    pub parent: &'static str,
    /// Directory-name prefix before the version, e.g. `github.copilot-chat-`.
    pub prefix: &'static str,
}

/// What a settings path is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathBase {
    /// Relative to the user's `HOME`.
    Home,
    /// Relative to the project directory.
    Project,
    /// An absolute path (managed settings; writing it is a privileged host step).
    Absolute,
}

/// One settings file a tool reads.
#[derive(Debug, Clone, Copy)]
pub struct SettingsFile {
    /// The scope this file belongs to.
    pub scope: SettingsScope,
    /// What `path` is relative to.
    pub base: PathBase,
    /// The path template (relative unless `base` is `Absolute`).
    pub path: &'static str,
    /// The file's format.
    pub format: SettingsFormat,
    /// The mode the tool itself creates this file with, before the umask: what devint gives
    /// the file when it is the one to create it at user or project scope (a managed file is
    /// always `0644`, root-owned, so that the tool can read it as any user).
    pub new_file_mode: u32,
}

/// The mode most tools create their settings files with, before the umask: Node's
/// `fs.writeFile` and Rust's `File::create` both ask for `0o666` (`0644` under the usual
/// umask `022`).
pub const COMMON_NEW_FILE_MODE: u32 = 0o666;

/// The mode of a managed (host-wide) settings file: root writes it, every user's tool
/// reads it.
pub const MANAGED_FILE_MODE: u32 = 0o644;

impl SettingsFile {
    /// The `user` file, relative to `HOME`, created like most tools create theirs
    /// ([`COMMON_NEW_FILE_MODE`]).
    pub const fn user(path: &'static str, format: SettingsFormat) -> Self {
        SettingsFile {
            scope: SettingsScope::User,
            base: PathBase::Home,
            path,
            format,
            new_file_mode: COMMON_NEW_FILE_MODE,
        }
    }

    /// The `project` file, relative to the project directory, created like most tools
    /// create theirs ([`COMMON_NEW_FILE_MODE`]).
    pub const fn project(path: &'static str, format: SettingsFormat) -> Self {
        SettingsFile {
            scope: SettingsScope::Project,
            base: PathBase::Project,
            path,
            format,
            new_file_mode: COMMON_NEW_FILE_MODE,
        }
    }

    /// The `managed` file, at an absolute path ([`MANAGED_FILE_MODE`]).
    pub const fn managed(path: &'static str, format: SettingsFormat) -> Self {
        SettingsFile {
            scope: SettingsScope::Managed,
            base: PathBase::Absolute,
            path,
            format,
            new_file_mode: MANAGED_FILE_MODE,
        }
    }

    /// The same file, which the tool creates with `mode` (before the umask) instead.
    pub const fn created_with(self, mode: u32) -> Self {
        SettingsFile {
            new_file_mode: mode,
            ..self
        }
    }
}

/// A set of settings scopes, as a `const`-friendly triple of flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopeSet {
    /// Includes `user`.
    pub user: bool,
    /// Includes `project`.
    pub project: bool,
    /// Includes `managed`.
    pub managed: bool,
}

impl ScopeSet {
    /// Every scope.
    pub const ALL: ScopeSet = ScopeSet {
        user: true,
        project: true,
        managed: true,
    };
    /// `user` and `project` only.
    pub const USER_PROJECT: ScopeSet = ScopeSet {
        user: true,
        project: true,
        managed: false,
    };
    /// `user` only.
    pub const USER: ScopeSet = ScopeSet {
        user: true,
        project: false,
        managed: false,
    };
    /// `project` only.
    pub const PROJECT: ScopeSet = ScopeSet {
        user: false,
        project: true,
        managed: false,
    };
    /// `managed` only.
    pub const MANAGED: ScopeSet = ScopeSet {
        user: false,
        project: false,
        managed: true,
    };

    /// Whether `scope` is in the set.
    pub const fn contains(self, scope: SettingsScope) -> bool {
        match scope {
            SettingsScope::User => self.user,
            SettingsScope::Project => self.project,
            SettingsScope::Managed => self.managed,
        }
    }

    /// The scopes in the set, in spec order.
    pub fn scopes(self) -> impl Iterator<Item = SettingsScope> {
        SettingsScope::ALL
            .iter()
            .copied()
            .filter(move |s| self.contains(*s))
    }
}

/// The six governance mechanisms an integration can configure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mechanism {
    /// Model traffic to the gateway's base URL.
    ModelGatewayBaseUrl,
    /// HTTP(S) proxy.
    HttpProxy,
    /// A hook command run before tool actions.
    Hooks,
    /// MCP server allow/deny.
    McpGovernance,
    /// Tool-action permissions and approval.
    ToolActionApproval,
    /// Administrator-managed settings file.
    ManagedSettings,
}

impl Mechanism {
    /// All six mechanisms, in capability order.
    pub const ALL: [Mechanism; 6] = [
        Mechanism::ManagedSettings,
        Mechanism::ModelGatewayBaseUrl,
        Mechanism::HttpProxy,
        Mechanism::Hooks,
        Mechanism::McpGovernance,
        Mechanism::ToolActionApproval,
    ];

    /// The capability this mechanism realises.
    pub const fn capability(self) -> Capability {
        match self {
            Mechanism::ModelGatewayBaseUrl => Capability::ModelGatewayBaseUrl,
            Mechanism::HttpProxy => Capability::HttpProxy,
            Mechanism::Hooks => Capability::Hooks,
            Mechanism::McpGovernance => Capability::McpGovernance,
            Mechanism::ToolActionApproval => Capability::ToolActionApproval,
            Mechanism::ManagedSettings => Capability::ManagedSettings,
        }
    }
}

/// Per mechanism: where it lives in the tool's settings, or why it cannot.
#[derive(Debug)]
pub struct Mechanisms {
    /// Model gateway base URL.
    pub model_gateway_base_url: MechanismSupport,
    /// HTTP(S) proxy.
    pub http_proxy: MechanismSupport,
    /// Hooks.
    pub hooks: MechanismSupport,
    /// MCP server allow/deny.
    pub mcp_governance: MechanismSupport,
    /// Tool-action approval and permissions.
    pub tool_action_approval: MechanismSupport,
    /// Managed settings: `Native` with no edits means "the managed file is honoured".
    pub managed_settings: MechanismSupport,
}

impl Mechanisms {
    /// The support declared for `mechanism`.
    pub const fn get(&self, mechanism: Mechanism) -> &MechanismSupport {
        match mechanism {
            Mechanism::ModelGatewayBaseUrl => &self.model_gateway_base_url,
            Mechanism::HttpProxy => &self.http_proxy,
            Mechanism::Hooks => &self.hooks,
            Mechanism::McpGovernance => &self.mcp_governance,
            Mechanism::ToolActionApproval => &self.tool_action_approval,
            Mechanism::ManagedSettings => &self.managed_settings,
        }
    }
}

/// How a tool supports one mechanism.
#[derive(Debug)]
pub enum MechanismSupport {
    /// The tool has documented keys for it; the edits say which.
    Native {
        /// Key edits, each valid in some scopes.
        edits: &'static [EditTemplate],
    },
    /// Realised through a neighbouring surface of the tool; `how` says which and what is lost.
    Adapted {
        /// Key edits, each valid in some scopes.
        edits: &'static [EditTemplate],
        /// A user-facing sentence: what surface is used and its limits.
        how: &'static str,
    },
    /// Not available; `reason` is shown to the user at plan time.
    Unsupported {
        /// A user-facing sentence.
        reason: &'static str,
    },
}

impl MechanismSupport {
    /// The edits, or an empty slice when unsupported.
    pub const fn edits(&self) -> &'static [EditTemplate] {
        match self {
            MechanismSupport::Native { edits } | MechanismSupport::Adapted { edits, .. } => edits,
            MechanismSupport::Unsupported { .. } => &[],
        }
    }

    /// Whether the mechanism is available at all (native or adapted).
    pub const fn is_available(&self) -> bool {
        !matches!(self, MechanismSupport::Unsupported { .. })
    }
}

/// One key the engine writes, as a path into the settings document and a value template.
#[derive(Debug)]
pub struct EditTemplate {
    /// Scopes in which the tool honours this key.
    pub scopes: ScopeSet,
    /// Key path from the document root; a segment may itself contain dots (VS Code keys).
    pub path: &'static [&'static str],
    /// The value, filled from the integration intent.
    pub value: ValueTemplate,
    /// The tool versions that read this key.
    pub versions: Versions,
    /// Whether the tool's own documentation makes the key's value a name, never a secret
    /// (an auth *method* under an `auth` table): a value displaced there is kept for removal
    /// unless the value itself looks like a credential.
    pub holds_no_secret: bool,
}

impl EditTemplate {
    /// The same key, read only by the tool versions in `versions`.
    pub const fn read_by(self, versions: Versions) -> EditTemplate {
        EditTemplate { versions, ..self }
    }

    /// The same key, whose value is a name, never a secret (see
    /// [`EditTemplate::holds_no_secret`]).
    pub const fn holding_no_secret(self) -> EditTemplate {
        EditTemplate {
            holds_no_secret: true,
            ..self
        }
    }
}

/// The tool versions that read a key: from `since` (inclusive) to `before` (exclusive),
/// each bound a semver version (checked by a test). When the installed version is unknown,
/// the keys of the newest release are written: a key with a `before` bound is left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    /// The first version that reads the key.
    pub since: Option<&'static str>,
    /// The first version that no longer reads it (or deprecates it).
    pub before: Option<&'static str>,
}

impl Versions {
    /// Every version.
    pub const ALL: Versions = Versions {
        since: None,
        before: None,
    };

    /// `since` and later.
    pub const fn since(version: &'static str) -> Versions {
        Versions {
            since: Some(version),
            before: None,
        }
    }

    /// Versions before `version`.
    pub const fn before(version: &'static str) -> Versions {
        Versions {
            since: None,
            before: Some(version),
        }
    }

    /// Whether a tool at `version` (`None`: unknown, taken as the newest) reads the key.
    pub fn include(&self, version: Option<&semver::Version>) -> bool {
        let parse = |v: &str| semver::Version::parse(v).ok();
        match version {
            None => self.before.is_none(),
            Some(v) => {
                self.since.and_then(parse).is_none_or(|since| *v >= since)
                    && self.before.and_then(parse).is_none_or(|before| *v < before)
            }
        }
    }
}

/// How strongly a tool holds a deny rule once it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strength {
    /// The tool matches the rule against what one call names — a command line, a path, a
    /// URL: another route to the same effect (a script, an indirect command, a shell
    /// command reading the file) passes it.
    Advisory,
    /// The tool removes what the rule covers (the tool or server is never offered), so no
    /// call of that kind can be made through it.
    Enforced,
}

impl Strength {
    /// The word plans and status use.
    pub const fn token(self) -> &'static str {
        match self {
            Strength::Advisory => "advisory",
            Strength::Enforced => "enforced",
        }
    }
}

/// How a tool writes one kind of tool-neutral deny rule ([`super::rule::DenyRule`]).
///
/// Templates are filled with the rule's values: `{cmd}` (a command prefix), `{cmd_regex}`
/// (that prefix as a regular expression matching it literally), `{domain}`,
/// `{path}`, `{claude_path}` (an absolute path written `//…`), `{server}`, `{server_ident}`
/// (the server's name as an identifier: every character other than an ASCII letter, digit
/// or `_` written `_`), `{tool}`; a template naming a value the rule does not have is not
/// used. A rule with no template
/// left is not enforceable in this tool and is reported so, never written.
#[derive(Debug, PartialEq, Eq)]
pub struct RuleWriting {
    /// The kind of rule.
    pub kind: RuleKind,
    /// The entries written for a rule of this kind that nothing narrows (`shell`,
    /// `web_fetch`, `mcp:<server>`); empty when the tool cannot express it.
    pub every: &'static [&'static str],
    /// The entries written for a narrowed rule (`shell:curl`, `mcp:<server>/<tool>`); empty
    /// when the tool cannot express it.
    pub narrowed: &'static [&'static str],
    /// How strongly the tool holds what is written.
    pub strength: Strength,
}

impl RuleWriting {
    /// Rules of `kind`, written as `every` / `narrowed`, held with `strength`.
    pub const fn new(
        kind: RuleKind,
        every: &'static [&'static str],
        narrowed: &'static [&'static str],
        strength: Strength,
    ) -> RuleWriting {
        RuleWriting {
            kind,
            every,
            narrowed,
            strength,
        }
    }
}

/// Where the entries of a [`ValueTemplate::DenyRules`] edit go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleShape {
    /// Each entry is a string added to the list at the edit's path.
    ListItem,
    /// Each entry is JSON text for an object added to the list at the edit's path (the
    /// values are filled into its strings).
    ListObject,
    /// Each entry is a key inside the object at the edit's path, set to the literal.
    ObjectKey(Literal),
    /// The edit's path itself is set to the literal when some rule has an entry (the
    /// entry's text is not used: write `"on"`).
    Flag(Literal),
}

/// A constant value in a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Literal {
    /// A string.
    Str(&'static str),
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
}

/// A Claude Code-style matcher group that runs the hook command before every tool:
/// `{"matcher": "*", "hooks": [{"type": "command", "command": …}]}`.
pub const HOOK_MATCHER_GROUP: &[&str] =
    &[r#"{"matcher": "*", "hooks": [{"type": "command", "command": "{command}"}]}"#];

/// A command object, `{"command": …}` (Cursor, Windsurf).
pub const HOOK_COMMAND_OBJECT: &[&str] = &[r#"{"command": "{command}"}"#];

/// How an edit's value is made from the integration intent. An edit whose input is
/// missing from the intent is skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueTemplate {
    /// The gateway base URL, as a string.
    GatewayBaseUrl,
    /// The gateway base URL as JSON objects added to the list at the path: each object's
    /// strings have `{url}` replaced by the URL (e.g. a provider entry of a tool that lists
    /// its model providers, the gateway as one provider's endpoint).
    GatewayObjects(&'static [&'static str]),
    /// The proxy URL, as a string.
    ProxyUrl,
    /// The hook command, as a string.
    HookCommand,
    /// The hook command as a one-element argv array: `["<command>"]`.
    HookArgv,
    /// The hook command as JSON entries added to the list at the path: each entry's
    /// strings have `{command}` replaced by the command (e.g. a Claude Code matcher group
    /// `{"matcher": "*", "hooks": […]}`, a Cursor command object `{"command": …}`).
    HookEntries(&'static [&'static str]),
    /// Each denied MCP server written as `entries` (`{server}` or `{server_ident}` filled
    /// in), in `shape`.
    McpDeny {
        /// How one denied server is written (text, or JSON for [`RuleShape::ListObject`]).
        entries: &'static [&'static str],
        /// Where the entries go.
        shape: RuleShape,
    },
    /// The policy's deny rules this tool can express, each written as its
    /// [`RuleWriting`] says, in the given shape.
    DenyRules {
        /// How each kind of rule is written at this path.
        rules: &'static [RuleWriting],
        /// Where the entries go.
        shape: RuleShape,
    },
    /// Text entries added to the list at the path, each with `{url}` replaced by the
    /// gateway base URL (e.g. Aider's `set-env` list: `OPENAI_BASE_URL={url}`).
    GatewayEntries(&'static [&'static str]),
    /// Text entries added to the list at the path, each with `{url}` replaced by the proxy
    /// URL (e.g. Aider's `set-env` list: `HTTPS_PROXY={url}`).
    ProxyEntries(&'static [&'static str]),
    /// The literal, only when the intent requires approval.
    WhenApprovalRequired(Literal),
    /// Entries added to the list at the path, only when the intent requires approval (a
    /// catch-all "ask" rule after the deny rules, e.g. Amp's `{"tool": "*", "action":
    /// "ask"}` or Continue's `ask: ["*"]`): text for [`RuleShape::ListItem`], JSON text for
    /// [`RuleShape::ListObject`].
    ApprovalEntries {
        /// The entries, written as they are.
        entries: &'static [&'static str],
        /// How each entry is written ([`RuleShape::ListItem`] or [`RuleShape::ListObject`]).
        shape: RuleShape,
    },
    /// The literal, only when the intent has deny rules (a key without which the tool's
    /// deny lists do not hold, e.g. one that forbids an auto-approve mode skipping them).
    WhenDenying(Literal),
    /// The literal, whenever the mechanism is configured (e.g. a schema version key).
    Always(Literal),
}

/// One capability as declared by a descriptor, with the source it was checked against.
#[derive(Debug)]
pub struct CapabilityRow {
    /// Which capability.
    pub capability: Capability,
    /// The declared support.
    pub support: DeclaredSupport,
    /// Public documentation URL the row was checked against.
    pub source: &'static str,
    /// Date of the check (`YYYY-MM-DD`).
    pub checked: &'static str,
}

/// Declared support for a capability (ADR §3.2); resolution against a host is separate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclaredSupport {
    /// Supported at every version in the detection range.
    Supported,
    /// Not supported; the reason is user-facing.
    Unsupported {
        /// A user-facing sentence.
        reason: &'static str,
    },
    /// Supported from `min` on (a semver string, checked by a test).
    RequiresVersion {
        /// Lowest version that supports it.
        min: &'static str,
    },
}

/// A caveat surfaced in plans for some scopes (e.g. folder trust).
#[derive(Debug)]
pub struct ToolWarning {
    /// Scopes the warning applies to.
    pub scopes: ScopeSet,
    /// A user-facing sentence.
    pub text: &'static str,
    /// Whether it is said only when the policy has deny rules (it explains why some
    /// cannot be written for this tool).
    pub when_denying: bool,
}

impl ToolWarning {
    /// A caveat for every plan at `scopes`.
    pub const fn always(scopes: ScopeSet, text: &'static str) -> ToolWarning {
        ToolWarning {
            scopes,
            text,
            when_denying: false,
        }
    }

    /// A caveat for the plans at `scopes` whose policy has deny rules.
    pub const fn when_denying(scopes: ScopeSet, text: &'static str) -> ToolWarning {
        ToolWarning {
            scopes,
            text,
            when_denying: true,
        }
    }
}

/// A `Supported` row checked today against `source`.
pub const fn supported(capability: Capability, source: &'static str) -> CapabilityRow {
    CapabilityRow {
        capability,
        support: DeclaredSupport::Supported,
        source,
        checked: CHECKED,
    }
}

/// An `Unsupported` row with its user-facing reason.
pub const fn unsupported(
    capability: Capability,
    reason: &'static str,
    source: &'static str,
) -> CapabilityRow {
    CapabilityRow {
        capability,
        support: DeclaredSupport::Unsupported { reason },
        source,
        checked: CHECKED,
    }
}

/// A `RequiresVersion` row.
pub const fn requires(
    capability: Capability,
    min: &'static str,
    source: &'static str,
) -> CapabilityRow {
    CapabilityRow {
        capability,
        support: DeclaredSupport::RequiresVersion { min },
        source,
        checked: CHECKED,
    }
}

/// A `Supported` row the real release was seen to honour on [`JUDGED`].
pub const fn seen(capability: Capability, source: &'static str) -> CapabilityRow {
    CapabilityRow {
        capability,
        support: DeclaredSupport::Supported,
        source,
        checked: JUDGED,
    }
}

/// An `Unsupported` row confirmed against the real release on [`JUDGED`].
pub const fn ruled_out(
    capability: Capability,
    reason: &'static str,
    source: &'static str,
) -> CapabilityRow {
    CapabilityRow {
        capability,
        support: DeclaredSupport::Unsupported { reason },
        source,
        checked: JUDGED,
    }
}

/// The `discovery` row every descriptor declares: detection is done by devint itself.
pub const fn discovery(source: &'static str) -> CapabilityRow {
    supported(Capability::Discovery, source)
}

/// An edit honoured in every scope.
pub const fn edit(path: &'static [&'static str], value: ValueTemplate) -> EditTemplate {
    EditTemplate {
        scopes: ScopeSet::ALL,
        path,
        value,
        versions: Versions::ALL,
        holds_no_secret: false,
    }
}

/// An edit honoured only in `scopes`.
pub const fn edit_in(
    scopes: ScopeSet,
    path: &'static [&'static str],
    value: ValueTemplate,
) -> EditTemplate {
    EditTemplate {
        scopes,
        path,
        value,
        versions: Versions::ALL,
        holds_no_secret: false,
    }
}
