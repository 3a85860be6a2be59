//! Conversions between the adapters' vocabularies and the views' vocabularies, and the
//! typed names (key names, artifact paths) a view may carry.
//!
//! Owns mapping by spec §4 token. It must never invent a token: a name that does not fit
//! its identifier shape is shortened to a prefix that does, or left out.

use std::path::Path;

use crate::edit::KeyPath;
use devint::verbs::{ActionKind, ArtifactPath, CapabilityName, KeyName, ManagedRef, MechanismName};

/// The view capability for a capability token.
pub fn capability(token: &str) -> CapabilityName {
    CapabilityName::parse(token).unwrap_or(CapabilityName::ManagedSettings)
}

/// The view action kind for an action kind token.
pub fn action_kind(token: &str) -> ActionKind {
    ActionKind::parse(token).unwrap_or(ActionKind::WriteManagedSettings)
}

/// A mechanism name for a capability token.
pub fn mechanism(token: &str) -> MechanismName {
    MechanismName::parse(token).unwrap_or_else(|_| {
        MechanismName::parse("managed_settings").expect("a valid mechanism name")
    })
}

/// The key name for a path: the whole path when it fits the [`KeyName`] shape, else its
/// longest prefix that does (a deny pattern used as a key, say), else `None`.
pub fn key_name(path: &KeyPath) -> Option<KeyName> {
    let segments = path.segments();
    (1..=segments.len())
        .rev()
        .find_map(|n| KeyName::parse(&segments[..n].join(".")).ok())
}

/// A managed reference to a key.
pub fn key_ref(path: &KeyPath) -> Option<ManagedRef> {
    key_name(path).map(ManagedRef::Key)
}

/// The artifact path shown for `path`: `~/…` under `home`, else absolute.
pub fn artifact(path: &Path, home: &Path) -> Option<ArtifactPath> {
    let shown = match path.strip_prefix(home) {
        Ok(rel) => format!("~/{}", rel.display()),
        Err(_) => path.display().to_string(),
    };
    ArtifactPath::parse(&shown).ok()
}
