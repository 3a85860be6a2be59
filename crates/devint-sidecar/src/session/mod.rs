//! Sessions: each one a negotiated, authorised connection to a runtime, owned by its own
//! task with a bounded queue, so several are open at once and each answers in order.
//!
//! This module owns opening ([`open`]: connect → negotiate → standing → token), the session
//! task (`task`) and the handle the dispatcher queues calls on ([`SessionHandle`]). It
//! must never let two calls of one session overlap, and never hold more queued calls than
//! the bound.

mod open;
mod task;

pub use open::{discover, open, Opened};

use tokio::sync::mpsc;

use crate::error::{ErrorKind, SidecarError};
use crate::outbox::Outbox;
use crate::params::SessionCall;
use crate::rpc::RequestId;

/// One queued call and the request it answers.
#[derive(Debug)]
pub struct Job {
    /// The request's id.
    pub id: RequestId,
    /// What to do.
    pub call: SessionCall,
}

/// The dispatcher's handle on a session's queue.
#[derive(Debug, Clone)]
pub struct SessionHandle {
    jobs: mpsc::Sender<Job>,
}

impl SessionHandle {
    /// Start the task of a session that opened, named `id`; it answers on `out`. The task
    /// ends when every handle is dropped (after answering what was queued) or after a
    /// `session/close`.
    pub fn spawn(
        id: String,
        opened: Opened,
        out: Outbox,
        max_pending: usize,
        max_follows: usize,
    ) -> (SessionHandle, tokio::task::JoinHandle<()>) {
        let (jobs, rx) = mpsc::channel(max_pending.max(1));
        let session = task::Session::new(id, opened, out, max_follows);
        let task = tokio::spawn(session.run(rx));
        (SessionHandle { jobs }, task)
    }

    /// Queue `job` behind everything sent on this session before.
    pub fn queue(&self, job: Job) -> Result<(), SidecarError> {
        self.jobs.try_send(job).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => SidecarError::new(
                ErrorKind::Limit,
                "too many requests are waiting on this session",
            )
            .fix("wait for answers before sending more, or open another session"),
            mpsc::error::TrySendError::Closed(_) => {
                SidecarError::new(ErrorKind::UnknownSession, "the session has ended")
                    .fix("open a new session")
            }
        })
    }
}
