//! Provenance (spec §8): which build a runtime is, whether the runtime that answered is the
//! one this client was built with, and whether it is the only one reachable.
//!
//! This module owns the build identity compiled in by `build.rs` ([`BuildIdentity`]), the
//! three-state comparison ([`compare`]), and the client's [`Standing`] and what it permits.
//! The runtime's self-description captured at start and the multiplicity scan read the OS,
//! so they live in `devint-net` (`devint_net::provenance`). It must never let pid, paths,
//! the DI-API version or the package version upgrade a verdict, and never treat two unknown
//! identities as a match.

mod compare;
mod identity;
mod standing;

pub use compare::{compare, compare_identities, Comparison, FieldReport, FieldState, Verdict};
pub use identity::{BuildIdSource, BuildIdentity};
pub use standing::{
    Permit, RefutedBecause, Standing, StandingRefusal, UnverifiableBecause, EXIT_REFUTED,
    EXIT_UNVERIFIABLE,
};
