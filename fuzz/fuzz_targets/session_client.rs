//! Drives the client core with arbitrary server frames (structured and raw); it must never
//! panic; the checks live in `devint::session::fuzz_harness`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| devint::session::fuzz_harness::client_frames(data));
