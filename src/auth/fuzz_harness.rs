//! Invariant checks over the enrolment-book format, shared by the cargo-fuzz target
//! `enrolment_book` and its corpus replay in `tests/fuzz_replay.rs` (feature `fuzzing`).
//!
//! This module owns what "decoding an arbitrary book file is safe" means, stated as code
//! that panics on a violation. It touches no file; the file layer's own checks (modes,
//! owners, kinds) are tested beside it in `devint-net`.
//!
//! The invariants, for arbitrary bytes as the content of a book file:
//! - [`decode_book`] never panics;
//! - a loaded book knows a token only if that token's SHA-256 digest is written, in
//!   lowercase hex, in the file: nothing the file does not enrol resolves (checked with
//!   the probe secrets [`probe_secret`]`(0..PROBES)`, whose digests the seeds enrol);
//! - no loaded book is bigger than the number of `digest_sha256` fields in the file, and
//!   every record's token id is written in the file;
//! - a loaded book round-trips: encode → decode gives an equal book, and encoding that
//!   again gives the same bytes.

use super::{decode_book, encode_book, AuthDenial, EnrolmentBook, TokenSecret};
use crate::time::UnixSecs;
use crate::verbs::Verb;

/// How many probe secrets the harness tries against every loaded book.
pub const PROBES: u8 = 8;

/// The `i`-th probe secret: 32 bytes of value `i + 1`. Seed books enrol some of these (the
/// digest of probe `i` is `sha256([i + 1; 32])`), so the fuzzer starts from books that
/// resolve them and mutates towards ones that must not.
pub fn probe_secret(i: u8) -> TokenSecret {
    TokenSecret::from_bytes([i.wrapping_add(1); 32])
}

/// Whether `book` knows `secret` at all (any answer but "unknown").
fn knows(book: &EnrolmentBook, secret: &TokenSecret) -> bool {
    let token = secret.expose_secret_hex();
    match book.resolve(&token, Verb::ListTools, "claude-code", UnixSecs::EPOCH) {
        Ok(_) => true,
        Err(AuthDenial::Unknown) => false,
        Err(AuthDenial::Expired { .. } | AuthDenial::OutOfScope { .. }) => true,
        Err(other) => panic!("a well-formed probe token was refused as {other:?}"),
    }
}

/// Every string in a JSON document, keys included, after unescaping (so `"tok_\u0030…"`
/// counts as the id it spells).
fn strings_in(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings_in(v, out)),
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                strings_in(v, out);
            }
        }
        _ => {}
    }
}

/// Decodes `data` as a book file's content, checking the invariants in the module doc.
/// Panics only when one of them breaks.
pub fn load_book(data: &[u8]) {
    let Ok(book) = decode_book(data) else {
        return;
    };

    let document: serde_json::Value =
        serde_json::from_slice(data).expect("a book that loads is JSON");
    let mut strings = Vec::new();
    strings_in(&document, &mut strings);
    let written = |text: &str| strings.iter().any(|s| s == text);
    assert!(
        book.len() <= strings.iter().filter(|s| *s == "digest_sha256").count(),
        "the loaded book has more records than the file has digests"
    );
    for record in book.list() {
        assert!(
            written(record.token_id().as_str()),
            "a loaded record's token id is not in the file"
        );
    }
    for i in 0..PROBES {
        let secret = probe_secret(i);
        if knows(&book, &secret) {
            let digest_hex = secret.digest().to_hex();
            assert!(
                written(&digest_hex),
                "probe {i} resolves although its digest is not in the file"
            );
        }
    }
    // A random secret nobody enrolled is never known.
    let stranger = TokenSecret::generate().expect("OS randomness");
    assert!(
        !knows(&book, &stranger),
        "a fresh random token resolves against a fuzzed book"
    );

    // Round trip: what we encode, we decode back unchanged, and encoding is canonical.
    let first = encode_book(&book);
    let reloaded = decode_book(first.as_bytes()).expect("an encoded book decodes");
    assert_eq!(reloaded, book, "decode → encode → decode changed the book");
    let second = encode_book(&reloaded);
    assert_eq!(
        first, second,
        "encoding the same book twice gave different bytes"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid_book_text(probe: u8) -> String {
        let digest = probe_secret(probe).digest().to_hex();
        format!(
            r#"{{"format_version":1,"records":[{{"token_id":"tok_0123456789abcdef0123456789abcdef","client_name":"vscode","issued_at":10,"expires_at":20,"scope":{{"tools":"all","verbs":["list_tools","status"]}},"digest_sha256":"{digest}"}}]}}"#
        )
    }

    #[test]
    fn a_valid_book_passes_the_harness_and_resolves_its_probe() {
        let text = valid_book_text(2);
        load_book(text.as_bytes());
        let book = decode_book(text.as_bytes()).unwrap();
        assert!(knows(&book, &probe_secret(2)));
        assert!(!knows(&book, &probe_secret(3)));
    }

    #[test]
    fn garbage_and_truncations_never_panic() {
        let text = valid_book_text(0);
        for cut in 0..text.len() {
            load_book(&text.as_bytes()[..cut]);
        }
        load_book(b"\xff\xfe not utf-8");
        load_book(b"");
    }

    #[test]
    fn the_committed_valid_seed_books_load_and_enrol_probes() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/enrolment_book");
        let mut valid = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let loaded = decode_book(&std::fs::read(&path).unwrap());
            if name.starts_with("valid_") {
                let book = loaded.unwrap_or_else(|e| panic!("{name}: {e}"));
                if !book.is_empty() {
                    assert!(
                        (0..PROBES).any(|i| knows(&book, &probe_secret(i))),
                        "{name}"
                    );
                }
                valid += 1;
            } else {
                assert!(loaded.is_err(), "{name} should be refused");
            }
        }
        assert!(valid >= 5);
    }
}
