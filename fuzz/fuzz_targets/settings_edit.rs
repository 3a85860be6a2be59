//! Feeds arbitrary JSON, JSONC and TOML (a format byte, a key-set byte, then the text) to
//! the settings-file editors: our edit must reverse to the input byte for byte when the
//! output is untouched, and nothing may panic; the checks live in
//! `devint::lifecycle::edit::fuzz_harness`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    devint::lifecycle::edit::fuzz_harness::edit_roundtrip(data)
});
