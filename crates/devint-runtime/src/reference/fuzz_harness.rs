//! Invariant checks over the receipt parser, shared by the cargo-fuzz target `receipt` and
//! its corpus replay in `tests/fuzz_replay.rs`.
//!
//! This module owns what "reading an arbitrary receipt file is safe" means, stated as code
//! that panics on a violation. It is test support: it writes only inside its own private
//! scratch directory under the system temp directory, never a runtime's state directory,
//! and is never called by a server or the CLI.
//!
//! The invariants, for arbitrary bytes written as a receipt file:
//! - loading never panics, and bytes that are not UTF-8 are an error, never a receipt;
//! - a receipt is trusted only when the file is a sealed receipt of this build's version
//!   whose integrity digest is the SHA-256 of its body: any other file is refused;
//! - a trusted receipt round-trips: seal → unseal gives an equal receipt, and sealing that
//!   again writes the same bytes;
//! - a sealed receipt with its digest, body or version altered is refused as corrupt;
//! - a value the body holds that this build does not know (an unknown capability, level or
//!   malformed id) is refused naming its field, and only after the seal checked out.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::receipt::{self, ReceiptError, RECEIPT_VERSION};
use devint_fs::scratch::ScratchDir;

/// Whether `text` is a sealed receipt this build may trust: a JSON object whose `version`
/// is [`RECEIPT_VERSION`] and whose `digest` is the SHA-256 of its `body` string.
fn seal_checks_out(text: &str) -> bool {
    let Ok(Value::Object(sealed)) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    let version = sealed.get("version").and_then(Value::as_u64);
    let digest = sealed.get("digest").and_then(Value::as_str);
    let body = sealed.get("body").and_then(Value::as_str);
    match (version, digest, body) {
        (Some(v), Some(d), Some(b)) => {
            v == u64::from(RECEIPT_VERSION) && d == receipt::text_digest(b)
        }
        _ => false,
    }
}

fn assert_corrupt(path: &Path, text: &str, what: &str) {
    match receipt::unseal(path, text) {
        Err(ReceiptError::Corrupt { .. }) => {}
        Ok(_) => panic!("a receipt with {what} was trusted"),
        Err(e) => panic!("a receipt with {what} failed as {e:?}, not as corrupt"),
    }
}

/// `text` with its sealed field `field` replaced by `value`.
fn resealed(text: &str, field: &str, value: Value) -> String {
    let mut sealed: serde_json::Map<String, Value> =
        serde_json::from_str(text).expect("a sealed receipt is a JSON object");
    sealed.insert(field.to_owned(), value);
    serde_json::to_string_pretty(&sealed).expect("a JSON object serialises")
}

/// Writes `data` as a receipt file in a private scratch directory, loads it, and checks the
/// invariants in the module docs. Panics only when one of them breaks.
pub fn receipt(data: &[u8]) {
    let scratch = ScratchDir::new("devint-receipt-fuzz");
    let path = scratch.path().join("claude-code.user.receipt.json");
    fs::write(&path, data).expect("write the scratch receipt");
    let loaded = receipt::load(&path);
    let text = std::str::from_utf8(data);
    let receipt = match (loaded, text) {
        (Ok(Some(r)), Ok(text)) => {
            // The integrity digest is checked: nothing unsealed is trusted.
            assert!(
                seal_checks_out(text),
                "a receipt whose seal does not check out was trusted"
            );
            r
        }
        (Ok(Some(_)), Err(_)) => panic!("bytes that are not UTF-8 were read as a receipt"),
        (Ok(None), _) => panic!("an existing receipt file was read as absent"),
        (Err(ReceiptError::Corrupt { why, .. }), Ok(text)) => {
            // Refused: never for its digest when the digest is the body's.
            assert!(
                !(seal_checks_out(text) && why.contains("digest")),
                "a receipt whose digest matches its body was refused for its digest"
            );
            return;
        }
        (Err(ReceiptError::UnknownValue { .. }), Ok(text)) => {
            // Only an intact seal gets as far as reading the body's values.
            assert!(
                seal_checks_out(text),
                "a receipt whose seal does not check out was read past its seal"
            );
            return;
        }
        (Err(ReceiptError::Io(e)), Ok(_)) => panic!("a readable UTF-8 receipt failed to read: {e}"),
        (Err(_), Err(_)) => return,
    };

    // A trusted receipt round-trips, and sealing is canonical.
    let sealed = receipt::seal(&receipt);
    let again = receipt::unseal(&path, &sealed)
        .unwrap_or_else(|e| panic!("a receipt this build sealed does not unseal: {e}"));
    assert!(again == receipt, "seal → unseal changed the receipt");
    assert_eq!(receipt::seal(&again), sealed, "sealing is not canonical");

    // Tampering is refused.
    let Value::Object(fields) = serde_json::from_str::<Value>(&sealed).expect("sealed JSON") else {
        panic!("a sealed receipt is a JSON object");
    };
    let digest = fields["digest"]
        .as_str()
        .expect("a digest string")
        .to_owned();
    let body = fields["body"].as_str().expect("a body string").to_owned();
    let mut flipped = digest.into_bytes();
    flipped[0] = if flipped[0] == b'0' { b'1' } else { b'0' };
    let flipped = String::from_utf8(flipped).expect("hex is ASCII");
    assert_corrupt(
        &path,
        &resealed(&sealed, "digest", Value::String(flipped)),
        "a wrong digest",
    );
    assert_corrupt(
        &path,
        &resealed(&sealed, "body", Value::String(format!("{body} "))),
        "a body that is not the one digested",
    );
    assert_corrupt(
        &path,
        &resealed(&sealed, "version", Value::from(RECEIPT_VERSION + 1)),
        "another version",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_and_unsealed_json_are_refused_without_panicking() {
        receipt(b"");
        receipt(b"\xff\xfe");
        receipt(b"{}");
        receipt(br#"{"version":1,"digest":"00","body":"{}"}"#);
        let body = "{}";
        let text = format!(
            r#"{{"version":1,"digest":"{}","body":"{{}}"}}"#,
            receipt::text_digest(body)
        );
        receipt(text.as_bytes());
    }

    #[test]
    fn committed_seeds_are_trusted_when_valid_and_refused_when_corrupt() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/receipt");
        let mut seen = (0, 0);
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let loaded = receipt::load(&path);
            if name.starts_with("valid_") {
                assert!(matches!(loaded, Ok(Some(_))), "{name}: {loaded:?}");
                seen.0 += 1;
            } else {
                assert!(loaded.is_err(), "{name} was trusted");
                seen.1 += 1;
            }
            receipt(&fs::read(&path).unwrap());
        }
        assert!(seen.0 >= 5 && seen.1 >= 5, "{seen:?}");
    }
}
