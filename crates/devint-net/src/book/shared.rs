//! [`SharedBook`]: the server's view of the book file, shared by all its connections.
//!
//! At every `resolve` it checks that the file it loaded is unchanged, and if another process
//! (the CLI) replaced or edited it, reloads before answering. So a `devint tokens revoke` is
//! seen by the next request on every connection, already open or not (spec §7).
//!
//! The check is one `ioctl(FIONREAD)` on an `inotify` instance watching the loaded book and
//! its directory (`super::watch`: anything queued means something happened; ~0.2 µs, against
//! ~0.3–0.6 µs for an `fstat`). The watches are set up before the loaded file is opened
//! again and compared with what was loaded, so no change falls in between. When something is
//! queued, the reload (holding the book exclusively) reads the events: only neighbours'
//! (the audit log, a writer's temporary file) changes nothing; anything about the book, its
//! name or its directory, or lost events, re-reads the book without trusting its `stat`.
//!
//! Where there is no watch — no `inotify` instance to be had (the per-user limits), or the
//! book on a network or FUSE filesystem, where a change can come without a local event — the
//! check is one `fstat` of the loaded file, held open: its identity, size, `mtime`, `ctime`
//! and link count against what was loaded. An atomic replacement (rename over it, as `devint
//! tokens` does) or a deletion unlinks the held file, so its link count drops, whatever the
//! clock's granularity; an edit in place changes its size or `mtime`, renaming it away or
//! changing its mode its `ctime`. Any difference falls back to the `stat` by path and a
//! reload. That check misses renaming the book away within the same timestamp tick as its
//! previous change, an edit in place of the same size within one tick, and the book's own
//! directory renamed away and replaced (which the watch sees).
//!
//! Neither check sees a *directory above* the book's replaced while the runtime runs, or an
//! edit through a shared memory mapping; `devint` itself does neither. With no book file
//! (nothing enrolled) or a broken one, every check is a `stat` by path.
//!
//! No check reads the file. The `stat` by path and the re-read run off the async workers
//! (a file that blocks — a FIFO, a stalled network mount — must not stall the workers
//! every connection shares) and still before the `resolve`
//! returns, so revocation stays immediate.
//!
//! If the file cannot be read or is corrupt, every `resolve` is refused with
//! [`ResolveError::BookUnavailable`] (logged at `error`, and returned so the caller can
//! audit it) until the file is fixed; the previously loaded copy is never used again.

use std::fs::File;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::sync::{Arc, RwLock};

use devint::auth::{EnrolmentBook, Grant, LiveBook, ResolveError, TokenResolver};
use devint::time::UnixSecs;
use devint::verbs::Verb;

use super::file::{BookFile, BookFileError, BookFingerprint};
use super::watch::{BookWatch, Drained};

/// How the per-request check is done while a loaded book is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Through an `inotify` watch when one can be had, else `fstat`.
    Watch,
    /// `fstat` only (the fallback, kept testable on machines where watching works).
    #[cfg_attr(not(test), allow(dead_code))]
    Fstat,
}

#[derive(Debug)]
enum Loaded {
    /// The copy in memory is the file with this fingerprint; `held` is what the cheap
    /// check looks at, when the file could be opened again and was still the same file.
    Fresh {
        fingerprint: BookFingerprint,
        held: Option<Held>,
    },
    Broken(BookFingerprint, Arc<BookFileError>),
}

impl Loaded {
    fn fresh(fingerprint: BookFingerprint, file: &BookFile, check: Check) -> Loaded {
        Loaded::Fresh {
            fingerprint,
            held: hold(file, fingerprint, check),
        }
    }
}

/// What the cheap check looks at: the watch on the loaded book, or, without one, the loaded
/// book file held open with its link count when it was opened.
#[derive(Debug)]
enum Held {
    Watched(BookWatch),
    Open { file: File, links: u64 },
}

impl Held {
    /// Whether the loaded file is certainly still exactly what was loaded: nothing queued on
    /// its watch, or one `fstat` of the held file matching.
    fn unchanged(&self, fingerprint: BookFingerprint) -> bool {
        match self {
            Held::Watched(watch) => watch.quiet(),
            Held::Open { file, links } => file
                .metadata()
                .is_ok_and(|m| m.nlink() == *links && BookFingerprint::of(&m) == fingerprint),
        }
    }
}

/// Open the book again to check it cheaply, if it is still the file with `fingerprint`.
/// Opened non-blocking and without following a symlink, and never read: a FIFO or device put
/// in its place cannot hang this (and would not match the fingerprint of a regular file).
///
/// With [`Check::Watch`], the directory's watch starts before the open and the book's own
/// after it, so a change at any moment after the comparison with `fingerprint` is queued.
fn hold(file: &BookFile, fingerprint: BookFingerprint, check: Check) -> Option<Held> {
    if fingerprint == BookFingerprint::Missing {
        return None;
    }
    let watch = match check {
        Check::Watch => or_fstat(BookWatch::start(file.path())),
        Check::Fstat => None,
    };
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    let held = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(file.path())
        .ok()?;
    let watch = watch.filter(|w| or_fstat(w.watch_book(file.path())).is_some());
    let meta = held.metadata().ok()?;
    (BookFingerprint::of(&meta) == fingerprint).then(|| match watch {
        Some(watch) => Held::Watched(watch),
        None => Held::Open {
            links: meta.nlink(),
            file: held,
        },
    })
}

/// A step of setting up the watch; when it fails there is no watch, and the `fstat` check
/// stands in (said at `debug`; it is slower, and misses what the module doc says it misses).
fn or_fstat<T>(step: std::io::Result<T>) -> Option<T> {
    step.inspect_err(|e| tracing::debug!(error = %e, "enrolment book checked by fstat"))
        .ok()
}

/// Run `f`, which may read a file, off the async workers: on a worker of a multi-threaded
/// tokio runtime through `block_in_place` (the worker's other tasks move on first); on any
/// other thread (a blocking-pool thread, a plain thread, a current-thread runtime, where
/// there is no other worker to hand over to) right here.
fn off_async_worker<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// The book file plus the in-memory copy resolved against, kept in step with the file.
#[derive(Debug)]
pub struct SharedBook {
    file: BookFile,
    live: LiveBook,
    /// What was loaded. The per-request check takes it shared (connections on different
    /// workers check at once, none waiting and none pushed off its worker by another's
    /// check); a reload takes it exclusively.
    loaded: RwLock<Loaded>,
    check: Check,
}

impl SharedBook {
    /// Load `file` now; a corrupt or exposed book is an error at start-up.
    pub fn open(file: BookFile) -> Result<SharedBook, BookFileError> {
        SharedBook::open_checking(file, Check::Watch)
    }

    fn open_checking(file: BookFile, check: Check) -> Result<SharedBook, BookFileError> {
        let (book, fingerprint) = file.load_with_fingerprint()?;
        Ok(SharedBook {
            live: LiveBook::new(book),
            loaded: RwLock::new(Loaded::fresh(fingerprint, &file, check)),
            file,
            check,
        })
    }

    /// The book file.
    pub fn file(&self) -> &BookFile {
        &self.file
    }

    /// Bring the in-memory copy in step with the file. Returns the load error if the file
    /// is (still) unreadable.
    ///
    /// The check that the loaded file is untouched (one `ioctl` on its watch, or one
    /// `fstat`; never a read) runs on the calling thread. Anything more — a `stat` by path and the re-read — runs off the async
    /// workers when called on one (tokio's `block_in_place`: the worker hands its other
    /// tasks on first), and still before this returns, so a revocation is seen by this very
    /// request. Only one reload runs at a time; the quick check never waits for one.
    pub fn refresh(&self) -> Result<(), Arc<BookFileError>> {
        if self.untouched() {
            return Ok(());
        }
        off_async_worker(|| self.reload_if_changed())
    }

    /// Whether the file loaded is still exactly what is in memory (one `ioctl` or `fstat`;
    /// false when there is nothing held to check, or a reload holds the state).
    fn untouched(&self) -> bool {
        let Ok(loaded) = self.loaded.try_read() else {
            return false;
        };
        matches!(
            &*loaded,
            Loaded::Fresh { fingerprint, held: Some(held) } if held.unchanged(*fingerprint)
        )
    }

    /// The slow path: read the watch's events, `stat` by path and, when the file changed,
    /// reload it.
    fn reload_if_changed(&self) -> Result<(), Arc<BookFileError>> {
        let mut loaded = self.loaded.write().unwrap_or_else(|p| p.into_inner());
        // Set when the watch reported the book touched: re-read it even if its `stat` looks
        // the same (an edit in place within one timestamp tick).
        let mut touched = false;
        if let Loaded::Fresh {
            fingerprint,
            held: Some(held),
        } = &*loaded
        {
            // Another request may have reloaded while this one waited.
            if held.unchanged(*fingerprint) {
                return Ok(());
            }
            if let Held::Watched(watch) = held {
                match watch.drain() {
                    Drained::Neighbours => return Ok(()),
                    Drained::Book => touched = true,
                }
            }
        }
        let now_fp = self.file.fingerprint();
        let now_fp = match now_fp {
            Ok(fp) => fp,
            Err(e) => {
                let e = Arc::new(e);
                tracing::error!(error = %e, "enrolment book unavailable; denying every token");
                // Force a reload once stat works again.
                *loaded = Loaded::Broken(BookFingerprint::Missing, Arc::clone(&e));
                self.live.replace(EnrolmentBook::new());
                return Err(e);
            }
        };
        match &*loaded {
            Loaded::Fresh { fingerprint, .. } if *fingerprint == now_fp && !touched => {
                return Ok(())
            }
            Loaded::Broken(fp, e) if *fp == now_fp && now_fp != BookFingerprint::Missing => {
                return Err(Arc::clone(e))
            }
            _ => {}
        }
        match self.file.load_with_fingerprint() {
            Ok((book, fp)) => {
                self.live.replace(book);
                *loaded = Loaded::fresh(fp, &self.file, self.check);
                Ok(())
            }
            Err(e) => {
                let e = Arc::new(e);
                tracing::error!(error = %e, "enrolment book unavailable; denying every token");
                // Never keep answering from the old copy.
                self.live.replace(EnrolmentBook::new());
                *loaded = Loaded::Broken(now_fp, Arc::clone(&e));
                Err(e)
            }
        }
    }

    // spec[S7-REVOCATION] §7: after a revocation, the next request on any connection, already
    // open or not, is denied.
    /// Resolve one request's token against the book as it is on disk now.
    pub fn resolve(
        &self,
        token: &str,
        verb: Verb,
        tool: &str,
        now: UnixSecs,
    ) -> Result<Grant, ResolveError> {
        self.refresh()
            .map_err(|e| ResolveError::BookUnavailable(e))?;
        Ok(self.live.resolve(token, verb, tool, now)?)
    }

    /// The in-memory copy (as of the last refresh).
    pub fn live(&self) -> &LiveBook {
        &self.live
    }
}

impl TokenResolver for SharedBook {
    fn resolve(
        &self,
        token: &str,
        verb: Verb,
        tool: &str,
        now: UnixSecs,
    ) -> Result<Grant, ResolveError> {
        SharedBook::resolve(self, token, verb, tool, now)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::time::Duration;

    use devint::auth::{AuthDenial, ClientName, Scope, ToolScope};

    use super::*;

    const NOW: u64 = 1_800_000_000;

    /// A private state directory with a book holding one enrolment; its token.
    fn enrolled(root: &std::path::Path) -> (BookFile, String) {
        let state = root.join("state");
        fs::create_dir(&state).unwrap();
        fs::set_permissions(&state, fs::Permissions::from_mode(0o700)).unwrap();
        let file = BookFile::new(state.join("enrolment.json"));
        let token = file
            .update(|book| {
                book.issue(
                    ClientName::parse("ide").unwrap(),
                    Scope::full_lifecycle(ToolScope::All),
                    Duration::from_secs(3600),
                    UnixSecs::new(NOW),
                )
            })
            .map(|(_, secret)| secret.expose_secret_hex().to_string())
            .unwrap();
        (file, token)
    }

    fn status(book: &SharedBook, token: &str) -> Result<Grant, ResolveError> {
        book.resolve(token, Verb::Status, "codex", UnixSecs::new(NOW))
    }

    /// Revoke every record, as `devint tokens revoke` does (an atomic replacement).
    fn revoke_all(file: &BookFile) {
        file.update(|b| {
            let ids: Vec<_> = b.list().map(|r| r.token_id().clone()).collect();
            ids.iter().try_for_each(|id| b.revoke(id).map(drop))
        })
        .unwrap();
    }

    fn denied(result: Result<Grant, ResolveError>) -> bool {
        matches!(result, Err(ResolveError::Denied(AuthDenial::Unknown)))
    }

    fn watched(book: &SharedBook) -> bool {
        matches!(
            &*book.loaded.read().unwrap(),
            Loaded::Fresh {
                held: Some(Held::Watched(_)),
                ..
            }
        )
    }

    #[test]
    fn a_book_on_a_local_filesystem_is_checked_through_a_watch() {
        let root = tempfile::tempdir().unwrap();
        let (file, token) = enrolled(root.path());
        let book = SharedBook::open(file.clone()).unwrap();
        assert!(watched(&book));
        revoke_all(&file);
        assert!(denied(status(&book, &token)));
        assert!(watched(&book), "the reloaded book is watched again");
    }

    #[test]
    fn without_a_watch_every_change_is_still_seen_at_the_next_resolve() {
        type Change = fn(&BookFile);
        let changes: [(&str, Change); 3] = [
            ("revoked by the CLI", revoke_all),
            ("edited in place", |f| {
                let empty = f.path().with_extension("empty");
                BookFile::new(&empty).save(&EnrolmentBook::new()).unwrap();
                fs::write(f.path(), fs::read(&empty).unwrap()).unwrap();
            }),
            ("renamed away and replaced", |f| {
                fs::rename(f.path(), f.path().with_extension("json~")).unwrap();
                f.save(&EnrolmentBook::new()).unwrap();
            }),
        ];
        for (what, change) in changes {
            let root = tempfile::tempdir().unwrap();
            let (file, token) = enrolled(root.path());
            let book = SharedBook::open_checking(file.clone(), Check::Fstat).unwrap();
            assert!(!watched(&book));
            assert!(status(&book, &token).is_ok(), "{what}");
            change(&file);
            assert!(denied(status(&book, &token)), "{what}");
        }
    }
}
