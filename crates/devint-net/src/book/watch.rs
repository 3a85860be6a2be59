//! [`BookWatch`]: an `inotify` instance watching the server's loaded enrolment book and its
//! directory, so that the per-request "is the book untouched?" check is one
//! `ioctl(FIONREAD)` on it — nothing queued means nothing happened — instead of an `fstat`
//! of the book (that `fstat` was the largest single cost of an authorised answer after the
//! socket).
//!
//! This module owns setting the watches up in an order that leaves no gap, the check, and
//! telling, once something is queued, events about the book from events about its
//! neighbours (the audit log, the writers' temporary files). It must never consume an event
//! in the check: two connections check at once, and one that took the event away could let
//! the other answer from the old copy while it reloads; only the reload, holding the book
//! exclusively, drains the queue. It must never take an error, a queue overflow or a
//! removed watch for "unchanged". And it must never be used where a change can come from
//! somewhere the kernel does not see (network and FUSE filesystems, where another host or a
//! daemon changes the file without a local event): [`BookWatch::start`] refuses those, and
//! the caller keeps the `fstat`.
//!
//! Why the check is immediate: the kernel queues the event inside the writer's `rename`,
//! `write`, `truncate`, `chmod` or `unlink`, before that call returns; a request sent after
//! `devint tokens revoke` returned is checked after the event was queued.
//!
//! What is seen: every change to the book's inode (written, truncated, its mode, owner or
//! link count changed, renamed, deleted), every name created, moved or deleted in its
//! directory (a rename over the book, the book renamed away), and the directory itself
//! renamed or deleted. What is not: an edit through a shared memory mapping (no event; the
//! `fstat` check missed most of those too), and a directory *above* the book's replaced while
//! the runtime runs. `devint` itself does neither.

use std::ffi::{CStr, OsStr};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::inotify::{self, CreateFlags, WatchFlags};

/// What happens to the book's own inode that the watch reports.
const BOOK_EVENTS: WatchFlags = WatchFlags::MODIFY
    .union(WatchFlags::ATTRIB)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::DONT_FOLLOW);

/// What happens in and to the book's directory that the watch reports. Not `MODIFY`: the
/// audit log beside the book is appended to at every audited request.
const DIRECTORY_EVENTS: WatchFlags = WatchFlags::CREATE
    .union(WatchFlags::MOVED_TO)
    .union(WatchFlags::MOVED_FROM)
    .union(WatchFlags::DELETE)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::ONLYDIR)
    .union(WatchFlags::DONT_FOLLOW);

/// What the queued events said, once read (see [`BookWatch::drain`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Drained {
    /// Every event was about another name in the book's directory: the book is untouched.
    Neighbours,
    /// Something happened to the book, its name or its directory, events were lost (queue
    /// overflow), a watch was removed, or the queue could not be read: reload.
    Book,
}

/// An `inotify` instance watching the book and its directory (see the module doc).
#[derive(Debug)]
pub(super) struct BookWatch {
    inotify: OwnedFd,
    /// The book's file name in its directory, to tell its events from its neighbours'.
    name: Box<OsStr>,
}

impl BookWatch {
    /// Start watching the directory of the book at `path`. This comes first: from here on,
    /// anything done to the book's name is queued. The caller then opens the book and calls
    /// [`BookWatch::watch_book`], and compares what it opened with what it loaded.
    ///
    /// Refused (the caller keeps its `fstat`) when the directory is on a filesystem that
    /// can change without a local event, or no `inotify` instance or watch can be had (the
    /// per-user limits, `fs.inotify.max_user_instances` and `max_user_watches`).
    pub(super) fn start(path: &Path) -> io::Result<BookWatch> {
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the book's path has no directory or no file name",
            ));
        };
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let f_type = devint_fs::remote::filesystem_type(dir)?;
        BookWatch::start_on(f_type, dir, name)
    }

    /// [`BookWatch::start`] once the directory's filesystem type is known.
    fn start_on(f_type: u64, dir: &Path, name: &OsStr) -> io::Result<BookWatch> {
        if let Some(kind) = devint_fs::remote::remote_kind(f_type) {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("the book's directory is on {kind}, where a change may come from another machine or process without an inotify event"),
            ));
        }
        let inotify = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC)?;
        inotify::add_watch(&inotify, dir, DIRECTORY_EVENTS)?;
        Ok(BookWatch {
            inotify,
            name: name.into(),
        })
    }

    /// Watch the book's own inode, through its path (never following a symlink). Called
    /// after the book was opened: if the name was replaced in between, the directory's
    /// watch has queued it already.
    pub(super) fn watch_book(&self, path: &Path) -> io::Result<()> {
        inotify::add_watch(&self.inotify, path, BOOK_EVENTS)?;
        Ok(())
    }

    /// Whether nothing has been queued since the last [`BookWatch::drain`]. Never consumes
    /// an event; an error is "something may have happened".
    pub(super) fn quiet(&self) -> bool {
        matches!(rustix::io::ioctl_fionread(&self.inotify), Ok(0))
    }

    /// Read every queued event and say whether any was about the book. Only the reload
    /// calls this, holding the book exclusively; an event queued after the read stays
    /// queued for the next check.
    pub(super) fn drain(&self) -> Drained {
        let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
        let mut reader = inotify::Reader::new(&self.inotify, &mut buf);
        let mut drained = Drained::Neighbours;
        loop {
            match reader.next() {
                Ok(event) => {
                    if self.is_about_the_book(event.file_name()) {
                        drained = Drained::Book;
                    }
                }
                Err(rustix::io::Errno::AGAIN) => return drained,
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => return Drained::Book,
            }
        }
    }

    /// Whether one event concerns the book. An event without a name is about a watched
    /// inode itself (the book, or its directory) or about the queue (`IN_Q_OVERFLOW`: events
    /// were lost; `IN_IGNORED`: a watch was removed): all of them are. A named one is about
    /// an entry of the directory: the book's when the name is the book's.
    fn is_about_the_book(&self, name: Option<&CStr>) -> bool {
        name.is_none_or(|name| OsStr::from_bytes(name.to_bytes()) == &*self.name)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn watched(dir: &Path) -> (BookWatch, std::path::PathBuf) {
        let book = dir.join("enrolment.json");
        fs::write(&book, b"{}").unwrap();
        let watch = BookWatch::start(&book).unwrap();
        watch.watch_book(&book).unwrap();
        (watch, book)
    }

    #[test]
    fn a_fresh_watch_is_quiet() {
        let dir = tempfile::tempdir().unwrap();
        let (watch, _) = watched(dir.path());
        assert!(watch.quiet());
        assert_eq!(watch.drain(), Drained::Neighbours);
    }

    #[test]
    fn the_check_never_consumes_an_event() {
        // Two connections checking at once must both see the change, whichever is first.
        let dir = tempfile::tempdir().unwrap();
        let (watch, book) = watched(dir.path());
        fs::write(&book, b"{ }").unwrap();
        assert!(!watch.quiet());
        assert!(!watch.quiet(), "the second check still sees the event");
        assert_eq!(watch.drain(), Drained::Book);
        assert!(watch.quiet(), "drained");
    }

    #[test]
    fn every_change_to_the_book_is_about_the_book() {
        type Change = fn(&Path);
        let changes: [(&str, Change); 6] = [
            ("write in place", |b| fs::write(b, b"[]").unwrap()),
            ("chmod", |b| {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(b, fs::Permissions::from_mode(0o644)).unwrap()
            }),
            ("rename over", |b| {
                let tmp = b.with_extension("tmp");
                fs::write(&tmp, b"[]").unwrap();
                fs::rename(&tmp, b).unwrap()
            }),
            ("rename away", |b| {
                fs::rename(b, b.with_extension("json~")).unwrap()
            }),
            ("delete", |b| fs::remove_file(b).unwrap()),
            ("truncate", |b| {
                fs::OpenOptions::new()
                    .write(true)
                    .open(b)
                    .unwrap()
                    .set_len(0)
                    .unwrap()
            }),
        ];
        for (what, change) in changes {
            let dir = tempfile::tempdir().unwrap();
            let (watch, book) = watched(dir.path());
            change(&book);
            assert!(!watch.quiet(), "{what}: not quiet");
            assert_eq!(watch.drain(), Drained::Book, "{what}");
        }
    }

    #[test]
    fn a_neighbour_coming_and_going_is_not_about_the_book() {
        let dir = tempfile::tempdir().unwrap();
        let (watch, book) = watched(dir.path());
        let tmp = dir.path().join("audit.jsonl");
        fs::write(&tmp, b"x").unwrap();
        fs::write(&tmp, b"xy").unwrap();
        fs::rename(&tmp, dir.path().join("audit.1.jsonl")).unwrap();
        fs::remove_file(dir.path().join("audit.1.jsonl")).unwrap();
        assert!(!watch.quiet(), "the neighbour's creation is queued");
        assert_eq!(watch.drain(), Drained::Neighbours);
        assert!(watch.quiet());
        // And the book's own change after that is still seen.
        fs::write(&book, b"[]").unwrap();
        assert_eq!(watch.drain(), Drained::Book);
    }

    #[test]
    fn the_directory_renamed_is_about_the_book() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("state");
        fs::create_dir(&dir).unwrap();
        let (watch, _) = watched(&dir);
        fs::rename(&dir, root.path().join("state.old")).unwrap();
        assert_eq!(watch.drain(), Drained::Book);
    }

    #[test]
    fn a_book_on_a_network_or_fuse_filesystem_is_not_watched() {
        // No such mount here: the refusal is driven with the type `statfs` would report.
        let dir = tempfile::tempdir().unwrap();
        let name = OsStr::new("enrolment.json");
        for remote in [0x6969, 0x6573_5546, 0xFE53_4D42] {
            let refused = BookWatch::start_on(remote, dir.path(), name).unwrap_err();
            assert_eq!(refused.kind(), io::ErrorKind::Unsupported, "{remote:#x}");
        }
        assert!(
            BookWatch::start_on(0xEF53, dir.path(), name).is_ok(),
            "ext4"
        );
    }

    #[test]
    fn a_path_without_a_file_name_is_refused() {
        assert!(BookWatch::start(Path::new("/")).is_err());
    }
}
