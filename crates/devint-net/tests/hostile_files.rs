//! The socket layer's readers never block or read without bound: the enrolment book
//! (opened by the server on its async workers, so the open must never block), the client's token file (a FIFO
//! must not hang the CLI) and the audit log. Each meets a FIFO, a device, a socket, a
//! directory and an oversize file and must answer within two seconds (or the test fails
//! instead of hanging) with an error naming what the path is.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use devint::auth::BOOK_MAX_BYTES;
use devint_net::audit_log::JsonLinesAuditLog;
use devint_net::book::BookFile;
use devint_net::token_file::read_token_file;

#[derive(Debug, Clone, Copy)]
enum Kind {
    Fifo,
    Device,
    Socket,
    Directory,
    Oversize,
}

const KINDS: [Kind; 5] = [
    Kind::Fifo,
    Kind::Device,
    Kind::Socket,
    Kind::Directory,
    Kind::Oversize,
];

fn private_dir() -> tempfile::TempDir {
    let d = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    d
}

/// Plants `kind` at `path`; these readers never follow a symlink, so a device is a real
/// one (root only: skipped with a printed reason otherwise). Answers the words the error
/// must hold.
fn plant(path: &Path, kind: Kind, oversize: u64) -> Option<(&'static str, Option<UnixListener>)> {
    match kind {
        Kind::Fifo => {
            devint_fs::special::mkfifo(path);
            Some(("named pipe", None))
        }
        Kind::Device if rustix::process::geteuid().is_root() => {
            rustix::fs::mknodat(
                rustix::fs::CWD,
                path,
                rustix::fs::FileType::CharacterDevice,
                rustix::fs::Mode::from_raw_mode(0o600),
                rustix::fs::makedev(1, 5),
            )
            .unwrap();
            Some(("character device", None))
        }
        Kind::Device => {
            println!(
                "skipped: a device at {} needs root to mknod",
                path.display()
            );
            None
        }
        Kind::Socket => Some(("socket", Some(UnixListener::bind(path).unwrap()))),
        Kind::Directory => {
            std::fs::create_dir(path).unwrap();
            Some(("directory", None))
        }
        Kind::Oversize => {
            let f = std::fs::File::create(path).unwrap();
            f.set_len(oversize).unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
            Some(("larger than", None))
        }
    }
}

fn within<T: Send + 'static>(what: String, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(2))
        .unwrap_or_else(|_| panic!("{what}: the reader blocked instead of refusing"))
}

/// Runs `read` against every kind planted at `<dir>/<name>`; an oversize file's error must
/// say `oversize_words`.
fn every_kind(name: &str, oversize: u64, oversize_words: &str, read: fn(PathBuf) -> String) {
    for kind in KINDS {
        let dir = private_dir();
        let path = dir.path().join(name);
        let Some((words, _guard)) = plant(&path, kind, oversize) else {
            continue;
        };
        let words = match kind {
            Kind::Oversize => oversize_words,
            _ => words,
        };
        let message = within(format!("{name} {kind:?}"), move || read(path));
        assert!(
            message.contains(words),
            "{name} meeting {kind:?}: the error does not say {words:?}: {message}"
        );
        assert!(message.contains(name), "{name} {kind:?}: {message}");
    }
}

#[test]
fn the_enrolment_book_reader_refuses_every_non_regular_or_oversize_file() {
    every_kind("book.json", BOOK_MAX_BYTES + 1, "larger than", |path| {
        BookFile::new(path).load().unwrap_err().to_string()
    });
}

#[test]
fn the_token_file_reader_refuses_every_non_regular_file() {
    // A token file is read 66 bytes at most: an oversize one is malformed, never read whole.
    every_kind(
        "devint.token",
        1 << 30,
        "does not hold one token",
        |path| match read_token_file(&path) {
            Err(e) => e.to_string(),
            Ok(_) => "a token was read".into(),
        },
    );
}

#[test]
fn the_audit_log_open_refuses_every_non_regular_file() {
    // The log is append-only and read line by line, each line capped; an oversize log is a
    // regular file and opens (it is not read whole), so that case is the line cap instead.
    for kind in [Kind::Fifo, Kind::Device, Kind::Socket, Kind::Directory] {
        let dir = private_dir();
        let path = dir.path().join("audit.jsonl");
        let Some((words, _guard)) = plant(&path, kind, 0) else {
            continue;
        };
        let message = within(format!("audit log {kind:?}"), move || {
            JsonLinesAuditLog::open(path).unwrap_err().to_string()
        });
        assert!(message.contains(words), "audit log {kind:?}: {message}");
    }
    let dir = private_dir();
    let path = dir.path().join("audit.jsonl");
    std::fs::write(&path, vec![b'x'; 128 * 1024]).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let e = JsonLinesAuditLog::open(path).unwrap_err().to_string();
    assert!(e.contains("damaged at line 1"), "{e}");
}

#[cfg(feature = "test-support")]
mod server_support;

/// The enrolment book replaced by a FIFO under a running server: requests
/// are denied (the book is unavailable, audited), never hung, and the one async worker
/// stays free, so a fresh connection's `Hello` is still answered.
#[cfg(feature = "test-support")]
mod over_the_socket {
    use super::server_support::*;
    use devint::audit::AuthFailureReason;
    use devint_fs::special::mkfifo;

    /// One `list_tools` with the enrolled token: its denial code, under the hang guard.
    async fn denied_code(rt: &Running, raw: &mut Raw, id: u64) -> pb::DenyCode {
        raw.send(&[request(&VerbCall::ListTools, id, &rt.token)])
            .await;
        match raw.recv().await {
            Some(ServerFrame::Denied(d)) => {
                assert_eq!(d.request_id, id);
                d.code()
            }
            other => panic!("expected a denial, got {other:?}"),
        }
    }

    // One worker: a request stuck on the FIFO there would leave nobody to answer a Hello.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn with_a_fifo_as_the_enrolment_book_requests_are_denied_and_a_fresh_hello_is_answered() {
        let mut rt = start_counting(limits());
        let mut open = rt.raw_negotiated().await;
        std::fs::remove_file(&rt.book).unwrap();
        mkfifo(&rt.book);
        // The connection open before the swap: denied, not hung.
        assert_eq!(
            denied_code(&rt, &mut open, 1).await,
            pb::DenyCode::Unauthenticated
        );
        // A fresh connection: its Hello is answered, its request denied too.
        let mut fresh = Raw::connect(&rt.socket).await;
        let ack = fresh.hello(vec![5]).await;
        assert_eq!(ack.di_api_version, 5);
        assert_eq!(
            denied_code(&rt, &mut fresh, 1).await,
            pb::DenyCode::Unauthenticated
        );
        assert!(rt.audited(|k| *k
            == AuditKind::AuthFailure {
                reason: AuthFailureReason::BookUnavailable
            }));
        rt.shutdown().await;
    }
}
