//! Provenance (spec §8): which build a runtime is, whether the runtime that answered is the
//! one this client was built with, and whether it is the only one reachable.
//!
//! This module owns the build identity compiled in by `build.rs` ([`BuildIdentity`]), the
//! runtime's self-description captured at start ([`RuntimeProvenance`]), the three-state
//! comparison ([`compare`]), the client's [`Standing`] and what it permits, and the
//! multiplicity scan ([`scan_runtimes`]). It must never let pid, paths, the DI-API version
//! or the package version upgrade a verdict, never treat two unknown identities as a match,
//! and never send a byte while scanning.

mod compare;
mod identity;
mod runtime;
mod scan;
mod standing;

pub use compare::{compare, compare_identities, Comparison, FieldReport, FieldState, Verdict};
pub use identity::{BuildIdSource, BuildIdentity};
pub use runtime::RuntimeProvenance;
pub use scan::{is_runtime_socket_name, scan_runtimes};
pub use standing::{
    is_privileged, Permit, RefutedBecause, Standing, StandingRefusal, UnverifiableBecause,
    EXIT_REFUTED, EXIT_UNVERIFIABLE,
};
