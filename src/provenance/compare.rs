//! The three-state comparison of a peer's build identity against ours (spec §8).

use std::fmt;

use super::identity::{BuildIdSource, BuildIdentity};
use crate::wire::pb;

/// The overall verdict of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Both identities are authoritative, the commits are equal and the core versions agree.
    Match,
    /// A positive finding that the builds differ.
    Mismatch,
    /// At least one side cannot say what it is; never rendered as a match.
    Unverifiable,
}

/// How one field compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldState {
    /// Both sides state it and agree.
    Matched,
    /// Both sides state it and differ.
    Mismatched,
    /// At least one side does not state it.
    Absent,
}

/// Per-field diagnostics, so a refusal names what was absent, matched or mismatched rather
/// than one generic sentence. Only fields that identify a build are compared: pid and paths
/// describe a process, not a build, and are never consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldReport {
    /// `core_version`.
    pub core_version: FieldState,
    /// `build_sha` (absent when a side states none or `unknown`).
    pub build_sha: FieldState,
    /// `build_id_source` (absent when a side is `absent`); diagnostic only.
    pub build_id_source: FieldState,
}

/// The result of [`compare`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comparison {
    /// The three-state verdict.
    pub verdict: Verdict,
    /// What each field did.
    pub fields: FieldReport,
}

/// Compare a peer's `RuntimeProvenance` against our own build identity (spec §8).
pub fn compare(peer: &pb::RuntimeProvenance, ours: &BuildIdentity) -> Comparison {
    compare_identities(&BuildIdentity::from_wire(peer), ours)
}

// spec[S8-COMPARE] §8: only core_version, build sha and source decide; pid, paths and
// versions never upgrade a verdict.
/// [`compare`] over two identities.
pub fn compare_identities(peer: &BuildIdentity, ours: &BuildIdentity) -> Comparison {
    let fields = FieldReport {
        core_version: field(
            !peer.core_version.is_empty() && !ours.core_version.is_empty(),
            peer.core_version == ours.core_version,
        ),
        build_sha: field(
            peer.has_sha() && ours.has_sha(),
            peer.sha.eq_ignore_ascii_case(&ours.sha),
        ),
        build_id_source: field(
            peer.source != BuildIdSource::Absent && ours.source != BuildIdSource::Absent,
            peer.source == ours.source,
        ),
    };
    // spec[S8-COMPARE] §8, in order: both core_versions non-empty and different → Mismatch;
    // either side not authoritative → Unverifiable; shas differ → Mismatch; otherwise Match.
    let verdict = if fields.core_version == FieldState::Mismatched {
        Verdict::Mismatch
    } else if !peer.is_authoritative() || !ours.is_authoritative() {
        Verdict::Unverifiable
    } else if fields.build_sha == FieldState::Mismatched {
        Verdict::Mismatch
    } else {
        Verdict::Match
    };
    Comparison { verdict, fields }
}

fn field(both_stated: bool, equal: bool) -> FieldState {
    match (both_stated, equal) {
        (false, _) => FieldState::Absent,
        (true, true) => FieldState::Matched,
        (true, false) => FieldState::Mismatched,
    }
}

impl fmt::Display for FieldState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FieldState::Matched => "matched",
            FieldState::Mismatched => "mismatched",
            FieldState::Absent => "absent",
        })
    }
}

impl fmt::Display for FieldReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "core_version {}, build_sha {}, build_id_source {}",
            self.core_version, self.build_sha, self.build_id_source
        )
    }
}
