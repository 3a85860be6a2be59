//! Pure version negotiation (spec §5).
//!
//! This module owns verb availability per version and the decision taken on a client's
//! `Hello`: `SUPPORTED`, `DEGRADED` or `Incompatible` with a reason and a remediation naming
//! the version to move to. The numbers it decides with (the window, the schema version, what
//! each version adds) live in [`crate::version`]. It does no IO and reads no clock; it never
//! decides anything about tokens or tools (that is `session`'s check order, spec §6).

mod outcome;
mod window;

pub use outcome::{negotiate, Agreement, IncompatibleReason, Outcome};
pub use window::{first_version_with, unavailable_verbs, verb_available};
