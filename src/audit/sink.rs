//! [`AuditSink`] and the simple sinks: [`TracingAuditSink`], [`MemoryAuditSink`],
//! [`FanoutSink`].

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::event::AuditEvent;

/// An audit sink could not record an event. Never swallowed: the caller decides what a
/// lost audit record means (the server logs it and keeps the connection's answer).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// Writing or syncing the log failed.
    #[error("could not {action} the audit log {}: {source}", path.display())]
    Io {
        /// What we were doing.
        action: &'static str,
        /// The log file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The existing log's hash chain is broken, so appending would hide the damage.
    #[error("the audit log {} is damaged at line {line} (edited or truncated); move it aside to keep it as evidence, and a new log will be started", path.display())]
    ChainBroken {
        /// The log file.
        path: PathBuf,
        /// The first bad line (1-based).
        line: usize,
    },
    /// Group or others can read or write the log, or it is not ours.
    #[error("the audit log {} must be a regular file of mode 0600 owned by you; run `chmod 600 {}` or move it aside", path.display(), path.display())]
    Exposed {
        /// The log file.
        path: PathBuf,
    },
    /// The event could not be serialised.
    #[error("could not serialise an audit event: {0}")]
    Serialize(#[from] serde_json::Error),
    /// Another thread panicked while recording.
    #[error("the audit sink is unusable after a panic in another thread; restart the server")]
    Poisoned,
}

/// Where audit events go. A sink that fails to record returns the error; it never drops an
/// event silently.
pub trait AuditSink: Send + Sync {
    /// Record one event; a durable sink returns once the event is durable.
    fn record(&self, event: &AuditEvent) -> Result<(), AuditError>;

    /// Record one event without waiting until it is durable: a sink that can take the write
    /// off the caller's path (group commit) queues it and returns; it still never drops the
    /// event silently. A server uses this for refusals, whose answer need not wait for the
    /// disk, and [`AuditSink::record`] for mutations. The default records now.
    fn record_deferred(&self, event: &AuditEvent) -> Result<(), AuditError> {
        self.record(event)
    }
}

/// Emits each event as one `tracing` event at `INFO` on target `devint::audit`, with the
/// record as JSON in the `audit` field.
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingAuditSink;

impl AuditSink for TracingAuditSink {
    fn record(&self, event: &AuditEvent) -> Result<(), AuditError> {
        let json = event.to_json()?;
        tracing::info!(target: "devint::audit", audit = %json);
        Ok(())
    }
}

/// Keeps events in memory, for tests.
#[derive(Debug, Default)]
pub struct MemoryAuditSink {
    events: Mutex<Vec<AuditEvent>>,
}

impl MemoryAuditSink {
    /// An empty sink.
    pub fn new() -> MemoryAuditSink {
        MemoryAuditSink::default()
    }

    /// Every event recorded so far, in order.
    pub fn events(&self) -> Vec<AuditEvent> {
        self.events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

impl AuditSink for MemoryAuditSink {
    fn record(&self, event: &AuditEvent) -> Result<(), AuditError> {
        self.events
            .lock()
            .map_err(|_| AuditError::Poisoned)?
            .push(event.clone());
        Ok(())
    }
}

/// Records every event in each of several sinks. Every sink is tried; the first error is
/// returned.
#[derive(Clone, Default)]
pub struct FanoutSink {
    sinks: Vec<Arc<dyn AuditSink>>,
}

impl std::fmt::Debug for FanoutSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FanoutSink")
            .field("sinks", &self.sinks.len())
            .finish()
    }
}

impl FanoutSink {
    /// Fan out to `sinks`.
    pub fn new(sinks: Vec<Arc<dyn AuditSink>>) -> FanoutSink {
        FanoutSink { sinks }
    }
}

impl FanoutSink {
    fn each(
        &self,
        record: impl Fn(&dyn AuditSink) -> Result<(), AuditError>,
    ) -> Result<(), AuditError> {
        let mut first_error = None;
        for sink in &self.sinks {
            if let Err(e) = record(&**sink) {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl AuditSink for FanoutSink {
    fn record(&self, event: &AuditEvent) -> Result<(), AuditError> {
        self.each(|sink| sink.record(event))
    }

    fn record_deferred(&self, event: &AuditEvent) -> Result<(), AuditError> {
        self.each(|sink| sink.record_deferred(event))
    }
}
