//! [`LifecycleError`]: what a backend call may fail with. Its own file, below both the
//! contract that returns it and the cancellation signal that produces one, so neither
//! depends on the other through it. It must never carry anything but checked sentences.

use crate::verbs::Sentence;

/// What a backend call may fail with; the session maps it to `Denied` (spec §6).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LifecycleError {
    /// No adapter knows the tool (`UNKNOWN_TOOL`).
    #[error("no adapter knows this tool")]
    UnknownTool,
    /// The call was refused or failed (`LIFECYCLE_ERROR`): unknown or expired plan, a
    /// refusal, a failure.
    #[error("{message}")]
    Lifecycle {
        /// A short coarse sentence.
        message: Sentence,
        /// What to do; never empty.
        remediation: Sentence,
    },
}

impl LifecycleError {
    /// A `LIFECYCLE_ERROR` with a message and a remediation.
    pub fn refused(message: Sentence, remediation: Sentence) -> LifecycleError {
        LifecycleError::Lifecycle {
            message,
            remediation,
        }
    }
}
