//! `lifecycle` — the file-level foundations of the reference lifecycle backend.
//!
//! Owns format-preserving settings edits with exact reversal ([`edit`]), durable atomic
//! writes ([`durable`]) and the cross-process per-(tool, scope) lock ([`lock`]). It must never
//! reserialise a user's whole settings document, overwrite a file that does not parse, or
//! store a prior value the caller marked as withheld.

pub mod durable;
pub mod edit;
pub mod lock;
