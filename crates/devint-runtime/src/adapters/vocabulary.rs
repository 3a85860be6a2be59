//! The spec §4 string vocabularies the adapters speak: capabilities, support tokens,
//! adapter ceilings, compatibility, settings scopes and step action kinds.
//!
//! They are the crate's one set of spec vocabularies, [`devint::verbs`]'s, under the names
//! the descriptors read best with; this module defines none of its own, so an adapter and a
//! view can never disagree on a token.

pub use devint::verbs::{
    ActionKind, AdapterCeiling, CapabilityName as Capability, Compatibility, SettingsScope,
    Support as SupportToken,
};
