//! A `status` answer written from its view straight to protobuf bytes.
//!
//! `status` is the answer a client asks for most (an IDE extension showing each tool's
//! state polls it). Building prost's `Response` first copies every token and sentence of
//! the view into a `String`, builds the whole `Response` message (every view of every verb
//! inline) and frees it all after encoding. This file owns the encoding that skips that
//! step, and it must never differ from prost's by one byte: it writes exactly what
//! `prost::Message::encode_raw` writes for [`StatusResponse::to_response`] (the rules in
//! [`super::direct_wire`]), `policy` only at DI-API ≥ [`POLICY_SINCE`] as
//! [`StatusView::to_wire`] does. The proptest `a_direct_status_answer_is_byte_identical_to_prost`
//! and the session fuzz harness hold it to that.

use bytes::BufMut;

use super::direct_wire::{
    message_field_len, put_message_header, put_response_head, put_string_element, put_string_field,
    put_varint_field, response_len, string_element_len, string_field_len, varint_field_len,
};
use super::{opt_text, EvidenceView, NextLevelView, PolicyView, StatusView};
use crate::verbs::Verb;
use crate::version::{ApiVersion, POLICY_SINCE};
use crate::wire::pb;

/// The answer to one `status` request: its id and the view, written to the wire without
/// building prost's structs (byte-identical to [`StatusResponse::to_response`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusResponse {
    /// The request this answers (`Response.request_id`).
    pub request_id: u64,
    /// The connection's negotiated version (it gates `policy`).
    pub version: ApiVersion,
    /// The answer (`Response.status`).
    pub view: StatusView,
}

// Field numbers of the messages written here (proto/devint.proto).
const RESPONSE_STATUS: u32 = 6;
const STATUS_TOOL_ID: u32 = 1;
const STATUS_PHASE: u32 = 2;
const STATUS_STATE: u32 = 3;
const STATUS_ACHIEVED_LEVEL: u32 = 4;
const STATUS_PLANNED_LEVEL: u32 = 5;
const STATUS_ADAPTER_CEILING: u32 = 6;
const STATUS_COMPATIBILITY: u32 = 7;
const STATUS_EVIDENCE: u32 = 8;
const STATUS_NEXT_LEVEL: u32 = 9;
const STATUS_OBSERVED_AT: u32 = 10;
const STATUS_DRIFT_MISMATCHED: u32 = 11;
const STATUS_STATE_REASON: u32 = 12;
const STATUS_STATE_REMEDIATION: u32 = 13;
const STATUS_POLICY: u32 = 14;
const EVIDENCE_MECHANISM: u32 = 1;
const EVIDENCE_KIND: u32 = 2;
const EVIDENCE_OUTCOME: u32 = 3;
const EVIDENCE_OBSERVED_AT: u32 = 4;
const EVIDENCE_DETAIL: u32 = 5;
const NEXT_LEVEL_LEVEL: u32 = 1;
const NEXT_LEVEL_BLOCKED_BECAUSE: u32 = 2;
const POLICY_STATE: u32 = 1;
const POLICY_SOURCE: u32 = 2;
const POLICY_DETAIL: u32 = 3;

impl StatusResponse {
    /// The same answer as prost's message (the reference the direct encoding must match).
    pub fn to_response(&self) -> pb::Response {
        pb::Response {
            request_id: self.request_id,
            verb: Verb::Status.to_wire() as i32,
            status: Some(Box::new(self.view.to_wire(self.version))),
            ..pb::Response::default()
        }
    }

    /// The encoded length of the `Response` message.
    pub fn encoded_len(&self) -> usize {
        response_len(
            self.request_id,
            Verb::Status,
            RESPONSE_STATUS,
            self.status_len(),
        )
    }

    /// Writes the `Response` message (no frame header) to `out`, which must have room for
    /// [`encoded_len`](Self::encoded_len) bytes.
    pub fn encode_raw(&self, out: &mut impl BufMut) {
        // spec[S6-ONE-VIEW] §6: exactly one view is set, `status`.
        put_response_head(
            self.request_id,
            Verb::Status,
            RESPONSE_STATUS,
            self.status_len(),
            out,
        );
        let v = &self.view;
        put_string_field(STATUS_TOOL_ID, v.tool_id.as_str(), out);
        put_string_field(STATUS_PHASE, v.phase.token(), out);
        put_string_field(STATUS_STATE, v.state.token(), out);
        put_string_field(STATUS_ACHIEVED_LEVEL, v.achieved_level.token(), out);
        put_string_field(STATUS_PLANNED_LEVEL, planned_level(v), out);
        put_string_field(STATUS_ADAPTER_CEILING, v.adapter_ceiling.token(), out);
        put_string_field(STATUS_COMPATIBILITY, v.compatibility.token(), out);
        for e in &v.evidence {
            put_message_header(STATUS_EVIDENCE, evidence_len(e), out);
            put_evidence(e, out);
        }
        if let Some(n) = &v.next_level {
            put_message_header(STATUS_NEXT_LEVEL, next_level_len(n), out);
            put_string_field(NEXT_LEVEL_LEVEL, n.level.token(), out);
            put_string_field(
                NEXT_LEVEL_BLOCKED_BECAUSE,
                opt_text(&n.blocked_because),
                out,
            );
        }
        put_varint_field(STATUS_OBSERVED_AT, v.observed_at_unix_secs.get(), out);
        for d in &v.drift_mismatched {
            put_string_element(STATUS_DRIFT_MISMATCHED, d.as_ref(), out);
        }
        put_string_field(STATUS_STATE_REASON, opt_text(&v.state_reason), out);
        put_string_field(
            STATUS_STATE_REMEDIATION,
            opt_text(&v.state_remediation),
            out,
        );
        if let Some(p) = self.policy() {
            put_message_header(STATUS_POLICY, policy_len(p), out);
            put_string_field(POLICY_STATE, p.state.token(), out);
            put_string_field(POLICY_SOURCE, opt_text(&p.source), out);
            put_string_field(POLICY_DETAIL, opt_text(&p.detail), out);
        }
    }

    /// The `StatusView` message's length.
    fn status_len(&self) -> usize {
        let v = &self.view;
        string_field_len(STATUS_TOOL_ID, v.tool_id.as_str())
            + string_field_len(STATUS_PHASE, v.phase.token())
            + string_field_len(STATUS_STATE, v.state.token())
            + string_field_len(STATUS_ACHIEVED_LEVEL, v.achieved_level.token())
            + string_field_len(STATUS_PLANNED_LEVEL, planned_level(v))
            + string_field_len(STATUS_ADAPTER_CEILING, v.adapter_ceiling.token())
            + string_field_len(STATUS_COMPATIBILITY, v.compatibility.token())
            + v.evidence
                .iter()
                .map(|e| message_field_len(STATUS_EVIDENCE, evidence_len(e)))
                .sum::<usize>()
            + v.next_level.as_ref().map_or(0, |n| {
                message_field_len(STATUS_NEXT_LEVEL, next_level_len(n))
            })
            + varint_field_len(STATUS_OBSERVED_AT, v.observed_at_unix_secs.get())
            + v.drift_mismatched
                .iter()
                .map(|d| string_element_len(STATUS_DRIFT_MISMATCHED, d.as_ref()))
                .sum::<usize>()
            + string_field_len(STATUS_STATE_REASON, opt_text(&v.state_reason))
            + string_field_len(STATUS_STATE_REMEDIATION, opt_text(&v.state_remediation))
            + self
                .policy()
                .map_or(0, |p| message_field_len(STATUS_POLICY, policy_len(p)))
    }

    /// The policy as [`StatusView::to_wire`] gates it: only at DI-API ≥ [`POLICY_SINCE`].
    fn policy(&self) -> Option<&PolicyView> {
        // spec[S5-FIELD-GATING] §5: v3 added `StatusView.policy`; we gate it too.
        if self.version.has(POLICY_SINCE) {
            self.view.policy.as_ref()
        } else {
            None
        }
    }
}

/// What `StatusView::to_wire` writes for the planned level: its token, or nothing.
fn planned_level(v: &StatusView) -> &str {
    v.planned_level.map_or("", |l| l.token())
}

fn evidence_len(e: &EvidenceView) -> usize {
    string_field_len(EVIDENCE_MECHANISM, e.mechanism.as_str())
        + string_field_len(EVIDENCE_KIND, e.evidence.kind().token())
        + string_field_len(EVIDENCE_OUTCOME, e.evidence.outcome_token())
        + varint_field_len(EVIDENCE_OBSERVED_AT, e.observed_at_unix_secs.get())
        + string_field_len(EVIDENCE_DETAIL, opt_text(&e.detail))
}

fn put_evidence(e: &EvidenceView, out: &mut impl BufMut) {
    put_string_field(EVIDENCE_MECHANISM, e.mechanism.as_str(), out);
    put_string_field(EVIDENCE_KIND, e.evidence.kind().token(), out);
    put_string_field(EVIDENCE_OUTCOME, e.evidence.outcome_token(), out);
    put_varint_field(EVIDENCE_OBSERVED_AT, e.observed_at_unix_secs.get(), out);
    put_string_field(EVIDENCE_DETAIL, opt_text(&e.detail), out);
}

fn next_level_len(n: &NextLevelView) -> usize {
    string_field_len(NEXT_LEVEL_LEVEL, n.level.token())
        + string_field_len(NEXT_LEVEL_BLOCKED_BECAUSE, opt_text(&n.blocked_because))
}

fn policy_len(p: &PolicyView) -> usize {
    string_field_len(POLICY_STATE, p.state.token())
        + string_field_len(POLICY_SOURCE, opt_text(&p.source))
        + string_field_len(POLICY_DETAIL, opt_text(&p.detail))
}
