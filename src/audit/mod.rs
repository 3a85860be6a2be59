//! The audit obligation (spec §10): the typed [`AuditEvent`] and the sinks it goes to.
//!
//! This module owns what an audit record can say — two classes of event only:
//! authentication/authorization failures (including rejected peers, failed negotiations,
//! refused frames and connections) and lifecycle mutations with their outcome — and where
//! records go ([`AuditSink`]: [`JsonLinesAuditLog`], [`TracingAuditSink`],
//! [`MemoryAuditSink`], [`FanoutSink`]).
//!
//! It must never: hold a token value or protected content, grow a free-form field (a test
//! pins the field set), invent a token id for a denial that reached no record, read the
//! clock, or drop an event silently when a sink fails.

mod event;
mod json_lines;
mod sink;

pub use event::{
    AuditEvent, AuditKind, AuditOutcome, AuthFailureReason, ConnectionLimit, FrameRefusal,
    MutationOutcome, MutationVerb, NegotiationFailure, ToolRef, INVALID_TOOL_MARKER, TOOL_REF_MAX,
    TOOL_REF_MAX_HEX_RUN,
};
pub use json_lines::{verify, ChainHead, JsonLinesAuditLog, VerifyError};
pub use sink::{AuditError, AuditSink, FanoutSink, MemoryAuditSink, TracingAuditSink};
