//! [`CancelSignal`]: a request's cancellation, raised by the server shell and read by the
//! backend.
//!
//! The shell raises it when a request passes its deadline or its connection is gone. A
//! backend call that mutates checks it ([`CancelSignal::check`]) at each stage before its
//! point of no return (for the reference runtime: before the settings file is written) and,
//! when it is raised, stops there with nothing applied; past that point it runs to
//! completion and reports its real outcome. A read-only call may stop at any point. Nothing
//! here reads a clock or does IO: it is one shared flag.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::contract::LifecycleError;
use crate::verbs::Sentence;

/// One request's cancellation flag; clones share it.
#[derive(Debug, Clone, Default)]
pub struct CancelSignal(Arc<AtomicBool>);

impl CancelSignal {
    /// A signal not raised yet.
    pub fn new() -> CancelSignal {
        CancelSignal::default()
    }

    /// Raise it: the request passed its deadline or nobody waits for its answer any more.
    pub fn raise(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether it was raised.
    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// `Ok` while not raised; once raised, the one refusal every backend gives for a change
    /// it stopped before its point of no return ("not applied", `LIFECYCLE_ERROR`).
    pub fn check(&self) -> Result<(), LifecycleError> {
        if self.is_raised() {
            return Err(LifecycleError::refused(
                Sentence::from_static(
                    "not applied: the request passed its deadline before anything was changed",
                ),
                Sentence::from_static("plan again and apply the new plan"),
            ));
        }
        Ok(())
    }
}
