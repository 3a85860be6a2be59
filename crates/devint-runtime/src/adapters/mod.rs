//! `adapters` — tool knowledge as data, and the one engine that renders it (the a4aa idea).
//!
//! Each AI coding tool is one small `static` [`ToolDescriptor`] under `tools/`: how to
//! detect it, which settings file it reads at each scope, where each governance mechanism
//! lives (or why it cannot), and all twelve capabilities with the public source each was
//! checked against. Adding a tool is a new descriptor and a registry line; nothing else
//! changes.
//!
//! | module | owns |
//! |---|---|
//! | [`vocabulary`] | the spec §4 tokens: capabilities, support, ceilings, scopes, action kinds |
//! | [`descriptor`] | the descriptor types and the `const` helpers descriptors are written with |
//! | [`install`] | install directories shared by several tools (npm, Homebrew) |
//! | [`locate`] | where a binary is looked for (`PATH`, then install directories) and the lookup |
//! | [`probe`] | the version command, with a real timeout |
//! | [`detected`] | what detection found ([`Detected`]), reading a version and judging it against a range |
//! | [`detect`](mod@detect) | the [`Detector`]: detection, its one cache, "where it looked" |
//! | [`capability`] | declared × detected → `CapabilityView` support and the adapter ceiling |
//! | [`rule`] | the tool-neutral deny rules a policy states, and Claude Code patterns read into them |
//! | [`engine`] | (descriptor, intent, scope, version) → key edits plus a per-mechanism and per-rule report |
//! | [`table`] | the generated `docs/tools.md` |
//!
//! This module must never load adapters dynamically or register them implicitly (ADR
//! forbidden design 8): the registry is the literal list in [`all`]. It must never write
//! settings files either: the lifecycle backend applies what the engine renders.

pub mod capability;
pub mod descriptor;
pub mod detect;
pub mod detected;
pub mod engine;
pub mod install;
pub mod locate;
pub mod probe;
pub mod rule;
pub mod table;
pub mod tools;
pub mod vocabulary;

pub use capability::{adapter_ceiling, listing, resolve, ResolvedCapability, ToolListing};
pub use descriptor::{
    CapabilityRow, DeclaredSupport, Detection, InstallDir, Mechanism, MechanismSupport,
    SettingsFile, SettingsFormat, Strength, ToolDescriptor, COMMON_NEW_FILE_MODE,
    MANAGED_FILE_MODE,
};
pub use detect::Detector;
pub use detected::Detected;
pub use engine::{
    render, EditMode, IntegrationIntent, KeyEdit, MechanismOutcome, MechanismReport, RenderError,
    RenderedIntegration, RuleOutcome, RuleReport,
};
pub use rule::{DenyRule, RuleKind};
pub use table::capability_table_markdown;
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
