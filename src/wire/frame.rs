//! Typed frames and the tag tables of both directions (spec §2).
//!
//! This file owns which message a tag byte names in which direction, and nothing else: it
//! never reads or writes bytes itself (see `encode` and `decode`).

use bytes::BufMut;
use prost::Message;

use super::pb;

// spec[S2-MAX-PAYLOAD] §2: the maximum payload is 1 MiB, inclusive; zero is legal.
/// The largest payload a frame may carry: 1 MiB. Exactly this many bytes is allowed, and a
/// zero-length payload is legal (spec §2).
pub const MAX_PAYLOAD: usize = 1_048_576;

// spec[S2-TAGS] §2: tags overlap between directions; the direction decides how a tag is read.
/// Which way a frame travels. Tags overlap between directions, so the direction decides how a
/// tag is read (spec §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Frames a client sends to the server: `Hello`, `Request`.
    ClientToServer,
    /// Frames the server sends to a client: `HelloAck`, `Incompatible`, `Response`, `Denied`.
    ServerToClient,
}

impl Direction {
    /// A stable snake_case token for audit records and logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Direction::ClientToServer => "client_to_server",
            Direction::ServerToClient => "server_to_client",
        }
    }
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Direction::ClientToServer => "client→server",
            Direction::ServerToClient => "server→client",
        })
    }
}

/// The tag table of the client → server direction (spec §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ClientTag {
    /// Tag 1: `Hello`.
    Hello = 1,
    /// Tag 2: `Request`.
    Request = 2,
}

impl ClientTag {
    /// Every client → server tag, in tag order.
    pub const ALL: [ClientTag; 2] = [ClientTag::Hello, ClientTag::Request];

    /// The tag named by `byte`, or `None` if the client → server direction has no such tag.
    pub const fn from_byte(byte: u8) -> Option<Self> {
        match byte {
            1 => Some(ClientTag::Hello),
            2 => Some(ClientTag::Request),
            _ => None,
        }
    }

    /// The tag byte on the wire.
    pub const fn byte(self) -> u8 {
        self as u8
    }

    /// The protobuf message this tag carries.
    pub const fn message_name(self) -> &'static str {
        match self {
            ClientTag::Hello => "Hello",
            ClientTag::Request => "Request",
        }
    }
}

/// The tag table of the server → client direction (spec §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ServerTag {
    /// Tag 1: `HelloAck`.
    HelloAck = 1,
    /// Tag 2: `Incompatible`.
    Incompatible = 2,
    /// Tag 3: `Response`.
    Response = 3,
    /// Tag 4: `Denied`.
    Denied = 4,
}

impl ServerTag {
    /// Every server → client tag, in tag order.
    pub const ALL: [ServerTag; 4] = [
        ServerTag::HelloAck,
        ServerTag::Incompatible,
        ServerTag::Response,
        ServerTag::Denied,
    ];

    /// The tag named by `byte`, or `None` if the server → client direction has no such tag.
    pub const fn from_byte(byte: u8) -> Option<Self> {
        match byte {
            1 => Some(ServerTag::HelloAck),
            2 => Some(ServerTag::Incompatible),
            3 => Some(ServerTag::Response),
            4 => Some(ServerTag::Denied),
            _ => None,
        }
    }

    /// The tag byte on the wire.
    pub const fn byte(self) -> u8 {
        self as u8
    }

    /// The protobuf message this tag carries.
    pub const fn message_name(self) -> &'static str {
        match self {
            ServerTag::HelloAck => "HelloAck",
            ServerTag::Incompatible => "Incompatible",
            ServerTag::Response => "Response",
            ServerTag::Denied => "Denied",
        }
    }
}

/// A frame a client sends to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientFrame {
    /// Tag 1: the client's opening offer (spec §5).
    Hello(pb::Hello),
    /// Tag 2: one verb call carrying its capability token (spec §6).
    Request(pb::Request),
}

impl ClientFrame {
    /// This frame's entry in the client → server tag table.
    pub const fn kind(&self) -> ClientTag {
        match self {
            ClientFrame::Hello(_) => ClientTag::Hello,
            ClientFrame::Request(_) => ClientTag::Request,
        }
    }
}

/// A frame the server sends to a client.
// `pb::Response` holds its large views boxed (`build.rs`), so no variant is large and a
// frame moves cheaply between decode and dispatch.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerFrame {
    /// Tag 1: negotiation succeeded (spec §5).
    HelloAck(pb::HelloAck),
    /// Tag 2: negotiation failed; the server closes the connection (spec §5).
    Incompatible(pb::Incompatible),
    /// Tag 3: the answer to a request (spec §6).
    Response(pb::Response),
    /// Tag 4: a refused request or a protocol violation (spec §6).
    Denied(pb::Denied),
}

impl ServerFrame {
    /// This frame's entry in the server → client tag table.
    pub const fn kind(&self) -> ServerTag {
        match self {
            ServerFrame::HelloAck(_) => ServerTag::HelloAck,
            ServerFrame::Incompatible(_) => ServerTag::Incompatible,
            ServerFrame::Response(_) => ServerTag::Response,
            ServerFrame::Denied(_) => ServerTag::Denied,
        }
    }
}

/// Which types may be frames: the two directions' frame types, their markers, and the
/// session's reply (which writes one answer without prost's structs).
pub(crate) mod sealed {
    // Unnameable on purpose: no type outside the crate can implement it.
    #[allow(unnameable_types)]
    pub trait Sealed {}
    impl Sealed for super::ClientFrame {}
    impl Sealed for super::ServerFrame {}
    impl Sealed for super::ClientToServer {}
    impl Sealed for super::ServerToClient {}
}

/// A typed frame of one direction: what the encoder needs to know about it. Sealed; the
/// implementors are [`ClientFrame`], [`ServerFrame`] and the session's
/// [`Reply`](crate::session::Reply).
pub trait Frame: sealed::Sealed + std::fmt::Debug + Clone + PartialEq {
    /// The direction this frame travels in.
    const DIRECTION: Direction;

    /// The tag byte this frame is written with.
    fn tag(&self) -> u8;

    /// The protobuf message name of the payload, for errors and audit records.
    fn message_name(&self) -> &'static str;

    /// The payload's encoded length in bytes.
    fn payload_len(&self) -> usize;

    /// Writes the protobuf payload (without tag or length) to `out`, which must have room.
    fn write_payload(&self, out: &mut impl BufMut);
}

impl Frame for ClientFrame {
    const DIRECTION: Direction = Direction::ClientToServer;

    fn tag(&self) -> u8 {
        self.kind().byte()
    }

    fn message_name(&self) -> &'static str {
        self.kind().message_name()
    }

    fn payload_len(&self) -> usize {
        match self {
            ClientFrame::Hello(m) => m.encoded_len(),
            ClientFrame::Request(m) => m.encoded_len(),
        }
    }

    fn write_payload(&self, out: &mut impl BufMut) {
        match self {
            ClientFrame::Hello(m) => m.encode_raw(out),
            ClientFrame::Request(m) => m.encode_raw(out),
        }
    }
}

impl Frame for ServerFrame {
    const DIRECTION: Direction = Direction::ServerToClient;

    fn tag(&self) -> u8 {
        self.kind().byte()
    }

    fn message_name(&self) -> &'static str {
        self.kind().message_name()
    }

    fn payload_len(&self) -> usize {
        match self {
            ServerFrame::HelloAck(m) => m.encoded_len(),
            ServerFrame::Incompatible(m) => m.encoded_len(),
            ServerFrame::Response(m) => m.encoded_len(),
            ServerFrame::Denied(m) => m.encoded_len(),
        }
    }

    fn write_payload(&self, out: &mut impl BufMut) {
        match self {
            ServerFrame::HelloAck(m) => m.encode_raw(out),
            ServerFrame::Incompatible(m) => m.encode_raw(out),
            ServerFrame::Response(m) => m.encode_raw(out),
            ServerFrame::Denied(m) => m.encode_raw(out),
        }
    }
}

/// A direction marker for [`Decoder`](super::Decoder): it says which tag table applies and
/// which frame type comes out. Sealed; the two markers are [`ClientToServer`] and
/// [`ServerToClient`].
pub trait FrameDirection: sealed::Sealed {
    /// The frame type this direction yields.
    type Frame: Frame;

    /// This direction's tag table ([`ClientTag`] or [`ServerTag`]).
    type Tag: Copy + Eq + std::fmt::Debug;

    /// The runtime value of this direction.
    const DIRECTION: Direction;

    /// The tag `byte` names in this direction, or `None` for an unknown tag.
    fn tag(byte: u8) -> Option<Self::Tag>;

    /// The tag byte on the wire.
    fn tag_byte(tag: Self::Tag) -> u8;

    /// The protobuf message `tag` carries.
    fn message_name(tag: Self::Tag) -> &'static str;

    /// Decodes `payload` as the message `tag` names.
    fn decode_payload(tag: Self::Tag, payload: &[u8]) -> Result<Self::Frame, prost::DecodeError>;
}

/// Marker: frames read by the server, written by a client ([`ClientFrame`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ClientToServer;

/// Marker: frames read by a client, written by the server ([`ServerFrame`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ServerToClient;

impl FrameDirection for ClientToServer {
    type Frame = ClientFrame;
    type Tag = ClientTag;
    const DIRECTION: Direction = Direction::ClientToServer;

    fn tag(byte: u8) -> Option<ClientTag> {
        ClientTag::from_byte(byte)
    }

    fn tag_byte(tag: ClientTag) -> u8 {
        tag.byte()
    }

    fn message_name(tag: ClientTag) -> &'static str {
        tag.message_name()
    }

    fn decode_payload(tag: ClientTag, payload: &[u8]) -> Result<ClientFrame, prost::DecodeError> {
        match tag {
            ClientTag::Hello => pb::Hello::decode(payload).map(ClientFrame::Hello),
            ClientTag::Request => pb::Request::decode(payload).map(ClientFrame::Request),
        }
    }
}

impl FrameDirection for ServerToClient {
    type Frame = ServerFrame;
    type Tag = ServerTag;
    const DIRECTION: Direction = Direction::ServerToClient;

    fn tag(byte: u8) -> Option<ServerTag> {
        ServerTag::from_byte(byte)
    }

    fn tag_byte(tag: ServerTag) -> u8 {
        tag.byte()
    }

    fn message_name(tag: ServerTag) -> &'static str {
        tag.message_name()
    }

    fn decode_payload(tag: ServerTag, payload: &[u8]) -> Result<ServerFrame, prost::DecodeError> {
        match tag {
            ServerTag::HelloAck => pb::HelloAck::decode(payload).map(ServerFrame::HelloAck),
            ServerTag::Incompatible => {
                pb::Incompatible::decode(payload).map(ServerFrame::Incompatible)
            }
            ServerTag::Response => pb::Response::decode(payload).map(ServerFrame::Response),
            ServerTag::Denied => pb::Denied::decode(payload).map(ServerFrame::Denied),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_tables_round_trip_and_reject_everything_else() {
        for byte in 0..=u8::MAX {
            match ClientTag::from_byte(byte) {
                Some(t) => assert_eq!(t.byte(), byte),
                None => assert!(!(1..=2).contains(&byte)),
            }
            match ServerTag::from_byte(byte) {
                Some(t) => assert_eq!(t.byte(), byte),
                None => assert!(!(1..=4).contains(&byte)),
            }
        }
        assert_eq!(ClientTag::ALL.map(ClientTag::byte), [1, 2]);
        assert_eq!(ServerTag::ALL.map(ServerTag::byte), [1, 2, 3, 4]);
    }

    #[test]
    fn the_same_tag_byte_names_different_messages_per_direction() {
        let client = |b| ClientToServer::tag(b).map(ClientToServer::message_name);
        let server = |b| ServerToClient::tag(b).map(ServerToClient::message_name);
        assert_eq!(client(1), Some("Hello"));
        assert_eq!(server(1), Some("HelloAck"));
        assert_eq!(client(3), None);
        assert_eq!(server(3), Some("Response"));
    }
}
