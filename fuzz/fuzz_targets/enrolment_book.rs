//! Decodes arbitrary bytes as the content of an enrolment-book file: decoding never
//! panics, never yields a book that knows a token the file does not enrol, and a loaded
//! book round-trips; the checks live in `devint::auth::fuzz_harness`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| devint::auth::fuzz_harness::load_book(data));
