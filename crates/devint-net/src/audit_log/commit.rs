//! The bounded queue of refusals' records waiting for group commit, shared by the callers of
//! `record_deferred` and the committer thread.
//!
//! A producer never waits for the disk, only for room when the queue is full; the committer
//! sleeps only when there is nothing queued, and is woken (one futex call) only by the
//! record that ends its sleep — a burst of refusals wakes it once. This module owns the
//! queue's bookkeeping, never the file.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Condvar, Mutex, MutexGuard};

use devint::audit::{AuditError, AuditEvent};

/// Refusal records queued at most, by default (the loss window: see the module doc of
/// `audit_log`).
pub const DEFERRED_CAPACITY: usize = 1024;

#[derive(Debug)]
pub(super) struct Queue {
    state: Mutex<State>,
    /// The committer waits here for records.
    work: Condvar,
    /// Producers wait here for room; `flush` for the queue to drain.
    progress: Condvar,
}

#[derive(Debug)]
struct State {
    events: VecDeque<AuditEvent>,
    capacity: usize,
    /// Batches taken and not yet written.
    writing: usize,
    /// The committer is asleep on `work`.
    committer_asleep: bool,
    /// The log is being dropped: the committer drains the queue and stops.
    closing: bool,
    /// The last batch the disk refused since the last `flush`.
    failure: Option<LostBatch>,
}

/// A batch of queued records the disk refused.
#[derive(Debug, Clone, Copy)]
pub(super) struct LostBatch {
    records: usize,
    action: &'static str,
    kind: std::io::ErrorKind,
    os_error: Option<i32>,
}

impl LostBatch {
    /// The error `flush` returns for it.
    pub(super) fn into_error(self, path: &Path) -> AuditError {
        let source = match self.os_error {
            Some(code) => std::io::Error::from_raw_os_error(code),
            None => std::io::Error::new(
                self.kind,
                format!("{} queued audit records lost", self.records),
            ),
        };
        AuditError::Io {
            action: self.action,
            path: path.to_path_buf(),
            source,
        }
    }
}

impl Queue {
    pub(super) fn new(capacity: usize) -> Queue {
        Queue {
            state: Mutex::new(State {
                events: VecDeque::new(),
                capacity: capacity.max(1),
                writing: 0,
                committer_asleep: false,
                closing: false,
                failure: None,
            }),
            work: Condvar::new(),
            progress: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queue `event`, waiting for room while the queue is full.
    pub(super) fn push(&self, event: AuditEvent) {
        let mut state = self.lock();
        while state.events.len() >= state.capacity && !state.closing {
            state = self.progress.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        state.events.push_back(event);
        if state.committer_asleep {
            state.committer_asleep = false;
            self.work.notify_one();
        }
    }

    /// Everything queued now (for a durable record, which writes them ahead of its own).
    /// Counted as a batch being written until [`Queue::batch_done`].
    pub(super) fn take_all(&self) -> Vec<AuditEvent> {
        let mut state = self.lock();
        let batch: Vec<AuditEvent> = state.events.drain(..).collect();
        if !batch.is_empty() {
            state.writing += 1;
            self.progress.notify_all();
        }
        batch
    }

    /// The committer waits until something is queued (`true`), or until the log is closing
    /// with nothing left (`false`). It takes nothing: the batch is taken with
    /// [`Queue::take_all`] under the file's lock, so the order on disk is the order records
    /// were made in.
    pub(super) fn wait_for_work(&self) -> bool {
        let mut state = self.lock();
        while state.events.is_empty() {
            if state.closing {
                return false;
            }
            state.committer_asleep = true;
            state = self.work.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        state.committer_asleep = false;
        true
    }

    /// A batch taken by [`Queue::take_all`] was written (or lost).
    pub(super) fn batch_done(&self) {
        let mut state = self.lock();
        state.writing -= 1;
        self.progress.notify_all();
    }

    /// `records` queued records were refused by the disk: logged now, kept for `flush`.
    pub(super) fn lost(&self, records: usize, error: &AuditError) {
        tracing::error!(%error, records, "queued audit records could not be written and are lost");
        let (action, kind, os_error) = match error {
            AuditError::Io { action, source, .. } => {
                (*action, source.kind(), source.raw_os_error())
            }
            _ => ("append to", std::io::ErrorKind::Other, None),
        };
        let mut state = self.lock();
        let earlier = state.failure.map_or(0, |f| f.records);
        state.failure = Some(LostBatch {
            records: earlier + records,
            action,
            kind,
            os_error,
        });
    }

    /// Wait until nothing is queued or being written.
    pub(super) fn wait_drained(&self) {
        let mut state = self.lock();
        while !state.events.is_empty() || state.writing > 0 {
            state = self.progress.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// The failure kept since the last `flush`, cleared.
    pub(super) fn take_failure(&self) -> Option<LostBatch> {
        self.lock().failure.take()
    }

    /// The log is being dropped: wake the committer to drain and stop.
    pub(super) fn close(&self) {
        let mut state = self.lock();
        state.closing = true;
        self.work.notify_all();
        self.progress.notify_all();
    }
}
