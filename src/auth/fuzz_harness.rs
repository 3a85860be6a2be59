//! Invariant checks over the enrolment-book parser, shared by the cargo-fuzz target
//! `enrolment_book` and its corpus replay in `tests/fuzz_replay.rs`.
//!
//! This module owns what "loading an arbitrary book file is safe" means, stated as code that
//! panics on a violation. It is test support: it writes only inside its own private scratch
//! directory under the system temp directory, never the real book, and is never called by
//! a server or the CLI.
//!
//! The invariants, for arbitrary bytes written as a `0600` book in a `0700` directory:
//! - [`BookFile::load`] never panics;
//! - a loaded book knows a token only if that token's SHA-256 digest is written, in
//!   lowercase hex, in the file: nothing the file does not enrol resolves (checked with
//!   the probe secrets [`probe_secret`]`(0..PROBES)`, whose digests the seeds enrol);
//! - no loaded book is bigger than the number of `digest_sha256` fields in the file, and
//!   every record's token id is written in the file;
//! - a loaded book round-trips: save → load gives an equal book, and saving that again
//!   writes the same bytes.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};

use super::{AuthDenial, BookFile, EnrolmentBook, TokenSecret};
use crate::scratch::ScratchDir;
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
    match book.resolve(&token, Verb::ListTools, "claude-code", 0) {
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

/// Writes `data` as a book file and loads it, checking the invariants in the module doc.
/// Panics only when one of them breaks.
pub fn load_book(data: &[u8]) {
    let scratch = ScratchDir::new("devint-book-fuzz");
    let path = scratch.path().join("enrolment-book.json");
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .expect("create the fuzz book file");
    file.set_permissions(fs::Permissions::from_mode(0o600))
        .expect("set the book file's mode");
    file.write_all(data).expect("write the fuzz book file");
    drop(file);

    let Ok(book) = BookFile::new(&path).load() else {
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

    // Round trip: what we save, we load back unchanged, and saving is canonical.
    let copy = BookFile::new(scratch.path().join("round-trip.json"));
    copy.save(&book).expect("saving a loaded book succeeds");
    let first = fs::read(copy.path()).expect("read the saved book");
    let reloaded = copy.load().expect("a saved book loads");
    assert_eq!(reloaded, book, "load → save → load changed the book");
    copy.save(&reloaded).expect("saving again succeeds");
    let second = fs::read(copy.path()).expect("read the saved book again");
    assert_eq!(
        first, second,
        "saving the same book twice wrote different bytes"
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
        let dir = ScratchDir::new("devint-book-fuzz");
        let path = dir.path().join("b.json");
        fs::write(&path, &text).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let book = BookFile::new(&path).load().unwrap();
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
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let scratch = ScratchDir::new("devint-book-fuzz");
            let copy = scratch.path().join("b.json");
            fs::write(&copy, fs::read(&path).unwrap()).unwrap();
            fs::set_permissions(&copy, fs::Permissions::from_mode(0o600)).unwrap();
            let loaded = BookFile::new(&copy).load();
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
