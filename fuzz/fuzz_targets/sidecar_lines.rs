//! Cuts arbitrary bytes into NDJSON lines (under a small cap, fed whole, byte by byte and
//! split) and reads each line as JSON-RPC: the framer never holds more than its cap, agrees
//! with the naive split, and every refusal is one well-formed error line that repeats no
//! token; the checks live in `devint_sidecar::fuzz_harness`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| devint_sidecar::fuzz_harness::lines(data));
