//! The lock used by the in-memory book: `loom`'s under `cfg(loom)` so the model checker can
//! explore every interleaving, `std`'s otherwise. Nothing else in `auth` may take a lock
//! directly.

#[cfg(loom)]
pub(crate) use loom::sync::RwLock;
#[cfg(not(loom))]
pub(crate) use std::sync::RwLock;
