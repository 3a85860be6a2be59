//! The lifecycle: the backend contract ([`Lifecycle`]) every runtime implements, and the
//! reference backend's building blocks.
//!
//! This module owns what happens to a tool's configuration once a request is authorised.
//! It must never decide policy (ADR 0030 forbidden design 6), never report a protection
//! state that evidence does not support (forbidden design 4), and never be reached without
//! a proof minted by [`crate::session`].

mod contract;

pub use contract::{Lifecycle, LifecycleError};
