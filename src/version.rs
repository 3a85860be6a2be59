//! [`ApiVersion`] and the version facts of spec §5: the window this crate speaks, the one
//! lifecycle schema version, and the first version of everything a version added.
//!
//! This module is the one home of those numbers: negotiation ([`crate::negotiate`]) decides
//! with them, the verb table ([`crate::verbs::Verb::rule`]) names a verb's first version
//! with them, and the views gate their fields with them. It owns no decision and no
//! conversion; it must never grow a second copy of a gate somewhere else.

/// A DI-API version, as negotiated for a connection (spec §5): fixed once `HelloAck` is
/// sent, and what every version-gated field and verb is judged against.
///
/// A distinct type so that a version cannot be passed where a time, a request id or a
/// count is expected. It serialises as the bare number. The versions a client *offers* in
/// `Hello` stay plain `u32`s: they are whatever the peer wrote, in or out of any window.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct ApiVersion(u32);

impl ApiVersion {
    /// The version numbered `n` (a wire value, or a version a test pins).
    pub const fn new(n: u32) -> ApiVersion {
        ApiVersion(n)
    }

    /// The number, as the wire carries it.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// Whether something first available at `since` exists at this version.
    pub const fn has(self, since: ApiVersion) -> bool {
        self.0 >= since.0
    }
}

impl std::fmt::Display for ApiVersion {
    /// The bare number (`5`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

// spec[S5-WINDOW] §5: min_supported = 1, max_supported = 5, lifecycle schema version 1.
/// Lowest DI-API version this crate speaks (spec §5: `min_supported = 1`).
pub const MIN_SUPPORTED: ApiVersion = ApiVersion(1);
/// Highest DI-API version this crate speaks (spec §5: `max_supported = 5`).
pub const MAX_SUPPORTED: ApiVersion = ApiVersion(5);
/// The one lifecycle schema version (spec §5): what `HelloAck.lifecycle_schema_version`
/// states and what every `PlanView`/`RemovalView.schema_version` a runtime writes carries.
pub const LIFECYCLE_SCHEMA_VERSION: u32 = 1;

/// The verbs `scoped_events` and `approval_relay` exist from this version on (spec §5: only
/// v2 added verbs).
pub const EVENTS_AND_APPROVALS_SINCE: ApiVersion = ApiVersion(2);
// spec[S5-FIELD-GATING] §5: a field added at version N is sent only at N or above.
/// `StatusView.policy` and `VerificationView.policy` are sent from this version on
/// (spec §5: "we gate all three, including v3's `PolicyView`").
pub const POLICY_SINCE: ApiVersion = ApiVersion(3);
// spec[S8-PROVENANCE-V4] §8: `HelloAck.provenance` is present iff the version is ≥ 4.
/// `HelloAck.provenance` is sent iff the negotiated version is at least this (spec §8).
pub const PROVENANCE_SINCE: ApiVersion = ApiVersion(4);
/// `ApplyView.outcome` is sent from this version on (spec §5).
pub const APPLY_OUTCOME_SINCE: ApiVersion = ApiVersion(5);

/// One row of the spec §5 table: what a version added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct VersionAddition {
    /// The DI-API version.
    pub version: ApiVersion,
    /// What it added, as the spec words it.
    pub added: &'static str,
}

/// What each version in the window adds (spec §5). Only v2 added verbs; v3–v5 add what a
/// peer can *say*.
pub const VERSION_TABLE: [VersionAddition; 5] = [
    VersionAddition {
        version: MIN_SUPPORTED,
        added: "list_tools, plan, apply, status, verify, repair, remove",
    },
    VersionAddition {
        version: EVENTS_AND_APPROVALS_SINCE,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_covers_the_window_in_order() {
        let versions: Vec<u32> = VERSION_TABLE.iter().map(|r| r.version.get()).collect();
        assert_eq!(
            versions,
            (MIN_SUPPORTED.get()..=MAX_SUPPORTED.get()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn serialises_as_the_bare_number() {
        assert_eq!(serde_json::to_string(&MAX_SUPPORTED).unwrap(), "5");
        assert_eq!(MAX_SUPPORTED.to_string(), "5");
        assert!(MAX_SUPPORTED.has(POLICY_SINCE));
        assert!(!MIN_SUPPORTED.has(EVENTS_AND_APPROVALS_SINCE));
    }
}
