//! [`Server`]: the builder a runtime author uses, and what every connection task shares.

// Under `--cfg loom` the socket half (accept, connection) is left out, so the shared state
// has no reader there.
#![cfg_attr(loom, allow(dead_code))]

use std::sync::Arc;

use devint::audit::{AuditEvent, AuditSink};
use devint::auth::TokenResolver;
use devint::backend::Lifecycle;
use devint::wire::pb;

use super::config::Limits;
use super::slots::ConnectionSlots;

/// A provenance snapshot source (spec §8), evaluated at each `HelloAck` of version ≥ 4.
pub type ProvenanceFn = dyn Fn() -> pb::RuntimeProvenance + Send + Sync;

/// Everything the connection tasks share.
pub(crate) struct Shared {
    pub(crate) resolver: Arc<dyn TokenResolver>,
    pub(crate) backend: Arc<dyn Lifecycle>,
    pub(crate) audit: Arc<dyn AuditSink>,
    pub(crate) limits: Limits,
    pub(crate) slots: ConnectionSlots,
    pub(crate) core_version: String,
    pub(crate) provenance: Arc<ProvenanceFn>,
}

impl Shared {
    /// Record an audit event, durably before returning when the sink is durable (a
    /// mutation's record, before its answer); a failing sink is reported, never silently
    /// dropped.
    pub(crate) fn record(&self, event: &AuditEvent) {
        if let Err(error) = self.audit.record(event) {
            tracing::error!(%error, kind = ?event.kind, "audit sink failed to record an event");
        }
    }

    /// Record a refusal's audit event without waiting for the disk (the sink's group
    /// commit): the refusal's answer does not wait for it.
    pub(crate) fn record_refusal(&self, event: &AuditEvent) {
        if let Err(error) = self.audit.record_deferred(event) {
            tracing::error!(%error, kind = ?event.kind, "audit sink failed to record an event");
        }
    }
}

/// The DI-API server a runtime embeds: the enrolment book, a backend, an audit sink and
/// limits. Build it, then [`Server::serve`] on a securely bound socket.
pub struct Server {
    pub(crate) shared: Arc<Shared>,
}

/// Builds a [`Server`].
pub struct ServerBuilder {
    resolver: Arc<dyn TokenResolver>,
    backend: Arc<dyn Lifecycle>,
    audit: Arc<dyn AuditSink>,
    limits: Limits,
    core_version: String,
    provenance: Option<Arc<ProvenanceFn>>,
}

impl Server {
    /// Start building a server over `book` (usually a [`crate::book::SharedBook`]),
    /// `backend` and `audit`.
    pub fn builder(
        book: Arc<dyn TokenResolver>,
        backend: Arc<dyn Lifecycle>,
        audit: Arc<dyn AuditSink>,
    ) -> ServerBuilder {
        ServerBuilder {
            resolver: book,
            backend,
            audit,
            limits: Limits::default(),
            core_version: env!("CARGO_PKG_VERSION").to_owned(),
            provenance: None,
        }
    }

    /// Connections open now.
    pub fn open_connections(&self) -> usize {
        self.shared.slots.open()
    }
}

impl ServerBuilder {
    /// Replace the default limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// `HelloAck.core_version` (default: this crate's version).
    pub fn core_version(mut self, version: &str) -> Self {
        self.core_version = version.to_owned();
        self
    }

    /// The provenance source (default: captured from this process at build time).
    pub fn provenance(mut self, source: Arc<ProvenanceFn>) -> Self {
        self.provenance = Some(source);
        self
    }

    /// Finish.
    pub fn build(self) -> Server {
        let provenance = self.provenance.unwrap_or_else(|| {
            let captured = crate::provenance::RuntimeProvenance::capture();
            Arc::new(move || captured.to_wire())
        });
        Server {
            shared: Arc::new(Shared {
                slots: ConnectionSlots::new(
                    self.limits.max_connections,
                    self.limits.max_connections_per_uid,
                ),
                resolver: self.resolver,
                backend: self.backend,
                audit: self.audit,
                limits: self.limits,
                core_version: self.core_version,
                provenance,
            }),
        }
    }
}
