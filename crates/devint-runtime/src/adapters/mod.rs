//! `adapters` — tool knowledge as data, and the one engine that renders it (the a4aa idea).
//!
//! Each AI coding tool is one small `static` [`ToolDescriptor`] under `tools/`: how to
//! detect it, which settings file it reads at each scope, where each governance mechanism
//! lives (or why it cannot), and all twelve capabilities with the public source each was
//! checked against. Adding a tool is a new descriptor and a registry line; nothing else
//! changes.
//!
//! Every item an embedder names is `devint_runtime::adapters::X`; the modules that define
//! them are private. What each one owns:
//!
//! | module | owns |
//! |---|---|
//! | `vocabulary` | the spec §4 tokens: capabilities, support, ceilings, scopes, action kinds |
//! | `descriptor` | the descriptor types ([`ToolDescriptor`] and its parts) and the `const` helpers descriptors are written with |
//! | `install` | install directories shared by several tools (npm, Homebrew) |
//! | `locate` | where a binary is looked for (`PATH`, then install directories) and the lookup |
//! | `probe` | the version command, with a real timeout |
//! | `detected` | what detection found ([`Detected`]), reading a version and judging it against a range |
//! | `detect` | the [`Detector`]: detection, its one cache, "where it looked" |
//! | `capability` | declared × detected → `CapabilityView` support and the adapter ceiling ([`resolve`], [`listing`]) |
//! | `rule` | the tool-neutral deny rules a policy states ([`DenyRule`]), and Claude Code patterns read into them |
//! | `engine` | (descriptor, intent, scope, version) → key edits plus a per-mechanism and per-rule report ([`render`]) |
//! | `table` | the generated `docs/tools.md` ([`capability_table_markdown`]) |
//!
//! This module must never load adapters dynamically or register them implicitly (ADR
//! forbidden design 8): the registry is the literal list in [`all`]. It must never write
//! settings files either: the lifecycle backend applies what the engine renders.

mod capability;
mod descriptor;
mod detect;
mod detected;
mod engine;
mod install;
mod locate;
mod probe;
mod rule;
mod table;
mod tools;
mod vocabulary;

pub use capability::{adapter_ceiling, listing, resolve, ResolvedCapability, ToolListing};
pub use descriptor::{
    CapabilityRow, DeclaredSupport, Detection, EditTemplate, ExtensionDir, InstallDir, Literal,
    Mechanism, MechanismSupport, Mechanisms, PathBase, RuleShape, RuleWriting, ScopeSet,
    SettingsFile, Strength, ToolDescriptor, ToolWarning, ValueTemplate, Versions,
    COMMON_NEW_FILE_MODE, MANAGED_FILE_MODE,
};
pub use detect::{Detector, MAX_AGE, RESCAN_AFTER, VERSION_TIMEOUT};
pub use detected::Detected;
pub use engine::{
    render, EditMode, IntegrationIntent, MechanismOutcome, MechanismReport, RenderError,
    RenderedEdit, RenderedIntegration, RuleOutcome, RuleReport,
};
pub use rule::{ClaudePattern, DenyRule, RuleError, RuleKind};
pub use table::capability_table_markdown;
// For the reference backend only.
pub(crate) use engine::settings_path;
// Test-only: the detection tests check the folders the version probe puts first against a
// sandbox of real links and node layouts.
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub use locate::own_dirs;
pub use vocabulary::{
    ActionKind, AdapterCeiling, Capability, Compatibility, SettingsScope, SupportToken,
};

/// Every tool this build knows, in a fixed order (linked at build time).
pub fn all() -> &'static [&'static ToolDescriptor] {
    tools::ALL
}

/// The descriptor with this exact id, if any.
pub fn find(id: &str) -> Option<&'static ToolDescriptor> {
    all().iter().copied().find(|t| t.id == id)
}
