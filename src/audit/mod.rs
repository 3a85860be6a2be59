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

/// The mutation an audit record names is the verb table's mutation column.
pub use crate::verbs::MutationVerb;
/// Tool ids are recorded through [`ToolRef`] (defined beside `ToolId` in [`crate::verbs`]).
pub use crate::verbs::{ToolRef, INVALID_TOOL_MARKER, TOOL_REF_MAX, TOOL_REF_MAX_HEX_RUN};
pub use event::{
    AuditEvent, AuditKind, AuditOutcome, AuthFailureReason, ConnectionLimit, EvictedStage,
    FrameRefusal, MutationOutcome, NegotiationFailure,
};
pub use sink::{AuditError, AuditSink, FanoutSink, MemoryAuditSink, TracingAuditSink};
