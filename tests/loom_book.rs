//! Loom models of the shared in-memory book ([`devint::auth::LiveBook`]), spec §7:
//! revocation is immediate and rotation leaves no window without a valid token.
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --test loom_book --release`
//! (with a separate `CARGO_TARGET_DIR`).
#![cfg(loom)]

use std::time::Duration;

use devint::auth::{ClientName, LiveBook, Scope, TokenSecret, ToolScope};
use devint::time::UnixSecs;
use devint::verbs::Verb;
use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;

const NOW: UnixSecs = UnixSecs::new(1_800_000_000);

/// A book with one enrolled token. Secrets come from the OS CSPRNG (no test-only
/// constructor), so the model runs with the crate's default features.
fn enrolled() -> (LiveBook, devint::auth::TokenId, String) {
    let book = LiveBook::default();
    let (id, secret) = book
        .issue(
            ClientName::parse("ide").unwrap(),
            Scope::read_only(ToolScope::All),
            Duration::from_secs(3600),
            NOW,
        )
        .unwrap();
    (book, id, secret.expose_secret_hex().to_string())
}

#[test]
fn no_resolve_that_starts_after_revoke_returns_succeeds() {
    loom::model(|| {
        let (book, id, token) = enrolled();
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
        let (book, old_id, old) = enrolled();
        let new_secret = TokenSecret::generate().expect("the OS CSPRNG");
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
