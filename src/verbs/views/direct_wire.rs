//! Writing protobuf fields straight from a view, exactly as `prost::Message::encode_raw`
//! writes them: proto3 leaves out an empty string, a `false` and a zero; a set message field
//! is written even when its body is empty; every element of a repeated field is written,
//! empty ones included. The answers written without building prost's structs
//! ([`super::ToolListResponse`], [`super::StatusResponse`]) use these and nothing else, so
//! the rules live here once.

use bytes::BufMut;
use prost::encoding::{encode_key, encode_varint, encoded_len_varint, key_len, WireType};

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
