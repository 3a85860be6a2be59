//! The files an answer was derived from, byte for byte: the record that lets the runtime
//! give the same answer again, without deriving it again, while every one of those files
//! still reads the same.
//!
//! Every read of a state or settings file on the `status` path (receipts, the settings file,
//! the policy profile, recorded evidence) goes through [`text`] or [`bytes`]. While
//! [`recorded`] runs, each read is also written down: the path, how it was read, and exactly
//! what it returned. [`Read::holds`] reads a file again the same way and compares bytes. An
//! answer is a function of what its reads returned (each read's path comes from what earlier
//! reads returned, the rest is the runtime's fixed configuration and inputs its caller keys
//! on), so when every recorded read returns the same bytes again, in order, the answer is the
//! one already made. This is content, not file identity: no inode, size or timestamp can
//! repeat and make an old answer look current.
//!
//! Owns the recording and the comparison, nothing else. It must never stand in for a read
//! (every check reads the file now), never record a read that failed (an answer derived from
//! an error is never remembered), and never be used for a read whose result is not part of
//! the answer it is recorded for.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use super::pure_memo::MAX_KEPT_BYTES;
use devint_fs::durable::{self, DurableError};
use devint_fs::read::{self, Follow, Limit, ReadError};

/// One read, as it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Read {
    path: PathBuf,
    follow: Follow,
    limit: Limit,
    kind: Kind,
    /// What the read returned (`None`: nothing there).
    found: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// [`durable::read_optional`]: UTF-8 text.
    Text,
    /// [`read::read_bytes`]: any bytes.
    Bytes,
}

/// The reads of the [`recorded`] call running on this thread, or `None` when none runs; a
/// failed read turns the record into `Err(())`, which is never handed out.
type Record = Option<Result<Vec<Read>, ()>>;

thread_local! {
    static RECORDING: RefCell<Record> = const { RefCell::new(None) };
}

impl Read {
    /// The file read.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file still reads exactly as it did (read again now, the same way).
    pub(super) fn holds(&self) -> bool {
        let again = match self.kind {
            Kind::Text => durable::read_optional(&self.path, self.follow, self.limit)
                .map(|t| t.map(String::into_bytes))
                .ok(),
            Kind::Bytes => read::read_bytes(&self.path, self.follow, self.limit).ok(),
        };
        again.as_ref() == Some(&self.found)
    }
}

/// Whether every read of `reads` returns what it returned, checked in order (stopping at the
/// first that does not).
pub(super) fn all_hold(reads: &[Read]) -> bool {
    reads.iter().all(Read::holds)
}

/// Runs `derive`, and returns with its result every read it made — `None` when a read
/// failed, when the reads hold more than [`MAX_KEPT_BYTES`] (too much to keep), or when a
/// recording already runs on this thread; that result is then not remembered.
pub(super) fn recorded<R>(derive: impl FnOnce() -> R) -> (R, Option<Vec<Read>>) {
    let nested = RECORDING.with(|r| {
        let mut r = r.borrow_mut();
        let nested = r.is_some();
        if !nested {
            *r = Some(Ok(Vec::new()));
        }
        nested
    });
    if nested {
        return (derive(), None);
    }
    // Taken back even if `derive` unwinds, so the thread never keeps recording.
    struct Stop;
    impl Drop for Stop {
        fn drop(&mut self) {
            RECORDING.with(|r| r.borrow_mut().take());
        }
    }
    let stop = Stop;
    let result = derive();
    let reads = RECORDING
        .with(|r| r.borrow_mut().take())
        .and_then(Result::ok)
        .filter(|reads| {
            let held: usize = reads
                .iter()
                .map(|r| r.found.as_ref().map_or(0, Vec::len))
                .sum();
            held <= MAX_KEPT_BYTES
        });
    drop(stop);
    (result, reads)
}

fn note(path: &Path, follow: Follow, limit: Limit, kind: Kind, got: Result<Option<&[u8]>, ()>) {
    RECORDING.with(|r| {
        let mut r = r.borrow_mut();
        let Some(record) = r.as_mut() else { return };
        match (record, got) {
            (Ok(reads), Ok(found)) => reads.push(Read {
                path: path.to_owned(),
                follow,
                limit,
                kind,
                found: found.map(<[u8]>::to_vec),
            }),
            (record, _) => *record = Err(()),
        }
    });
}

/// [`durable::read_optional`], noted in the running record.
pub(super) fn text(
    path: &Path,
    follow: Follow,
    limit: Limit,
) -> Result<Option<String>, DurableError> {
    let got = durable::read_optional(path, follow, limit);
    let seen = got.as_ref().map(|t| t.as_deref().map(str::as_bytes));
    note(path, follow, limit, Kind::Text, seen.map_err(|_| ()));
    got
}

/// [`read::read_bytes`], noted in the running record.
pub(super) fn bytes(
    path: &Path,
    follow: Follow,
    limit: Limit,
) -> Result<Option<Vec<u8>>, ReadError> {
    let got = read::read_bytes(path, follow, limit);
    let seen = got.as_ref().map(|b| b.as_deref());
    note(path, follow, limit, Kind::Bytes, seen.map_err(|_| ()));
    got
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &Path) -> Option<String> {
        text(path, Follow::NoFinalSymlink, Limit::STATE).unwrap()
    }

    #[test]
    fn a_record_holds_exactly_while_every_file_reads_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "one").unwrap();
        let (got, reads) = recorded(|| (read(&a), read(&b)));
        assert_eq!(got, (Some("one".into()), None));
        let reads = reads.expect("both reads succeeded");
        assert_eq!(reads.len(), 2);
        assert!(all_hold(&reads));
        // Same length, same file, other bytes: content is compared, not size or identity.
        std::fs::write(&a, "two").unwrap();
        assert!(!all_hold(&reads));
        std::fs::write(&a, "one").unwrap();
        assert!(all_hold(&reads));
        // A file that was absent and now exists.
        std::fs::write(&b, "").unwrap();
        assert!(!all_hold(&reads));
    }

    #[test]
    fn a_failed_read_is_never_remembered_and_reads_outside_a_record_are_not_noted() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("d");
        std::fs::create_dir(&sub).unwrap();
        let (_, reads) = recorded(|| text(&sub, Follow::NoFinalSymlink, Limit::STATE).is_err());
        assert!(
            reads.is_none(),
            "a directory where a file should be fails the read"
        );
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        read(&file);
        let (_, reads) = recorded(|| ());
        assert_eq!(reads, Some(Vec::new()), "nothing from before the record");
    }

    #[test]
    fn reads_too_large_to_keep_are_not_handed_out() {
        let dir = tempfile::tempdir().unwrap();
        let (small, large) = (dir.path().join("small"), dir.path().join("large"));
        std::fs::write(&small, "x".repeat(MAX_KEPT_BYTES / 2)).unwrap();
        std::fs::write(&large, "y".repeat(MAX_KEPT_BYTES / 2 + 1)).unwrap();
        assert!(recorded(|| read(&small)).1.is_some());
        assert!(recorded(|| (read(&small), read(&large))).1.is_none());
    }

    #[test]
    fn a_nested_record_returns_nothing_and_the_outer_one_keeps_every_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let (inner, outer) = recorded(|| {
            read(&file);
            recorded(|| read(&file)).1
        });
        assert!(inner.is_none());
        assert_eq!(outer.map(|r| r.len()), Some(2));
    }
}
