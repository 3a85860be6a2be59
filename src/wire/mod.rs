//! The wire: the generated `assembly.devint.v1` message types ([`pb`]) and sans-IO framing
//! (spec §2).
//!
//! This module owns bytes ↔ typed frames and nothing else: it makes no protocol decision,
//! reads no clock and does no IO. Every frame is `[tag][LEB128 length][protobuf payload]`.

/// Types generated from `proto/devint.proto` by `prost` (compiled in `build.rs` by `protox`).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/assembly.devint.v1.rs"));
}
