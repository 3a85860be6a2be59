//! Invariant checks over the frame codec, shared by the cargo-fuzz targets in `fuzz/`, the
//! corpus replay in `tests/fuzz_replay.rs` and the property tests.
//!
//! This module owns what "the codec is correct on arbitrary input" means, stated as code that
//! panics on a violation; it is test support, never called on a live connection.
//!
//! The invariants, per direction:
//! - decoding never panics, and an `Ok(None)` has consumed all of its input;
//! - feeding the bytes whole, one byte at a time or in two halves gives the same frames, the
//!   same error and the same number of bytes consumed;
//! - the decoder never holds more than [`MAX_PAYLOAD`] heap bytes;
//! - after an error the decoder is poisoned and says so;
//! - every decoded frame re-encodes (unless the encoder rightly refuses a payload that grew
//!   past [`MAX_PAYLOAD`]), and the re-encoding decodes to the same frame and re-encodes to
//!   the same bytes.

use super::decode::{Decoder, FrameError, FrameErrorKind};
use super::encode::{encode, EncodeError};
use super::frame::{ClientToServer, Frame, FrameDirection, ServerToClient, MAX_PAYLOAD};

/// What a decoder made of a byte stream fed in chunks.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript<F> {
    /// The frames decoded, in order.
    pub frames: Vec<F>,
    /// The error that stopped decoding, if any.
    pub error: Option<FrameError>,
    /// Bytes the decoder consumed (everything, unless an error stopped it).
    pub consumed: usize,
    /// Whether the stream ended between frames.
    pub at_frame_boundary: bool,
    /// The most heap the decoder held after any call.
    pub max_held_capacity: usize,
}

/// Feeds `chunks` in order to a fresh `Decoder<D>`, following the driver contract, and
/// records what came out. Panics if the decoder breaks its own contract (an `Ok(None)` that
/// left input unconsumed, or a poisoned decoder that does not say so).
pub fn decode_chunks<'a, D: FrameDirection>(
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Transcript<D::Frame> {
    let mut decoder = Decoder::<D>::new();
    let mut transcript = Transcript {
        frames: Vec::new(),
        error: None,
        consumed: 0,
        at_frame_boundary: true,
        max_held_capacity: 0,
    };
    'chunks: for chunk in chunks {
        let mut input = chunk;
        loop {
            let before = input.len();
            let outcome = decoder.decode(&mut input);
            transcript.consumed += before - input.len();
            transcript.max_held_capacity =
                transcript.max_held_capacity.max(decoder.held_capacity());
            match outcome {
                Ok(Some(frame)) => transcript.frames.push(frame),
                Ok(None) => {
                    assert!(
                        input.is_empty(),
                        "Ok(None) left {} bytes unread",
                        input.len()
                    );
                    break;
                }
                Err(error) => {
                    transcript.error = Some(error);
                    break 'chunks;
                }
            }
        }
    }
    if let Some(error) = &transcript.error {
        assert!(
            decoder.is_poisoned(),
            "a decoder that refused a frame must be poisoned"
        );
        let mut rest: &[u8] = &[0x01, 0x00];
        match decoder.decode(&mut rest) {
            Err(FrameError::Poisoned { cause, .. }) => assert_eq!(cause, error.kind()),
            other => panic!("a poisoned decoder answered {other:?}"),
        }
        assert_eq!(rest.len(), 2, "a poisoned decoder must read nothing");
        assert_ne!(error.kind(), FrameErrorKind::Poisoned);
    }
    transcript.at_frame_boundary = decoder.at_frame_boundary();
    transcript
}

/// Checks every invariant of the module doc for one direction on `data`; panics on a
/// violation.
pub fn check_direction<D: FrameDirection>(data: &[u8]) {
    let whole = decode_chunks::<D>([data]);
    let bytewise = decode_chunks::<D>(data.chunks(1));
    let (front, back) = data.split_at(data.len() / 2);
    let halves = decode_chunks::<D>([front, back]);
    assert_eq!(
        whole,
        bytewise_with_capacity(&bytewise, &whole),
        "byte-at-a-time differs"
    );
    assert_eq!(
        whole,
        bytewise_with_capacity(&halves, &whole),
        "split in halves differs"
    );
    for t in [&whole, &bytewise, &halves] {
        assert!(
            t.max_held_capacity <= MAX_PAYLOAD,
            "decoder held {} bytes, over {MAX_PAYLOAD}",
            t.max_held_capacity
        );
    }
    for frame in &whole.frames {
        check_round_trip::<D>(frame);
    }
}

/// Chunked feeding spills into the decoder's buffer where whole feeding does not, so the
/// capacity legitimately differs; every other field must match.
fn bytewise_with_capacity<F: Clone>(t: &Transcript<F>, like: &Transcript<F>) -> Transcript<F> {
    Transcript {
        max_held_capacity: like.max_held_capacity,
        ..t.clone()
    }
}

/// Checks that `frame` encodes, decodes back to itself and re-encodes to the same bytes;
/// panics otherwise. A frame whose payload is over [`MAX_PAYLOAD`] must be refused instead.
pub fn check_round_trip<D: FrameDirection>(frame: &D::Frame) {
    let bytes = match encode(frame) {
        Ok(bytes) => bytes,
        Err(EncodeError::PayloadTooLarge { len, .. }) => {
            assert!(len > MAX_PAYLOAD, "refused a {len}-byte payload");
            assert_eq!(len, frame.payload_len());
            return;
        }
        Err(other) => panic!("encoding into a Vec failed: {other}"),
    };
    let again = decode_chunks::<D>([bytes.as_slice()]);
    assert_eq!(again.error, None, "a re-encoded frame was refused");
    assert_eq!(again.consumed, bytes.len());
    assert!(again.at_frame_boundary);
    assert_eq!(again.frames.as_slice(), std::slice::from_ref(frame));
    assert_eq!(
        encode(&again.frames[0]).ok(),
        Some(bytes),
        "re-encoding is not stable"
    );
}

/// The `frame_decoders` fuzz target: feeds `data` to both decoders and checks every
/// invariant of the module doc. Panics on a violation.
pub fn decode_both(data: &[u8]) {
    check_direction::<ClientToServer>(data);
    check_direction::<ServerToClient>(data);
}
