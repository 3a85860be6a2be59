//! The audit obligation (spec §10): the typed [`AuditEvent`] and the sinks it goes to.
//!
//! This module owns what an audit record can say — two classes of event only:
//! authentication/authorization failures (including rejected peers, failed negotiations,
//! refused frames and connections) and lifecycle mutations with their outcome — and where
//! records go ([`AuditSink`]: [`TracingAuditSink`], [`MemoryAuditSink`], [`FanoutSink`]; the
//! durable hash-chained file is `devint_net::audit_log::JsonLinesAuditLog`).
//!
//! It must never: hold a token value or protected content, grow a free-form field (a test
//! pins the field set), invent a token id for a denial that reached no record, read the
//! clock, or drop an event silently when a sink fails.

mod event;
mod sink;

pub use event::{
    AuditEvent, AuditKind, AuditOutcome, AuthFailureReason, ConnectionLimit, EvictedStage,
    FrameRefusal, MutationOutcome, NegotiationFailure,
};
pub use sink::{AuditError, AuditSink, FanoutSink, MemoryAuditSink, TracingAuditSink};
