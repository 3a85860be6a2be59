//! Provenance (spec §8): which build a runtime is, whether the runtime that answered is the
//! one this client was built with, and whether it is the only one reachable.
//!
//! This module owns the build identity compiled in by `build.rs` ([`BuildIdentity`]), the
//! three-state comparison ([`compare`]), the client's [`Standing`] and what it permits, and
//! the one rule that defers judging a runtime being upgraded to this client's own binary
//! ([`upgrade_in_progress`]: ask again, never proceed).
//! The runtime's self-description captured at start and the multiplicity scan read the OS,
//! so they live in `devint-net` (`devint_net::provenance`). It must never let pid, paths,
//! the DI-API version or the package version upgrade a verdict, and never treat two unknown
//! identities as a match.

mod compare;
mod identity;
mod standing;
mod upgrade;

pub use compare::{compare, compare_identities, Comparison, FieldReport, FieldState, Verdict};
pub use identity::{BuildIdSource, BuildIdentity};
pub use standing::{
    Permit, RefutedBecause, Standing, StandingRefusal, UnverifiableBecause, EXIT_REFUTED,
    EXIT_UNVERIFIABLE,
};
pub use upgrade::{
    upgrade_in_progress, ExecutableSighting, SightedFile, REPLACING_WINDOW, UPGRADE_WINDOW,
};
