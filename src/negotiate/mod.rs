//! Pure version negotiation (spec §5).
//!
//! This module owns the version window, the table of what each version adds, verb
//! availability per version, which response fields a version may carry, and the decision
//! taken on a client's `Hello`: `SUPPORTED`, `DEGRADED` or `Incompatible` with a reason and
//! a remediation naming the version to move to. It does no IO and reads no clock; it never
//! decides anything about tokens or tools (that is `session`'s check order, spec §6).

mod outcome;
mod window;

pub use outcome::{negotiate, Agreement, IncompatibleReason, Outcome};
pub use window::{
    first_version_with, unavailable_verbs, verb_available, VersionAddition, APPLY_OUTCOME_SINCE,
    LIFECYCLE_SCHEMA_VERSION, MAX_SUPPORTED, MIN_SUPPORTED, POLICY_SINCE, PROVENANCE_SINCE,
    VERSION_TABLE,
};
