//! Writing protobuf fields straight from a view, exactly as `prost::Message::encode_raw`
//! writes them: proto3 leaves out an empty string, a `false` and a zero; a set message field
//! is written even when its body is empty; every element of a repeated field is written,
//! empty ones included. The answers written without building prost's structs
//! ([`super::ToolListResponse`], [`super::StatusResponse`]) use these and nothing else, so
//! the rules live here once.

use bytes::BufMut;
use prost::encoding::{encode_key, encode_varint, encoded_len_varint, key_len, WireType};

use crate::verbs::Verb;

// Field numbers of `Response` (proto/devint.proto); each answer's file has its view's.
const RESPONSE_REQUEST_ID: u32 = 1;
const RESPONSE_VERB: u32 = 2;

/// The length of a `Response` to `verb` answering `request_id`, whose one view, at field
/// `view_tag`, is `view_len` bytes.
pub(super) fn response_len(request_id: u64, verb: Verb, view_tag: u32, view_len: usize) -> usize {
    varint_field_len(RESPONSE_REQUEST_ID, request_id)
        + varint_field_len(RESPONSE_VERB, verb_value(verb))
        + message_field_len(view_tag, view_len)
}

/// Writes that `Response`'s id, its verb, and its view's key and length; the view's fields
/// follow.
pub(super) fn put_response_head(
    request_id: u64,
    verb: Verb,
    view_tag: u32,
    view_len: usize,
    out: &mut impl BufMut,
) {
    // spec[S6-ECHO] §6: `Response.request_id` and `Response.verb` echo the request.
    put_varint_field(RESPONSE_REQUEST_ID, request_id, out);
    put_varint_field(RESPONSE_VERB, verb_value(verb), out);
    put_message_header(view_tag, view_len, out);
}

/// `Response.verb` for `verb`, as prost writes an enum (an `int32` varint).
fn verb_value(verb: Verb) -> u64 {
    // A non-negative enum value; prost sign-extends negatives, which no verb is.
    verb.to_wire() as i32 as u64
}

pub(super) fn varint_field_len(tag: u32, value: u64) -> usize {
    if value == 0 {
        0
    } else {
        key_len(tag) + encoded_len_varint(value)
    }
}

pub(super) fn put_varint_field(tag: u32, value: u64, out: &mut impl BufMut) {
    if value != 0 {
        encode_key(tag, WireType::Varint, out);
        encode_varint(value, out);
    }
}

pub(super) fn bool_field_len(tag: u32, value: bool) -> usize {
    varint_field_len(tag, u64::from(value))
}

pub(super) fn put_bool_field(tag: u32, value: bool, out: &mut impl BufMut) {
    put_varint_field(tag, u64::from(value), out);
}

pub(super) fn string_field_len(tag: u32, value: &str) -> usize {
    if value.is_empty() {
        0
    } else {
        message_field_len(tag, value.len())
    }
}

pub(super) fn put_string_field(tag: u32, value: &str, out: &mut impl BufMut) {
    if !value.is_empty() {
        put_message_header(tag, value.len(), out);
        out.put_slice(value.as_bytes());
    }
}

/// A length-delimited field of `body` bytes: key, length, body.
pub(super) fn message_field_len(tag: u32, body: usize) -> usize {
    key_len(tag) + encoded_len_varint(body as u64) + body
}

pub(super) fn put_message_header(tag: u32, body: usize, out: &mut impl BufMut) {
    encode_key(tag, WireType::LengthDelimited, out);
    encode_varint(body as u64, out);
}

/// One element of a repeated `string` field: written even when empty.
pub(super) fn string_element_len(tag: u32, value: &str) -> usize {
    message_field_len(tag, value.len())
}

pub(super) fn put_string_element(tag: u32, value: &str, out: &mut impl BufMut) {
    put_message_header(tag, value.len(), out);
    out.put_slice(value.as_bytes());
}
