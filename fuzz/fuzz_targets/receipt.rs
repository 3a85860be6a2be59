//! Writes arbitrary bytes as a receipt file and loads it: loading never panics, a receipt
//! whose integrity digest does not match is refused, and a trusted receipt round-trips;
//! the checks live in `devint_runtime::reference::fuzz_harness`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| devint_runtime::reference::fuzz_harness::receipt(data));
