//! # devint-runtime — the reference runtime of the DI-API
//!
//! A real [`Lifecycle`](devint::backend::Lifecycle) backend on real files — the one
//! `devint serve` runs — with what it needs and nothing more: no tokio, no sockets, no
//! command-line parser. It implements the core's backend contract and reads the proofs the
//! session mints; it never sees a frame.
//!
//! | module | owns |
//! |---|---|
//! | [`reference`](mod@reference) | the backend: plans, the write-ahead journal, receipts, drift, repair, removal, the protection ladder |
//! | [`edit`] | format-preserving settings edits (JSON, JSONC, TOML) with exact reversal |
//! | [`adapters`] | one descriptor per tool (a4aa's rule: tool knowledge lives here, never in the core) and the shared engine |
//!
//! It must never decide policy (ADR 0030 forbidden design 6), never report a protection
//! state that evidence does not support (forbidden design 4), never reserialise a user's
//! whole settings document, overwrite a file that does not parse, or store a prior value
//! marked as withheld. Adapters are linked at build time; nothing is loaded dynamically
//! (forbidden design 8).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adapters;
pub mod edit;
pub mod reference;
