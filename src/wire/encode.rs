//! The frame encoder (spec §2): one typed frame → one contiguous `[tag][length][payload]`
//! buffer, so the shell writes it with a single write.
//!
//! This file owns the size check on the way out and nothing else: it makes no protocol
//! decision and does no IO.

// spec[S2-SINGLE-WRITE] §2: a frame is written with a single write of the whole frame; this
// module makes that possible by producing the whole frame as one buffer.
use bytes::BufMut;

use super::frame::{Direction, Frame, MAX_PAYLOAD};

/// Why a frame could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The payload is larger than [`MAX_PAYLOAD`]; a peer would refuse it, so it is never
    /// written.
    #[error(
        "refusing to encode a {direction} {message} frame: its payload is {len} bytes, over the \
         {max}-byte limit (spec §2); send less (for example page the result) instead"
    )]
    PayloadTooLarge {
        /// The direction of the frame.
        direction: Direction,
        /// The payload's message name.
        message: &'static str,
        /// The payload's encoded length.
        len: usize,
        /// The limit, [`MAX_PAYLOAD`].
        max: usize,
    },
    /// The caller's fixed-size output buffer cannot hold the whole frame.
    #[error(
        "the output buffer has room for {remaining} bytes but the frame needs {required}; \
         pass a growable buffer (Vec<u8> or BytesMut) or a larger slice"
    )]
    BufferTooSmall {
        /// Bytes the whole frame needs.
        required: usize,
        /// Bytes the buffer could still take.
        remaining: usize,
    },
}

/// The total encoded size of `frame` (tag + length varint + payload), whether or not it is
/// within [`MAX_PAYLOAD`].
pub fn encoded_len<F: Frame>(frame: &F) -> usize {
    let payload = frame.payload_len();
    1 + prost::encoding::encoded_len_varint(payload as u64) + payload
}

/// Encodes `frame` into a new buffer of exactly its size, ready for a single write.
pub fn encode<F: Frame>(frame: &F) -> Result<Vec<u8>, EncodeError> {
    let payload = checked_payload_len(frame)?;
    let mut out =
        Vec::with_capacity(1 + prost::encoding::encoded_len_varint(payload as u64) + payload);
    write_frame(frame, payload, &mut out);
    Ok(out)
}

/// Appends `frame` to `out` (a `Vec<u8>`, a `BytesMut`, …). On error nothing is written.
pub fn encode_into<F: Frame>(frame: &F, out: &mut impl BufMut) -> Result<(), EncodeError> {
    let payload = checked_payload_len(frame)?;
    let required = 1 + prost::encoding::encoded_len_varint(payload as u64) + payload;
    if out.remaining_mut() < required {
        return Err(EncodeError::BufferTooSmall {
            required,
            remaining: out.remaining_mut(),
        });
    }
    write_frame(frame, payload, out);
    Ok(())
}

fn checked_payload_len<F: Frame>(frame: &F) -> Result<usize, EncodeError> {
    let len = frame.payload_len();
    // spec[S2-MAX-PAYLOAD] §2: the maximum payload is 1 MiB; we never write what a peer must
    // refuse.
    if len > MAX_PAYLOAD {
        return Err(EncodeError::PayloadTooLarge {
            direction: F::DIRECTION,
            message: frame.message_name(),
            len,
            max: MAX_PAYLOAD,
        });
    }
    Ok(len)
}

fn write_frame<F: Frame>(frame: &F, payload: usize, out: &mut impl BufMut) {
    out.put_u8(frame.tag());
    // prost writes the minimal (canonical) LEB128 form, which our decoder requires.
    prost::encoding::encode_varint(payload as u64, out);
    frame.write_payload(out);
}
