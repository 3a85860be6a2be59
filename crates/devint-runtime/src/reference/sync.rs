//! The lock used by the in-memory plan store: `loom`'s under `cfg(loom)` so the model
//! checker can explore every interleaving of plan consumption, `std`'s otherwise. Nothing
//! else in the reference backend's in-memory state may take a lock directly.

#[cfg(loom)]
pub(crate) use loom::sync::Mutex;
#[cfg(not(loom))]
pub(crate) use std::sync::Mutex;
