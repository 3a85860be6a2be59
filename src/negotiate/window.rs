//! Verb availability per version (spec §5, §6): derived from the verb table and the window
//! of [`crate::version`], which owns the numbers.

use crate::verbs::Verb;
use crate::version::ApiVersion;

/// The first DI-API version at which `verb` exists (from the verb table in `verbs`).
pub const fn first_version_with(verb: Verb) -> ApiVersion {
    verb.rule().first_version
}

// spec[S6-VERSION-AFTER-TOKEN] §6: the remediation names the first version with the verb.
/// Whether `verb` exists at `version`; `Err` carries the first version that has it
/// (spec §6: `UNAVAILABLE_AT_VERSION`, remediation names the first version with the verb).
pub const fn verb_available(verb: Verb, version: ApiVersion) -> Result<(), ApiVersion> {
    let first = first_version_with(verb);
    if version.has(first) {
        Ok(())
    } else {
        Err(first)
    }
}

// spec[S5-R5-DEGRADED] §5 rule 5: the unavailable verbs of the chosen version.
/// The verbs unavailable at `version`, in wire order (spec §5: only v1 has any).
pub fn unavailable_verbs(version: ApiVersion) -> Vec<Verb> {
    Verb::ALL
        .into_iter()
        .filter(|v| verb_available(*v, version).is_err())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::{MAX_SUPPORTED, MIN_SUPPORTED};

    #[test]
    fn only_v1_has_unavailable_verbs() {
        assert_eq!(
            unavailable_verbs(MIN_SUPPORTED),
            [Verb::ScopedEvents, Verb::ApprovalRelay]
        );
        for v in 2..=MAX_SUPPORTED.get() {
            assert!(unavailable_verbs(ApiVersion::new(v)).is_empty(), "v{v}");
        }
    }

    #[test]
    fn unavailable_verb_names_its_first_version() {
        let v1 = ApiVersion::new(1);
        assert_eq!(
            verb_available(Verb::ScopedEvents, v1),
            Err(ApiVersion::new(2))
        );
        assert_eq!(
            verb_available(Verb::ApprovalRelay, v1),
            Err(ApiVersion::new(2))
        );
        assert_eq!(verb_available(Verb::Apply, v1), Ok(()));
    }
}
