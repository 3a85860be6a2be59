//! The incremental frame decoder (spec §2): bytes in, typed frames out, one direction per
//! decoder.
//!
//! This file owns the refusal of hostile framing (unknown tag, oversize length, bad varint,
//! undecodable payload) and the memory bound; it makes no protocol decision and does no IO.
//!
//! The driver contract is on [`Decoder`].

use std::fmt;
use std::marker::PhantomData;

use zeroize::Zeroize;

use super::frame::{Direction, FrameDirection, MAX_PAYLOAD};
use super::length::{LengthFault, LengthReader, LengthStep};

// A decoder moves between tasks with its connection.
static_assertions::assert_impl_all!(Decoder<super::ClientToServer>: Send, Sync);
static_assertions::assert_impl_all!(Decoder<super::ServerToClient>: Send, Sync);

/// A partial-frame buffer at most this large is kept for the next frame; a larger one is
/// released when its frame completes, so an idle connection holds little memory.
const RETAINED_CAPACITY: usize = 16 * 1024;

/// The first allocation for a frame split across reads.
const MIN_SPILL_CAPACITY: usize = 256;

/// The kind of a [`FrameError`], a stable token for audit records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FrameErrorKind {
    /// See [`FrameError::UnknownTag`].
    UnknownTag,
    /// See [`FrameError::PayloadTooLarge`].
    PayloadTooLarge,
    /// See [`FrameError::LengthTooLong`].
    LengthTooLong,
    /// See [`FrameError::LengthNonCanonical`].
    LengthNonCanonical,
    /// See [`FrameError::LengthOverflow`].
    LengthOverflow,
    /// See [`FrameError::MalformedPayload`].
    MalformedPayload,
    /// See [`FrameError::Poisoned`].
    Poisoned,
}

impl FrameErrorKind {
    /// A stable snake_case token for audit records.
    pub const fn as_str(self) -> &'static str {
        match self {
            FrameErrorKind::UnknownTag => "unknown_tag",
            FrameErrorKind::PayloadTooLarge => "payload_too_large",
            FrameErrorKind::LengthTooLong => "length_varint_too_long",
            FrameErrorKind::LengthNonCanonical => "length_varint_non_canonical",
            FrameErrorKind::LengthOverflow => "length_varint_overflow",
            FrameErrorKind::MalformedPayload => "malformed_payload",
            FrameErrorKind::Poisoned => "decoder_poisoned",
        }
    }
}

impl fmt::Display for FrameErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

// spec[S2-REFUSE-CLOSE-AUDIT] §2: after a refusal the decoder is poisoned; nothing more is read.
/// A frame the decoder refused. Each closes the connection and is audited (spec §2); each
/// carries the direction, the tag and (where known) the message name for the audit record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The tag byte names no message in this direction; the payload was never read.
    #[error(
        "refused a {direction} frame with unknown tag {tag} (this direction knows {known}); \
         its payload was not read: close the connection and audit the refused frame",
        known = tag_table(*direction)
    )]
    UnknownTag {
        /// The direction being read.
        direction: Direction,
        /// The tag byte received.
        tag: u8,
    },
    /// The declared payload length is over [`MAX_PAYLOAD`]; nothing was allocated.
    #[error(
        "refused a {direction} {message} frame declaring a {declared}-byte payload, over the \
         {MAX_PAYLOAD}-byte limit; nothing was read or allocated: close the connection and \
         audit the refused frame"
    )]
    PayloadTooLarge {
        /// The direction being read.
        direction: Direction,
        /// The frame's tag byte.
        tag: u8,
        /// The message the tag names.
        message: &'static str,
        /// The length the peer declared.
        declared: u64,
    },
    /// The length varint runs past 10 bytes.
    #[error(
        "refused a {direction} {message} frame whose length varint is longer than 10 bytes: \
         close the connection and audit the refused frame"
    )]
    LengthTooLong {
        /// The direction being read.
        direction: Direction,
        /// The frame's tag byte.
        tag: u8,
        /// The message the tag names.
        message: &'static str,
    },
    /// The length varint is an over-long encoding of a value with a shorter form.
    #[error(
        "refused a {direction} {message} frame whose {bytes}-byte length varint is not in its \
         shortest (canonical) form: close the connection and audit the refused frame"
    )]
    LengthNonCanonical {
        /// The direction being read.
        direction: Direction,
        /// The frame's tag byte.
        tag: u8,
        /// The message the tag names.
        message: &'static str,
        /// How many varint bytes were read.
        bytes: u8,
    },
    /// The length varint's 10th byte carries bits beyond 64.
    #[error(
        "refused a {direction} {message} frame whose length varint does not fit in 64 bits: \
         close the connection and audit the refused frame"
    )]
    LengthOverflow {
        /// The direction being read.
        direction: Direction,
        /// The frame's tag byte.
        tag: u8,
        /// The message the tag names.
        message: &'static str,
    },
    /// The payload is not a valid protobuf encoding of the message the tag names.
    #[error(
        "refused a {direction} {message} frame: its {len}-byte payload does not decode \
         ({source}): close the connection and audit the refused frame"
    )]
    MalformedPayload {
        /// The direction being read.
        direction: Direction,
        /// The frame's tag byte.
        tag: u8,
        /// The message the tag names.
        message: &'static str,
        /// The payload length.
        len: usize,
        /// What protobuf decoding reported.
        #[source]
        source: prost::DecodeError,
    },
    /// The decoder already refused a frame; it reads nothing more.
    #[error(
        "the {direction} decoder already refused a frame ({cause}) and reads nothing more: \
         close the connection"
    )]
    Poisoned {
        /// The direction being read.
        direction: Direction,
        /// The kind of the error that poisoned the decoder.
        cause: FrameErrorKind,
    },
}

fn tag_table(direction: Direction) -> &'static str {
    match direction {
        Direction::ClientToServer => "1 Hello, 2 Request",
        Direction::ServerToClient => "1 HelloAck, 2 Incompatible, 3 Response, 4 Denied",
    }
}

impl FrameError {
    /// The kind of this error, for audit records.
    pub const fn kind(&self) -> FrameErrorKind {
        match self {
            FrameError::UnknownTag { .. } => FrameErrorKind::UnknownTag,
            FrameError::PayloadTooLarge { .. } => FrameErrorKind::PayloadTooLarge,
            FrameError::LengthTooLong { .. } => FrameErrorKind::LengthTooLong,
            FrameError::LengthNonCanonical { .. } => FrameErrorKind::LengthNonCanonical,
            FrameError::LengthOverflow { .. } => FrameErrorKind::LengthOverflow,
            FrameError::MalformedPayload { .. } => FrameErrorKind::MalformedPayload,
            FrameError::Poisoned { .. } => FrameErrorKind::Poisoned,
        }
    }

    /// The direction that was being read.
    pub const fn direction(&self) -> Direction {
        match self {
            FrameError::UnknownTag { direction, .. }
            | FrameError::PayloadTooLarge { direction, .. }
            | FrameError::LengthTooLong { direction, .. }
            | FrameError::LengthNonCanonical { direction, .. }
            | FrameError::LengthOverflow { direction, .. }
            | FrameError::MalformedPayload { direction, .. }
            | FrameError::Poisoned { direction, .. } => *direction,
        }
    }

    /// The offending frame's tag byte, or `None` for [`FrameError::Poisoned`].
    pub const fn tag(&self) -> Option<u8> {
        match self {
            FrameError::UnknownTag { tag, .. }
            | FrameError::PayloadTooLarge { tag, .. }
            | FrameError::LengthTooLong { tag, .. }
            | FrameError::LengthNonCanonical { tag, .. }
            | FrameError::LengthOverflow { tag, .. }
            | FrameError::MalformedPayload { tag, .. } => Some(*tag),
            FrameError::Poisoned { .. } => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State<T> {
    /// Between frames: the next byte is a tag.
    Tag,
    /// Reading the length varint of a frame whose tag is known.
    Length { tag: T, reader: LengthReader },
    /// Reading `len` payload bytes; `spill` holds those that arrived in earlier calls.
    Payload { tag: T, len: usize },
    /// A frame was refused; nothing more is read.
    Poisoned(FrameErrorKind),
}

/// An incremental, sans-IO decoder of the frames of one direction `D`
/// ([`ClientToServer`](super::ClientToServer) or [`ServerToClient`](super::ServerToClient)).
///
/// # Driver contract
///
/// 1. Make one decoder per connection and direction: the server reads with
///    `Decoder::<ClientToServer>::new()`, a client with `Decoder::<ServerToClient>::new()`.
/// 2. After each read from the socket, take the bytes read as `let mut input = &buf[..n];`
///    and call [`Decoder::decode`]`(&mut input)` in a loop:
///    - `Ok(Some(frame))`: hand the frame on, then call again with the rest of `input`
///      (several frames may have arrived in one read);
///    - `Ok(None)`: every byte of `input` was consumed and the frame is not complete; read
///      more from the socket;
///    - `Err(e)`: the peer broke the framing. Audit `e` (see [`FrameError::kind`]) and close
///      the connection. The decoder is now poisoned: every later call returns
///      [`FrameError::Poisoned`] without reading input.
/// 3. The decoder consumes only what it needs from `input` and copies into its own buffer
///    only a frame that is split across reads, so it never holds more than [`MAX_PAYLOAD`]
///    bytes ([`Decoder::held_capacity`]) however much the caller feeds it at once.
/// 4. At end of stream, [`Decoder::at_frame_boundary`] tells a clean close from a peer that
///    stopped mid-frame.
///
/// Feeding the same bytes whole, one byte at a time or split anywhere yields the same
/// frames, the same error and the same number of bytes consumed.
pub struct Decoder<D: FrameDirection> {
    state: State<D::Tag>,
    /// The part of a frame's payload that arrived in earlier calls. Never longer, nor with
    /// more capacity, than the frame's declared length (≤ [`MAX_PAYLOAD`]).
    spill: Vec<u8>,
    direction: PhantomData<fn() -> D>,
}

impl<D: FrameDirection> Default for Decoder<D> {
    fn default() -> Self {
        Self::new()
    }
}

// Not derived: the spill buffer may hold a capability token and must never reach a log.
impl<D: FrameDirection> fmt::Debug for Decoder<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state {
            State::Tag => "tag",
            State::Length { .. } => "length",
            State::Payload { .. } => "payload",
            State::Poisoned(_) => "poisoned",
        };
        f.debug_struct("Decoder")
            .field("direction", &D::DIRECTION)
            .field("state", &state)
            .field("buffered_len", &self.spill.len())
            .finish_non_exhaustive()
    }
}

impl<D: FrameDirection> Decoder<D> {
    /// A decoder at the start of a stream.
    pub const fn new() -> Self {
        Decoder {
            state: State::Tag,
            spill: Vec::new(),
            direction: PhantomData,
        }
    }

    /// Consumes bytes from the front of `input` until one frame is complete (`Ok(Some)`),
    /// `input` is exhausted (`Ok(None)`), or the framing is refused (`Err`, after which the
    /// decoder is poisoned). `input` is advanced past every byte consumed.
    pub fn decode(&mut self, input: &mut &[u8]) -> Result<Option<D::Frame>, FrameError> {
        loop {
            match self.state {
                State::Poisoned(cause) => {
                    return Err(FrameError::Poisoned {
                        direction: D::DIRECTION,
                        cause,
                    })
                }
                State::Tag => {
                    let Some((&byte, rest)) = input.split_first() else {
                        return Ok(None);
                    };
                    *input = rest;
                    // spec[S2-TAGS] §2 (we): an unknown tag is refused as soon as the tag byte is
                    // read; its payload is never read.
                    let Some(tag) = D::tag(byte) else {
                        return self.refuse(FrameError::UnknownTag {
                            direction: D::DIRECTION,
                            tag: byte,
                        });
                    };
                    self.state = State::Length {
                        tag,
                        reader: LengthReader::default(),
                    };
                }
                State::Length { tag, mut reader } => {
                    let len = loop {
                        let Some((&byte, rest)) = input.split_first() else {
                            self.state = State::Length { tag, reader };
                            return Ok(None);
                        };
                        *input = rest;
                        match reader.push(byte) {
                            Ok(LengthStep::More) => {}
                            Ok(LengthStep::Done(len)) => break len,
                            Err(fault) => return self.refuse(length_error::<D>(tag, fault)),
                        }
                    };
                    // spec[S2-MAX-PAYLOAD] §2: a length over 1 MiB MUST be rejected before
                    // anything is allocated.
                    if len > MAX_PAYLOAD as u64 {
                        return self.refuse(FrameError::PayloadTooLarge {
                            direction: D::DIRECTION,
                            tag: D::tag_byte(tag),
                            message: D::message_name(tag),
                            declared: len,
                        });
                    }
                    self.state = State::Payload {
                        tag,
                        len: len as usize,
                    };
                }
                State::Payload { tag, len } => {
                    if self.spill.is_empty() && input.len() >= len {
                        // The whole payload is here: decode it in place, without a copy.
                        let (payload, rest) = input.split_at(len);
                        *input = rest;
                        let decoded = D::decode_payload(tag, payload);
                        return self.finish_frame(tag, len, decoded);
                    }
                    let take = (len - self.spill.len()).min(input.len());
                    self.grow_spill(len, take);
                    self.spill.extend_from_slice(&input[..take]);
                    *input = &input[take..];
                    if self.spill.len() < len {
                        return Ok(None);
                    }
                    let decoded = D::decode_payload(tag, &self.spill);
                    return self.finish_frame(tag, len, decoded);
                }
            }
        }
    }

    /// Bytes of a split frame's payload currently buffered (0 between frames and whenever a
    /// whole payload arrived in one call).
    pub fn buffered_len(&self) -> usize {
        self.spill.len()
    }

    /// Heap bytes the decoder holds: never more than [`MAX_PAYLOAD`]; mid-frame, never more
    /// than the larger of 16 KiB (a buffer kept for reuse) and the smaller of the frame's
    /// declared length and twice [`Decoder::buffered_len`], so a peer trickling a large
    /// frame costs only about what it sent.
    pub fn held_capacity(&self) -> usize {
        self.spill.capacity()
    }

    /// Whether the decoder is between frames: at end of stream, `true` is a clean close and
    /// `false` means the peer stopped mid-frame (or the decoder is poisoned).
    pub fn at_frame_boundary(&self) -> bool {
        self.state == State::Tag
    }

    /// Whether a frame was refused; a poisoned decoder reads nothing more.
    pub fn is_poisoned(&self) -> bool {
        matches!(self.state, State::Poisoned(_))
    }

    /// Grows the spill buffer to take `take` more bytes of a `len`-byte payload, doubling
    /// but never past `len`, so the capacity stays within the declared length.
    fn grow_spill(&mut self, len: usize, take: usize) {
        let needed = self.spill.len() + take;
        if needed <= self.spill.capacity() {
            return;
        }
        let target = needed
            .max(self.spill.capacity().saturating_mul(2))
            .max(MIN_SPILL_CAPACITY)
            .min(len);
        self.spill.reserve_exact(target - self.spill.len());
    }

    fn finish_frame(
        &mut self,
        tag: D::Tag,
        len: usize,
        decoded: Result<D::Frame, prost::DecodeError>,
    ) -> Result<Option<D::Frame>, FrameError> {
        if !self.spill.is_empty() {
            // The spill may hold a capability token: wipe it before reuse or release. (Only
            // when used: the zeroize call costs ~100 ns even on an empty slice.)
            self.spill.as_mut_slice().zeroize();
            self.spill.clear();
            if self.spill.capacity() > RETAINED_CAPACITY {
                self.spill = Vec::new();
            }
        }
        match decoded {
            Ok(frame) => {
                self.state = State::Tag;
                Ok(Some(frame))
            }
            // spec[S2-UNDECODABLE] §2 (we): a payload that does not decode is refused.
            Err(source) => self.refuse(FrameError::MalformedPayload {
                direction: D::DIRECTION,
                tag: D::tag_byte(tag),
                message: D::message_name(tag),
                len,
                source,
            }),
        }
    }

    fn refuse<R>(&mut self, error: FrameError) -> Result<R, FrameError> {
        self.state = State::Poisoned(error.kind());
        self.spill.as_mut_slice().zeroize();
        self.spill = Vec::new();
        Err(error)
    }
}

fn length_error<D: FrameDirection>(tag: D::Tag, fault: LengthFault) -> FrameError {
    let direction = D::DIRECTION;
    let message = D::message_name(tag);
    let tag = D::tag_byte(tag);
    match fault {
        LengthFault::TooLong => FrameError::LengthTooLong {
            direction,
            tag,
            message,
        },
        LengthFault::NonCanonical(bytes) => FrameError::LengthNonCanonical {
            direction,
            tag,
            message,
            bytes,
        },
        LengthFault::Overflow => FrameError::LengthOverflow {
            direction,
            tag,
            message,
        },
    }
}
