//! The version window and the table of what each version adds (spec §5).

use crate::verbs::Verb;

// spec[S5-WINDOW] §5: min_supported = 1, max_supported = 5, lifecycle schema version 1.
/// Lowest DI-API version this runtime speaks (spec §5: `min_supported = 1`).
pub const MIN_SUPPORTED: u32 = 1;
/// Highest DI-API version this runtime speaks (spec §5: `max_supported = 5`).
pub const MAX_SUPPORTED: u32 = 5;
/// The one lifecycle schema version (spec §5).
pub const LIFECYCLE_SCHEMA_VERSION: u32 = 1;

// spec[S5-FIELD-GATING] §5: a field added at version N is sent only at N or above.
/// `StatusView.policy` and `VerificationView.policy` are sent from this version on
/// (spec §5: "we gate all three, including v3's `PolicyView`").
pub const POLICY_SINCE: u32 = 3;
// spec[S8-PROVENANCE-V4] §8: `HelloAck.provenance` is present iff the version is ≥ 4.
/// `HelloAck.provenance` is sent iff the negotiated version is at least this (spec §8).
pub const PROVENANCE_SINCE: u32 = 4;
/// `ApplyView.outcome` is sent from this version on (spec §5).
pub const APPLY_OUTCOME_SINCE: u32 = 5;

/// One row of the spec §5 table: what a version added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionAddition {
    /// The DI-API version.
    pub version: u32,
    /// What it added, as the spec words it.
    pub added: &'static str,
}

/// What each version in the window adds (spec §5). Only v2 added verbs; v3–v5 add what a
/// peer can *say*.
pub const VERSION_TABLE: [VersionAddition; 5] = [
    VersionAddition {
        version: 1,
        added: "list_tools, plan, apply, status, verify, repair, remove",
    },
    VersionAddition {
        version: 2,
        added: "verbs scoped_events, approval_relay",
    },
    VersionAddition {
        version: POLICY_SINCE,
        added: "StatusView.policy, VerificationView.policy",
    },
    VersionAddition {
        version: PROVENANCE_SINCE,
        added: "HelloAck.provenance",
    },
    VersionAddition {
        version: APPLY_OUTCOME_SINCE,
        added: "ApplyView.outcome",
    },
];

/// The first DI-API version at which `verb` exists (from the verb table in `verbs`).
pub const fn first_version_with(verb: Verb) -> u32 {
    verb.rule().first_version
}

// spec[S6-VERSION-AFTER-TOKEN] §6: the remediation names the first version with the verb.
/// Whether `verb` exists at `version`; `Err` carries the first version that has it
/// (spec §6: `UNAVAILABLE_AT_VERSION`, remediation names the first version with the verb).
pub const fn verb_available(verb: Verb, version: u32) -> Result<(), u32> {
    let first = first_version_with(verb);
    if version >= first {
        Ok(())
    } else {
        Err(first)
    }
}

// spec[S5-R5-DEGRADED] §5 rule 5: the unavailable verbs of the chosen version.
/// The verbs unavailable at `version`, in wire order (spec §5: only v1 has any).
pub fn unavailable_verbs(version: u32) -> Vec<Verb> {
    Verb::ALL
        .into_iter()
        .filter(|v| verb_available(*v, version).is_err())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_v1_has_unavailable_verbs() {
        assert_eq!(
            unavailable_verbs(1),
            [Verb::ScopedEvents, Verb::ApprovalRelay]
        );
        for v in 2..=MAX_SUPPORTED {
            assert!(unavailable_verbs(v).is_empty(), "v{v}");
        }
    }

    #[test]
    fn table_covers_the_window_in_order() {
        let versions: Vec<u32> = VERSION_TABLE.iter().map(|r| r.version).collect();
        assert_eq!(
            versions,
            (MIN_SUPPORTED..=MAX_SUPPORTED).collect::<Vec<_>>()
        );
    }

    #[test]
    fn unavailable_verb_names_its_first_version() {
        assert_eq!(verb_available(Verb::ScopedEvents, 1), Err(2));
        assert_eq!(verb_available(Verb::ApprovalRelay, 1), Err(2));
        assert_eq!(verb_available(Verb::Apply, 1), Ok(()));
    }
}
