//! The typed names a view may carry: mechanism names, key names, artifact paths.
//!
//! Owns turning the runtime's typed records into those names. It must never invent a
//! token: a name that does not fit its identifier shape is shortened to a prefix that does,
//! or left out (stored vocabularies are typed when a record is loaded, so nothing here
//! defaults an unknown one).

use std::path::Path;

use crate::edit::KeyPath;
use devint::verbs::{ArtifactPath, CapabilityName, KeyName, ManagedRef, MechanismName};

/// The evidence mechanism name of a capability: its own token (every capability token has
/// the mechanism-name shape; a unit test checks all twelve).
pub fn mechanism(capability: CapabilityName) -> MechanismName {
    MechanismName::parse(capability.token())
        .expect("every capability token is a mechanism name (checked by a unit test)")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_capability_token_is_a_mechanism_name() {
        for capability in CapabilityName::ALL {
            assert_eq!(mechanism(*capability).as_str(), capability.token());
        }
    }
}
