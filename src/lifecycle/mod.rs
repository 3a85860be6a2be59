//! The lifecycle: the backend contract ([`Lifecycle`]) every runtime implements, and the
//! reference backend's building blocks: format-preserving settings edits with exact
//! reversal ([`edit`]), durable atomic writes ([`durable`]) and the cross-process
//! per-(tool, scope) lock ([`lock`]).
//!
//! This module owns what happens to a tool's configuration once a request is authorised.
//! It must never decide policy (ADR 0030 forbidden design 6), never report a protection
//! state that evidence does not support (forbidden design 4), never be reached without a
//! proof minted by [`crate::session`], never reserialise a user's whole settings document,
//! overwrite a file that does not parse, or store a prior value marked as withheld.

mod contract;
pub mod durable;
pub mod edit;
pub mod lock;

pub use contract::{Lifecycle, LifecycleError};
