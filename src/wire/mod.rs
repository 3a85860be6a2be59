//! The wire: the generated `assembly.devint.v1` message types ([`pb`]) and sans-IO framing
//! (spec §2).
//!
//! This module owns bytes ↔ typed frames and nothing else: it makes no protocol decision,
//! reads no clock and does no IO. Every frame is `[tag][LEB128 length][protobuf payload]`.
//!
//! - [`ClientFrame`] / [`ServerFrame`]: one typed frame enum per direction; the tag tables
//!   are [`ClientTag`] and [`ServerTag`] (tags overlap; the direction decides).
//! - [`encode`] / [`encode_into`]: a frame → one contiguous buffer for a single write;
//!   a payload over [`MAX_PAYLOAD`] is refused with [`EncodeError`].
//! - [`Decoder`]: incremental, one per direction (`Decoder<ClientToServer>` yields
//!   [`ClientFrame`], `Decoder<ServerToClient>` yields [`ServerFrame`]), refusing hostile
//!   framing with a typed [`FrameError`]. Its driver contract is on [`Decoder`].
//! - `fuzz_harness` (feature `fuzzing`): the invariant checks the fuzz targets and `cargo test` replay run.
//!
//! `pb::Request` and its argument messages have no derived `Debug`: a request carries the
//! capability token and client-supplied text, so its `Debug` is written by hand in
//! `crate::verbs` (which owns what of a client's text may be recorded) and never shows the
//! token.

/// Types generated from `proto/devint.proto` by `prost` (compiled in `build.rs` by `protox`).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/pb/assembly.devint.v1.rs"));
}

mod decode;
mod encode;
mod frame;
#[cfg(feature = "fuzzing")]
pub mod fuzz_harness;
mod length;
#[cfg(test)]
mod vectors;

pub use decode::{Decoder, FrameError, FrameErrorKind};
pub use encode::{encode, encode_into, encoded_len, EncodeError};
pub(crate) use frame::sealed;
pub use frame::{
    ClientFrame, ClientTag, ClientToServer, Direction, Frame, FrameDirection, ServerFrame,
    ServerTag, ServerToClient, MAX_PAYLOAD,
};
