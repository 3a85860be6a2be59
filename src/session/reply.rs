//! What the server writes for one authorised call: a typed frame, or a `list_tools` or
//! `status` answer written straight from its view.
//!
//! This file owns that choice and nothing else: it makes no protocol decision (the
//! [`Dispatch`](super::Dispatch) does) and does no IO. Both kinds encode through
//! [`crate::wire::encode`], so the size check on the way out is the same for both.

use bytes::BufMut;

use crate::verbs::{StatusResponse, ToolListResponse};
use crate::wire::{Direction, Frame, ServerFrame, ServerTag};

/// The frame a call's answer is written as.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `Response` (any verb but `list_tools` and `status`) or `Denied`, as prost's message.
    Frame(ServerFrame),
    /// A `list_tools` `Response`, written from the view without building prost's structs;
    /// byte-identical to [`ToolListResponse::to_response`].
    ToolList(ToolListResponse),
    /// A `status` `Response`, written from the view without building prost's structs;
    /// byte-identical to [`StatusResponse::to_response`].
    Status(StatusResponse),
}

impl Reply {
    /// The same answer as a typed frame (for shells and tests that inspect it).
    pub fn into_frame(self) -> ServerFrame {
        match self {
            Reply::Frame(frame) => frame,
            Reply::ToolList(answer) => ServerFrame::Response(answer.to_response()),
            Reply::Status(answer) => ServerFrame::Response(answer.to_response()),
        }
    }
}

impl crate::wire::sealed::Sealed for Reply {}

impl Frame for Reply {
    const DIRECTION: Direction = Direction::ServerToClient;

    fn tag(&self) -> u8 {
        match self {
            Reply::Frame(frame) => frame.tag(),
            Reply::ToolList(_) | Reply::Status(_) => ServerTag::Response.byte(),
        }
    }

    fn message_name(&self) -> &'static str {
        match self {
            Reply::Frame(frame) => frame.message_name(),
            Reply::ToolList(_) | Reply::Status(_) => ServerTag::Response.message_name(),
        }
    }

    fn payload_len(&self) -> usize {
        match self {
            Reply::Frame(frame) => frame.payload_len(),
            Reply::ToolList(answer) => answer.encoded_len(),
            Reply::Status(answer) => answer.encoded_len(),
        }
    }

    fn write_payload(&self, out: &mut impl BufMut) {
        match self {
            Reply::Frame(frame) => frame.write_payload(out),
            Reply::ToolList(answer) => answer.encode_raw(out),
            Reply::Status(answer) => answer.encode_raw(out),
        }
    }
}
