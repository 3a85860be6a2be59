//! Disk-full and read-only file systems under the enrolment book and the audit log: every
//! failure is a clear error naming the file, and nothing already written is lost — the old
//! book still loads intact and the audit log's hash chain still verifies.
//!
//! Mode bits do not stop root, so the faults are real file systems: a small tmpfs mounted
//! for one test (filled to make the disk full, or remounted read-only). Mounting needs
//! root and a kernel that lets this process mount; without either each test prints why it
//! was skipped and passes (the same approach as `crates/devint-runtime/tests/lifecycle_files.rs`).

use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use devint::audit::{AuditError, AuditEvent, AuditKind, AuditSink};
use devint::auth::{ClientName, EnrolmentBook, Scope, ToolScope};
use devint::time::UnixSecs;
use devint_net::audit_log::{verify, JsonLinesAuditLog};
use devint_net::book::{BookFile, BookFileError};

/// A tmpfs mounted (mode `0700`, owned by us) for one test, unmounted on drop.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        if !rustix::process::geteuid().is_root() {
            println!("skipped: mounting a tmpfs needs root (mode bits do not stop root, and a non-root run cannot fake a full or read-only file system)");
            return None;
        }
        let dir = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
        let status = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir.path())
            .status();
        match status {
            Ok(s) if s.success() => Some(Tmpfs { dir }),
            other => {
                println!("skipped: cannot mount a tmpfs here ({other:?})");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Remount read-only; the kernel refuses while a file is open for writing.
    fn remount_read_only(&self) {
        let ok = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(self.path())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "remounting the test tmpfs read-only failed");
    }

    /// Write a filler file until the file system reports it is full.
    fn fill(&self) {
        let mut filler = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.path().join("filler"))
            .unwrap();
        let block = [0u8; 512];
        loop {
            match filler.write(&block) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(28) => break, // ENOSPC
                Err(e) => panic!("filling the tmpfs failed unexpectedly: {e}"),
            }
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

fn book_with(clients: usize) -> EnrolmentBook {
    let mut book = EnrolmentBook::new();
    for i in 0..clients {
        book.issue(
            ClientName::parse(&format!("client-{i}")).unwrap(),
            Scope::read_only(ToolScope::All),
            Duration::from_secs(3600),
            UnixSecs::new(1_700_000_000),
        )
        .unwrap();
    }
    book
}

fn temp_leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

fn os_error(err: &BookFileError) -> Option<i32> {
    match err {
        BookFileError::Io { source, .. } => source.raw_os_error(),
        _ => None,
    }
}

const ENOSPC: i32 = 28;
const EROFS: i32 = 30;

#[test]
fn a_full_disk_refuses_the_book_save_and_the_old_book_still_loads() {
    let Some(fs_) = Tmpfs::mount("64k") else {
        return;
    };
    let file = BookFile::new(fs_.path().join("book.json"));
    let old = book_with(2);
    file.save(&old).unwrap();
    fs_.fill();

    let err = file.save(&book_with(200)).unwrap_err();
    assert_eq!(os_error(&err), Some(ENOSPC), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("book.json"), "{message}");
    assert!(message.contains("could not write"), "{message}");

    assert_eq!(file.load().unwrap(), old, "the old book must load intact");
    assert!(temp_leftovers(fs_.path()).is_empty());
}

#[test]
fn a_full_disk_fails_a_book_update_and_the_change_is_not_half_applied() {
    let Some(fs_) = Tmpfs::mount("64k") else {
        return;
    };
    let file = BookFile::new(fs_.path().join("book.json"));
    let old = book_with(1);
    file.save(&old).unwrap();
    drop(file.lock().unwrap()); // the lock file exists before the disk fills
    fs_.fill();

    let err = file
        .update(|book| {
            for i in 0..200 {
                book.issue(
                    ClientName::parse(&format!("late-{i}")).unwrap(),
                    Scope::read_only(ToolScope::All),
                    Duration::from_secs(60),
                    UnixSecs::new(1_700_000_000),
                )?;
            }
            Ok(())
        })
        .unwrap_err();
    assert_eq!(os_error(&err), Some(ENOSPC), "{err:?}");
    assert_eq!(file.load().unwrap(), old);
    assert!(temp_leftovers(fs_.path()).is_empty());
}

#[test]
fn a_read_only_file_system_refuses_the_book_save_and_the_old_book_still_loads() {
    let Some(fs_) = Tmpfs::mount("1m") else {
        return;
    };
    let file = BookFile::new(fs_.path().join("book.json"));
    let old = book_with(2);
    file.save(&old).unwrap();
    fs_.remount_read_only();

    let err = file.save(&book_with(3)).unwrap_err();
    assert_eq!(os_error(&err), Some(EROFS), "{err:?}");
    assert!(err.to_string().contains("book.json"), "{err}");

    // A revocation that cannot be written fails loudly; the lock file cannot even be opened
    // for writing, and the token stays enrolled on disk rather than half-revoked.
    let victim = old.list().next().unwrap().token_id().clone();
    let err = file
        .update(|book| book.revoke(&victim).map(|_| ()))
        .unwrap_err();
    assert_eq!(os_error(&err), Some(EROFS), "{err:?}");

    let reloaded = file.load().unwrap();
    assert_eq!(reloaded, old);
    assert!(reloaded.get(&victim).is_some());
}

fn event(i: u64) -> AuditEvent {
    AuditEvent::new(UnixSecs::new(1_700_000_000 + i), AuditKind::UnknownVerb)
        .with_connection(i)
        .with_peer_uid(0)
}

fn records_in(path: &Path) -> usize {
    verify(path)
        .unwrap_or_else(|e| panic!("the audit chain must still verify: {e}"))
        .records
}

#[test]
fn a_full_disk_fails_the_audit_append_and_the_chain_still_verifies() {
    let Some(fs_) = Tmpfs::mount("64k") else {
        return;
    };
    let path: PathBuf = fs_.path().join("audit.jsonl");
    let log = JsonLinesAuditLog::open(&path).unwrap();
    for i in 0..3 {
        log.record(&event(i)).unwrap();
    }
    fs_.fill();

    // The log's last page has room left; keep appending until the disk refuses one. The
    // refused line must not be left behind half-written.
    let mut written = 3;
    let err = loop {
        match log.record(&event(written as u64)) {
            Ok(()) => written += 1,
            Err(e) => break e,
        }
        assert!(written < 10_000, "the full tmpfs never refused an append");
    };
    match &err {
        AuditError::Io { source, .. } => assert_eq!(source.raw_os_error(), Some(ENOSPC)),
        other => panic!("expected an IO error, got {other:?}"),
    }
    assert!(err.to_string().contains("audit.jsonl"), "{err}");
    assert_eq!(records_in(&path), written, "every accepted record survives");

    // A second refusal leaves the chain intact too, and after space is freed the log
    // continues the same chain.
    assert!(log.record(&event(99_999)).is_err());
    assert_eq!(records_in(&path), written);
    fs::remove_file(fs_.path().join("filler")).unwrap();
    log.record(&event(100_000)).unwrap();
    assert_eq!(records_in(&path), written + 1);
    assert_eq!(verify(&path).unwrap().head_sha256, log.head());
}

#[test]
fn queued_refusals_refused_by_a_full_disk_are_counted_and_the_chain_still_verifies() {
    let Some(fs_) = Tmpfs::mount("64k") else {
        return;
    };
    let path: PathBuf = fs_.path().join("audit.jsonl");
    let log = JsonLinesAuditLog::open(&path).unwrap();
    for i in 0..3 {
        log.record_deferred(&event(i)).unwrap();
    }
    log.flush().unwrap();
    assert_eq!(records_in(&path), 3);
    fs_.fill();

    // Queue refusals until a batch is refused: `flush` reports it (it was also logged), and
    // nothing half-written is left behind.
    let mut queued = 3;
    let err = loop {
        log.record_deferred(&event(queued)).unwrap();
        queued += 1;
        if let Err(e) = log.flush() {
            break e;
        }
        assert!(queued < 10_000, "the full tmpfs never refused a batch");
    };
    match &err {
        AuditError::Io { source, .. } => assert_eq!(source.raw_os_error(), Some(ENOSPC)),
        other => panic!("expected an IO error, got {other:?}"),
    }
    assert!(err.to_string().contains("audit.jsonl"), "{err}");
    let kept = records_in(&path);
    assert!(kept < queued as usize);

    // Space freed: the chain continues from the last record that was written.
    fs::remove_file(fs_.path().join("filler")).unwrap();
    log.record_deferred(&event(100_000)).unwrap();
    log.flush().unwrap();
    assert_eq!(records_in(&path), kept + 1);
    assert_eq!(verify(&path).unwrap().head_sha256, log.head());
}

#[test]
fn a_read_only_file_system_refuses_to_open_the_audit_log_and_the_chain_still_verifies() {
    let Some(fs_) = Tmpfs::mount("1m") else {
        return;
    };
    let path = fs_.path().join("audit.jsonl");
    let head = {
        let log = JsonLinesAuditLog::open(&path).unwrap();
        for i in 0..5 {
            log.record(&event(i)).unwrap();
        }
        log.head()
    };
    fs_.remount_read_only();

    let err = JsonLinesAuditLog::open(&path).unwrap_err();
    match &err {
        AuditError::Io { source, .. } => assert_eq!(source.raw_os_error(), Some(EROFS)),
        other => panic!("expected an IO error, got {other:?}"),
    }
    assert!(err.to_string().contains("audit.jsonl"), "{err}");
    let chain = verify(&path).unwrap();
    assert_eq!(chain.records, 5);
    assert_eq!(chain.head_sha256, head);

    // A log that does not exist yet cannot be created there either, and says so.
    let err = JsonLinesAuditLog::open(fs_.path().join("new.jsonl")).unwrap_err();
    assert!(
        matches!(&err, AuditError::Io { source, .. } if source.raw_os_error() == Some(EROFS)),
        "{err:?}"
    );
    assert!(!fs_.path().join("new.jsonl").exists());
}

#[test]
fn a_missing_book_on_a_read_only_file_system_still_loads_as_empty() {
    // Reading never needs to write: a server can start on a read-only state directory.
    let Some(fs_) = Tmpfs::mount("64k") else {
        return;
    };
    fs_.remount_read_only();
    let file = BookFile::new(fs_.path().join("book.json"));
    assert!(file.load().unwrap().is_empty());
    let err = file.save(&book_with(1)).unwrap_err();
    assert!(
        matches!(os_error(&err), Some(EROFS))
            || matches!(&err, BookFileError::Io { source, .. } if source.kind() == ErrorKind::ReadOnlyFilesystem),
        "{err:?}"
    );
}
