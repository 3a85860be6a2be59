//! Feeds arbitrary bytes to both frame decoders and checks that every decoded frame
//! re-encodes and decodes to itself; the checks live in `devint::wire::fuzz_harness`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| devint::wire::fuzz_harness::decode_both(data));
