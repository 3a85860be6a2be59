//! Drives one server connection through an arbitrary sequence of Hellos, requests (valid,
//! invalid and revoked tokens; any verb and tool), raw bytes, clock moves and timeouts, and
//! checks the session invariants after every step; the checks live in
//! `devint::session::fuzz_harness`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| devint::session::fuzz_harness::server_sequence(data));
