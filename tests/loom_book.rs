//! Loom models of the shared in-memory book ([`devint::auth::LiveBook`]), spec §7:
//! revocation is immediate and rotation leaves no window without a valid token.
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --test loom_book --release`
//! (with a separate `CARGO_TARGET_DIR`).
#![cfg(loom)]

use std::time::Duration;

use devint::auth::{ClientName, LiveBook, Scope, TokenSecret, ToolScope};
use devint::verbs::Verb;
use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;

const NOW: u64 = 1_800_000_000;

fn enrolled(secret_byte: u8) -> (LiveBook, devint::auth::TokenId, String) {
    let book = LiveBook::default();
    let secret = TokenSecret::from_bytes([secret_byte; 32]);
    let hex = secret.expose_secret_hex().to_string();
    let id = book
        .issue_with_secret(
            ClientName::parse("ide").unwrap(),
            Scope::read_only(ToolScope::All),
            Duration::from_secs(3600),
            NOW,
            &secret,
        )
        .unwrap();
    (book, id, hex)
}

#[test]
fn no_resolve_that_starts_after_revoke_returns_succeeds() {
    loom::model(|| {
        let (book, id, token) = enrolled(1);
        let book = Arc::new(book);
        let revoked = Arc::new(AtomicBool::new(false));

        let revoker = {
            let (book, revoked) = (Arc::clone(&book), Arc::clone(&revoked));
            thread::spawn(move || {
                book.revoke(&id).unwrap();
                revoked.store(true, Ordering::SeqCst);
            })
        };
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (book, revoked, token) =
                    (Arc::clone(&book), Arc::clone(&revoked), token.clone());
                thread::spawn(move || {
                    let after_revoke = revoked.load(Ordering::SeqCst);
                    let resolved = book.resolve(&token, Verb::Status, "codex", NOW).is_ok();
                    assert!(!(after_revoke && resolved), "a revoked token resolved");
                })
            })
            .collect();
        revoker.join().unwrap();
        for r in readers {
            r.join().unwrap();
        }
        assert!(book.resolve(&token, Verb::Status, "codex", NOW).is_err());
    });
}

#[test]
fn rotation_never_leaves_neither_token_valid() {
    loom::model(|| {
        let (book, old_id, old) = enrolled(1);
        let new_secret = TokenSecret::from_bytes([2; 32]);
        let new = new_secret.expose_secret_hex().to_string();
        let book = Arc::new(book);

        let rotator = {
            let book = Arc::clone(&book);
            thread::spawn(move || {
                book.rotate_with_secret(&old_id, NOW, &new_secret).unwrap();
            })
        };
        let reader = {
            let book = Arc::clone(&book);
            thread::spawn(move || {
                for _ in 0..2 {
                    // Old first: if the old one is gone, the new one must already be there.
                    let old_ok = book.resolve(&old, Verb::Status, "codex", NOW).is_ok();
                    let new_ok = book.resolve(&new, Verb::Status, "codex", NOW).is_ok();
                    assert!(
                        old_ok || new_ok,
                        "neither the old nor the new token resolved"
                    );
                }
            })
        };
        rotator.join().unwrap();
        reader.join().unwrap();
        assert_eq!(book.list().len(), 1);
    });
}
