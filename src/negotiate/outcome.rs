//! The decision on a client's `Hello` (spec §5 rules 2–5).

use std::collections::BTreeSet;

use super::window::unavailable_verbs;
use crate::verbs::Verb;
use crate::version::{ApiVersion, LIFECYCLE_SCHEMA_VERSION, MAX_SUPPORTED, MIN_SUPPORTED};
use crate::wire::pb;

/// The two successful outcomes (spec §3 `NegotiationOutcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Every verb is available at the chosen version.
    Supported,
    /// The chosen version lacks some verbs (only v1: `scoped_events`, `approval_relay`).
    Degraded,
}

impl Outcome {
    /// The wire enum value.
    pub const fn to_wire(self) -> pb::NegotiationOutcome {
        match self {
            Outcome::Supported => pb::NegotiationOutcome::Supported,
            Outcome::Degraded => pb::NegotiationOutcome::Degraded,
        }
    }
}

/// A successful negotiation: the version fixed for the connection and what it lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agreement {
    version: ApiVersion,
    outcome: Outcome,
    unavailable: Vec<Verb>,
}

impl Agreement {
    /// The negotiated DI-API version, fixed for the connection (spec §5 rule 7).
    pub fn version(&self) -> ApiVersion {
        self.version
    }

    /// `SUPPORTED` or `DEGRADED`.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    /// The verbs unavailable at this version, in wire order (empty when supported).
    pub fn unavailable_verbs(&self) -> &[Verb] {
        &self.unavailable
    }

    /// Why the connection is degraded; empty when supported.
    pub fn degraded_reason(&self) -> String {
        if self.unavailable.is_empty() {
            return String::new();
        }
        let names: Vec<&str> = self.unavailable.iter().map(|v| v.token()).collect();
        format!(
            "DI-API version {} lacks the verbs {}",
            self.version,
            names.join(" and ")
        )
    }

    /// What to do about the degradation; empty when supported.
    pub fn remediation(&self) -> String {
        let Some(first) = self
            .unavailable
            .iter()
            .map(|v| v.rule().first_version)
            .max()
        else {
            return String::new();
        };
        format!(
            "upgrade the client to offer DI-API version {first} or later \
             (this runtime speaks up to {MAX_SUPPORTED})"
        )
    }
}

/// Why a `Hello` was answered with `Incompatible` (spec §5 rules 2–4).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IncompatibleReason {
    /// `di_api_versions` was empty: an unstated version is never "assume the oldest".
    #[error("the client offered no DI-API version")]
    NoVersionOffered,
    /// Every offered version is below the window.
    #[error("the client is too old: its newest DI-API version is {client_best}, this runtime speaks {MIN_SUPPORTED} to {MAX_SUPPORTED}")]
    ClientTooOld {
        /// The highest version the client offered.
        client_best: u32,
    },
    /// Every offered version is above the window.
    #[error("the client is too new: its oldest DI-API version is {client_lowest}, this runtime speaks {MIN_SUPPORTED} to {MAX_SUPPORTED}")]
    ClientTooNew {
        /// The lowest version the client offered.
        client_lowest: u32,
    },
    /// The client offered versions on both sides of the window but none inside it.
    #[error("no DI-API version offered by the client is one this runtime speaks ({MIN_SUPPORTED} to {MAX_SUPPORTED})")]
    NoOverlap,
    /// `lifecycle_schema_versions` lacks the one schema this runtime speaks.
    #[error("the client does not offer lifecycle schema version {LIFECYCLE_SCHEMA_VERSION}")]
    SchemaMismatch,
}

impl IncompatibleReason {
    /// What to do, naming the version to move to. Never empty.
    pub fn remediation(&self) -> String {
        match self {
            IncompatibleReason::NoVersionOffered => format!(
                "send Hello with di_api_versions listing the versions the client speaks, \
                 e.g. {MIN_SUPPORTED} to {MAX_SUPPORTED}"
            ),
            IncompatibleReason::ClientTooOld { .. } => format!(
                "upgrade the client to one that speaks DI-API version {MIN_SUPPORTED} or later \
                 ({MAX_SUPPORTED} is the newest this runtime speaks)"
            ),
            IncompatibleReason::ClientTooNew { client_lowest } => format!(
                "upgrade the runtime to one that speaks DI-API version {client_lowest}, \
                 or use a client that still offers version {MAX_SUPPORTED}"
            ),
            IncompatibleReason::NoOverlap => format!(
                "offer a DI-API version between {MIN_SUPPORTED} and {MAX_SUPPORTED}; \
                 {MAX_SUPPORTED} is the newest this runtime speaks"
            ),
            IncompatibleReason::SchemaMismatch => format!(
                "offer lifecycle schema version {LIFECYCLE_SCHEMA_VERSION}, \
                 or upgrade the client to one that speaks it"
            ),
        }
    }

    // spec[S5-R3-INTERSECT] §5 rule 3: reason and remediation set, min/max_supported filled.
    /// The `Incompatible` frame for this reason, with the window filled (spec §5 rule 3).
    pub fn to_wire(&self) -> pb::Incompatible {
        pb::Incompatible {
            reason: self.to_string(),
            remediation: self.remediation(),
            min_supported: MIN_SUPPORTED.get(),
            max_supported: MAX_SUPPORTED.get(),
        }
    }
}

/// Decide on a `Hello`'s offers (spec §5 rules 2–5). Pure: the offered lists are treated
/// as **sets** (order and duplicates do not matter), never as a claimed range.
pub fn negotiate(
    di_api_versions: &[u32],
    lifecycle_schema_versions: &[u32],
) -> Result<Agreement, IncompatibleReason> {
    let offered: BTreeSet<u32> = di_api_versions.iter().copied().collect();
    // spec[S5-R2-EMPTY-OFFER] §5 rule 2: an empty offer is Incompatible, never "assume the oldest".
    let (Some(&lowest), Some(&best)) = (offered.first(), offered.last()) else {
        return Err(IncompatibleReason::NoVersionOffered);
    };
    // spec[S5-R3-INTERSECT] §5 rule 3: intersect the offered set with the window; take the maximum.
    let Some(&version) = offered
        .range(MIN_SUPPORTED.get()..=MAX_SUPPORTED.get())
        .next_back()
    else {
        return Err(if best < MIN_SUPPORTED.get() {
            IncompatibleReason::ClientTooOld { client_best: best }
        } else if lowest > MAX_SUPPORTED.get() {
            IncompatibleReason::ClientTooNew {
                client_lowest: lowest,
            }
        } else {
            IncompatibleReason::NoOverlap
        });
    };
    // spec[S5-R4-SCHEMA] §5 rule 4: the lifecycle schema must be offered.
    if !lifecycle_schema_versions.contains(&LIFECYCLE_SCHEMA_VERSION) {
        return Err(IncompatibleReason::SchemaMismatch);
    }
    // spec[S5-R5-DEGRADED] §5 rule 5: DEGRADED iff the chosen version has unavailable verbs.
    let version = ApiVersion::new(version);
    let unavailable = unavailable_verbs(version);
    let outcome = if unavailable.is_empty() {
        Outcome::Supported
    } else {
        Outcome::Degraded
    };
    Ok(Agreement {
        version,
        outcome,
        unavailable,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_highest_common_version() {
        let a = negotiate(&[1, 2, 3, 4, 5], &[1]).unwrap();
        assert_eq!((a.version().get(), a.outcome()), (5, Outcome::Supported));
        assert!(a.degraded_reason().is_empty() && a.remediation().is_empty());
        let a = negotiate(&[9, 3, 3, 1], &[1]).unwrap();
        assert_eq!(a.version().get(), 3);
    }

    #[test]
    fn v1_only_is_degraded_with_both_v2_verbs() {
        let a = negotiate(&[1], &[1]).unwrap();
        assert_eq!(a.outcome(), Outcome::Degraded);
        assert_eq!(
            a.unavailable_verbs(),
            [Verb::ScopedEvents, Verb::ApprovalRelay]
        );
        assert!(a.degraded_reason().contains("scoped_events"));
        assert!(a.remediation().contains("version 2"));
    }

    #[test]
    fn each_incompatible_reason_names_the_version_to_move_to() {
        let cases = [
            (vec![], IncompatibleReason::NoVersionOffered),
            (vec![0], IncompatibleReason::ClientTooOld { client_best: 0 }),
            (
                vec![6, 7],
                IncompatibleReason::ClientTooNew { client_lowest: 6 },
            ),
            (vec![0, 6], IncompatibleReason::NoOverlap),
        ];
        for (offer, want) in cases {
            let got = negotiate(&offer, &[1]).unwrap_err();
            assert_eq!(got, want, "offer {offer:?}");
            let wire = got.to_wire();
            assert_eq!((wire.min_supported, wire.max_supported), (1, 5));
            assert!(!wire.remediation.is_empty());
            assert!(
                wire.remediation.chars().any(|c| c.is_ascii_digit()),
                "remediation names a version: {}",
                wire.remediation
            );
        }
    }

    #[test]
    fn schema_mismatch_is_incompatible() {
        assert_eq!(
            negotiate(&[5], &[2]),
            Err(IncompatibleReason::SchemaMismatch)
        );
        assert_eq!(
            negotiate(&[5], &[]),
            Err(IncompatibleReason::SchemaMismatch)
        );
        assert!(negotiate(&[5], &[2, 1]).is_ok());
    }
}
