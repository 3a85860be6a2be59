//! A `list_tools` answer written from its view straight to protobuf bytes.
//!
//! `list_tools` is the largest answer a runtime gives (every known tool × 12 capabilities: tens of KB).
//! Building prost's `Response` first copies every token and sentence into a `String` and
//! frees them all after encoding: ~900 allocations per answer. This file owns the one
//! encoding that skips that step, and it must never differ from prost's by one byte: it
//! writes exactly what `prost::Message::encode_raw` writes for
//! [`ToolListResponse::to_response`] (fields in tag order, by the rules of
//! [`super::direct_wire`]). The proptest `a_direct_tool_list_answer_is_byte_identical_to_prost`
//! and the session fuzz harness hold it to that.

use bytes::BufMut;

use super::direct_wire::{
    bool_field_len, message_field_len, put_bool_field, put_message_header, put_response_head,
    put_string_field, response_len, string_field_len,
};
use super::{opt_text, CapabilityView, ToolList, ToolSummary};
use crate::verbs::Verb;
use crate::version::ApiVersion;
use crate::wire::pb;

/// The answer to one `list_tools` request: its id and the list, written to the wire
/// without building prost's structs (byte-identical to [`ToolListResponse::to_response`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolListResponse {
    /// The request this answers (`Response.request_id`).
    pub request_id: u64,
    /// The connection's negotiated version. No `ToolList` field is version-gated today; one
    /// added behind a gate must be gated in [`encode_raw`](Self::encode_raw) too.
    pub version: ApiVersion,
    /// The answer (`Response.tool_list`).
    pub list: ToolList,
}

// Field numbers of the messages written here (proto/devint.proto).
const RESPONSE_TOOL_LIST: u32 = 3;
const TOOL_LIST_TOOLS: u32 = 1;
const SUMMARY_TOOL_ID: u32 = 1;
const SUMMARY_DISPLAY_NAME: u32 = 2;
const SUMMARY_DETECTED: u32 = 3;
const SUMMARY_DETECTED_VERSION: u32 = 4;
const SUMMARY_COMPATIBILITY: u32 = 5;
const SUMMARY_CAPABILITIES: u32 = 6;
const SUMMARY_ADAPTER_CEILING: u32 = 7;
const CAPABILITY_CAPABILITY: u32 = 1;
const CAPABILITY_SUPPORT: u32 = 2;
const CAPABILITY_REASON: u32 = 3;

impl ToolListResponse {
    /// The same answer as prost's message (the reference the direct encoding must match).
    pub fn to_response(&self) -> pb::Response {
        pb::Response {
            request_id: self.request_id,
            verb: Verb::ListTools.to_wire() as i32,
            tool_list: Some(self.list.to_wire(self.version)),
            ..pb::Response::default()
        }
    }

    /// The encoded length of the `Response` message.
    pub fn encoded_len(&self) -> usize {
        response_len(
            self.request_id,
            Verb::ListTools,
            RESPONSE_TOOL_LIST,
            tool_list_len(&self.list),
        )
    }

    /// Writes the `Response` message (no frame header) to `out`, which must have room for
    /// [`encoded_len`](Self::encoded_len) bytes.
    pub fn encode_raw(&self, out: &mut impl BufMut) {
        // spec[S6-ONE-VIEW] §6: exactly one view is set, `tool_list`.
        put_response_head(
            self.request_id,
            Verb::ListTools,
            RESPONSE_TOOL_LIST,
            tool_list_len(&self.list),
            out,
        );
        for tool in &self.list.tools {
            put_message_header(TOOL_LIST_TOOLS, summary_len(tool), out);
            put_summary(tool, out);
        }
    }
}

fn tool_list_len(list: &ToolList) -> usize {
    list.tools
        .iter()
        .map(|t| message_field_len(TOOL_LIST_TOOLS, summary_len(t)))
        .sum()
}

fn summary_len(t: &ToolSummary) -> usize {
    string_field_len(SUMMARY_TOOL_ID, t.tool_id.as_str())
        + string_field_len(SUMMARY_DISPLAY_NAME, t.display_name.as_str())
        + bool_field_len(SUMMARY_DETECTED, t.detected)
        + string_field_len(SUMMARY_DETECTED_VERSION, detected_version(t))
        + string_field_len(SUMMARY_COMPATIBILITY, t.compatibility.token())
        + t.capabilities
            .iter()
            .map(|c| message_field_len(SUMMARY_CAPABILITIES, capability_len(c)))
            .sum::<usize>()
        + string_field_len(SUMMARY_ADAPTER_CEILING, t.adapter_ceiling.token())
}

fn put_summary(t: &ToolSummary, out: &mut impl BufMut) {
    put_string_field(SUMMARY_TOOL_ID, t.tool_id.as_str(), out);
    put_string_field(SUMMARY_DISPLAY_NAME, t.display_name.as_str(), out);
    put_bool_field(SUMMARY_DETECTED, t.detected, out);
    put_string_field(SUMMARY_DETECTED_VERSION, detected_version(t), out);
    put_string_field(SUMMARY_COMPATIBILITY, t.compatibility.token(), out);
    for c in &t.capabilities {
        put_message_header(SUMMARY_CAPABILITIES, capability_len(c), out);
        put_string_field(CAPABILITY_CAPABILITY, c.capability.token(), out);
        put_string_field(CAPABILITY_SUPPORT, c.support.token(), out);
        put_string_field(CAPABILITY_REASON, opt_text(&c.reason), out);
    }
    put_string_field(SUMMARY_ADAPTER_CEILING, t.adapter_ceiling.token(), out);
}

fn capability_len(c: &CapabilityView) -> usize {
    string_field_len(CAPABILITY_CAPABILITY, c.capability.token())
        + string_field_len(CAPABILITY_SUPPORT, c.support.token())
        + string_field_len(CAPABILITY_REASON, opt_text(&c.reason))
}

/// What `ToolSummary::to_wire` writes for the version: the label, or nothing.
fn detected_version(t: &ToolSummary) -> &str {
    t.detected_version.as_ref().map_or("", |v| v.as_str())
}
