//! [`ReadsWatch`]: an `inotify` instance watching every file a remembered answer was read
//! from and every directory on the way to each, so that "does every file still read as it
//! did?" is one `ioctl(FIONREAD)` — nothing queued means nothing happened — instead of
//! reading each file again. It is what lets a `status` be answered on the connection's own
//! thread (`Lifecycle::status_at_once`): no file is opened, so nothing can block.
//!
//! Why the check is immediate: the kernel queues an event inside the writer's `write`,
//! `rename`, `truncate`, `chmod` or `unlink`, before that call returns, so a request sent
//! after an edit returned is checked after its event was queued (as for the enrolment
//! book's watch in `devint-net`).
//!
//! What is watched, for each path read (absolute, with no symlink anywhere on it):
//! - every directory from `/` down to the file's own, for the next name on the way
//!   created, deleted, moved in or out, written or changed in mode: an ancestor replaced or
//!   renamed is seen, and so is a file that did not exist being created;
//! - the file itself, when it exists: written, truncated, its mode changed, moved or
//!   deleted, whichever name it was reached by.
//!
//! Events about other names in a watched directory (the audit log beside the state files, a
//! tool's own files beside its settings) change nothing and are read away. Anything else —
//! an event about a watched name or inode, lost events (queue overflow), a removed watch, a
//! queue that cannot be read — spoils the watch for good: the answer is derived again and a
//! new watch is made.
//!
//! Owns making the watch and that check. It must never vouch for a path it could not watch
//! whole: a relative path, a path with a symlink on it (its target can change with no event
//! on the path), a path on a network or FUSE filesystem (another host or a daemon can
//! change it with no local event), or a watch the per-user limits refused — [`ReadsWatch::start`]
//! fails and the caller reads the files again instead. What it does not see: an edit
//! through a shared memory mapping, and a filesystem mounted over a directory on the way
//! (a mount is no `inotify` event); `devint` itself does neither.

use std::collections::{HashMap, HashSet};
use std::ffi::{CStr, OsStr, OsString};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use rustix::fs::inotify::{self, CreateFlags, WatchFlags};

/// What happens to a watched file's own inode that matters.
const FILE_EVENTS: WatchFlags = WatchFlags::MODIFY
    .union(WatchFlags::ATTRIB)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::DONT_FOLLOW);

/// What happens in and to a watched directory that may matter (which name it is about
/// decides).
const DIRECTORY_EVENTS: WatchFlags = WatchFlags::CREATE
    .union(WatchFlags::MOVED_TO)
    .union(WatchFlags::MOVED_FROM)
    .union(WatchFlags::DELETE)
    .union(WatchFlags::MODIFY)
    .union(WatchFlags::ATTRIB)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::ONLYDIR)
    .union(WatchFlags::DONT_FOLLOW);

/// What one watch descriptor stands for.
#[derive(Debug)]
enum Watched {
    /// A file read: every event on it matters.
    File,
    /// A directory on the way: events about these names in it matter, and every event
    /// about the directory itself.
    Directory(HashSet<OsString>),
}

/// The watch (see the module doc).
#[derive(Debug)]
pub(super) struct ReadsWatch {
    inotify: OwnedFd,
    watched: HashMap<i32, Watched>,
    /// Set once an event that matters was read: from then on the watch vouches for nothing.
    /// The check reads and judges the queue holding this lock, so two checks at once can
    /// never both miss an event the other read away.
    spoiled: Mutex<bool>,
}

impl ReadsWatch {
    /// Watch `paths` (see the module doc). The caller reads the files again after this
    /// returns and keeps the watch only if they read as before: from here on, every change
    /// is queued.
    pub(super) fn start<'a>(paths: impl IntoIterator<Item = &'a Path>) -> io::Result<ReadsWatch> {
        let inotify = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC)?;
        let mut watch = ReadsWatch {
            inotify,
            watched: HashMap::new(),
            spoiled: Mutex::new(false),
        };
        let mut local = HashSet::new();
        for path in paths {
            watch.add(path, &mut local)?;
        }
        Ok(watch)
    }

    /// Watch one path: each directory from `/` for the next name, then the file.
    fn add(&mut self, path: &Path, local: &mut HashSet<PathBuf>) -> io::Result<()> {
        let refused = |why: &str| {
            io::Error::new(
                io::ErrorKind::Unsupported,
                format!("{} cannot be watched: {why}", path.display()),
            )
        };
        let mut components = path.components();
        if components.next() != Some(Component::RootDir) {
            return Err(refused("the path is not absolute"));
        }
        let names: Vec<&OsStr> = components
            .map(|c| match c {
                Component::Normal(name) => Ok(name),
                _ => Err(refused("the path has a `.` or `..` in it")),
            })
            .collect::<io::Result<_>>()?;
        if names.is_empty() {
            return Err(refused("the path names no file"));
        }
        let mut dir = PathBuf::from("/");
        for (i, name) in names.iter().enumerate() {
            if local.insert(dir.clone()) {
                if let Some(kind) = devint_fs::remote::remote_filesystem(&dir)? {
                    return Err(refused(&format!(
                        "it is on {kind}, where a change can come without an event here"
                    )));
                }
            }
            let wd = inotify::add_watch(&self.inotify, &dir, DIRECTORY_EVENTS)?;
            match self
                .watched
                .entry(wd)
                .or_insert_with(|| Watched::Directory(HashSet::new()))
            {
                Watched::Directory(names) => {
                    names.insert((*name).to_owned());
                }
                Watched::File => return Err(refused("a file on it is also a directory")),
            }
            let next = dir.join(name);
            let kind = match std::fs::symlink_metadata(&next) {
                Ok(meta) => meta.file_type(),
                // Nothing there (yet): its creation is watched in `dir`.
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(e),
            };
            if kind.is_symlink() {
                return Err(refused("a symlink is on it"));
            }
            if i + 1 == names.len() {
                if !kind.is_file() {
                    return Err(refused("it is not a regular file"));
                }
                let wd = inotify::add_watch(&self.inotify, &next, FILE_EVENTS)?;
                if let Some(Watched::Directory(_)) = self.watched.insert(wd, Watched::File) {
                    return Err(refused("a directory on it is also the file"));
                }
                return Ok(());
            }
            if !kind.is_dir() {
                // A file where a directory should be: the read found nothing, and its
                // replacement by a directory is watched in `dir`.
                return Ok(());
            }
            dir = next;
        }
        Ok(())
    }

    /// Whether nothing that matters has happened to any watched path since the watch was
    /// made. Never blocks: the queue is read without waiting.
    pub(super) fn holds(&self) -> bool {
        let mut spoiled = self.spoiled.lock().unwrap_or_else(PoisonError::into_inner);
        if *spoiled {
            return false;
        }
        if matches!(rustix::io::ioctl_fionread(&self.inotify), Ok(0)) {
            return true;
        }
        *spoiled = self.read_queue();
        !*spoiled
    }

    /// Read every queued event; true when one matters.
    fn read_queue(&self) -> bool {
        let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
        let mut reader = inotify::Reader::new(&self.inotify, &mut buf);
        let mut matters = false;
        loop {
            match reader.next() {
                Ok(event) => matters |= self.matters(event.wd(), event.file_name()),
                Err(rustix::io::Errno::AGAIN) => return matters,
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => return true,
            }
        }
    }

    /// Whether one event matters: it is about a watched file, a watched directory itself,
    /// a watched name in a directory, the queue (overflow: `wd` -1), or a watch unknown.
    fn matters(&self, wd: i32, name: Option<&CStr>) -> bool {
        match (self.watched.get(&wd), name) {
            (Some(Watched::Directory(names)), Some(name)) => {
                names.contains(OsStr::from_bytes(name.to_bytes()))
            }
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    /// A state directory with `a` (present) and `b` (absent), watched.
    fn watched(root: &Path) -> (ReadsWatch, PathBuf, PathBuf) {
        let dir = root.join("state");
        fs::create_dir(&dir).unwrap();
        let (a, b) = (dir.join("a.json"), dir.join("b.json"));
        fs::write(&a, b"{}").unwrap();
        let watch = ReadsWatch::start([a.as_path(), b.as_path()]).unwrap();
        (watch, a, b)
    }

    #[test]
    fn a_fresh_watch_holds_and_keeps_holding() {
        let root = tempfile::tempdir().unwrap();
        let (watch, _, _) = watched(root.path());
        assert!(watch.holds());
        assert!(watch.holds());
    }

    #[test]
    fn every_change_to_a_read_file_or_its_way_spoils_the_watch() {
        type Change = fn(&Path, &Path);
        let changes: [(&str, Change); 9] = [
            ("written in place", |a, _| fs::write(a, b"[]").unwrap()),
            ("truncated", |a, _| {
                fs::OpenOptions::new()
                    .write(true)
                    .open(a)
                    .unwrap()
                    .set_len(0)
                    .unwrap()
            }),
            ("mode changed", |a, _| {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(a, fs::Permissions::from_mode(0o600)).unwrap()
            }),
            ("renamed over", |a, _| {
                let tmp = a.with_extension("tmp");
                fs::write(&tmp, b"[]").unwrap();
                fs::rename(&tmp, a).unwrap()
            }),
            ("renamed away", |a, _| {
                fs::rename(a, a.with_extension("old")).unwrap()
            }),
            ("deleted", |a, _| fs::remove_file(a).unwrap()),
            ("an absent file created", |_, b| {
                fs::write(b, b"{}").unwrap()
            }),
            ("its directory renamed", |a, _| {
                let dir = a.parent().unwrap();
                fs::rename(dir, dir.with_extension("old")).unwrap()
            }),
            ("written through a second name", |a, _| {
                let other = a.parent().unwrap().parent().unwrap().join("link");
                fs::hard_link(a, &other).unwrap();
                // The link's creation is elsewhere; the write through it is on the inode.
                let watch_after = fs::write(&other, b"[1]");
                watch_after.unwrap()
            }),
        ];
        for (what, change) in changes {
            let root = tempfile::tempdir().unwrap();
            let (watch, a, b) = watched(root.path());
            change(&a, &b);
            assert!(!watch.holds(), "{what}: the watch still holds");
            assert!(!watch.holds(), "{what}: spoiled for good");
        }
    }

    #[test]
    fn a_neighbour_changing_is_read_away_and_the_watch_still_holds() {
        let root = tempfile::tempdir().unwrap();
        let (watch, a, _) = watched(root.path());
        let neighbour = a.parent().unwrap().join("audit.jsonl");
        fs::write(&neighbour, b"x").unwrap();
        fs::write(&neighbour, b"xy").unwrap();
        fs::remove_file(&neighbour).unwrap();
        fs::write(root.path().join("elsewhere"), b"x").unwrap();
        assert!(watch.holds(), "other names changed");
        fs::write(&a, b"[]").unwrap();
        assert!(
            !watch.holds(),
            "and the file's own change after that is seen"
        );
    }

    #[test]
    fn two_checks_at_once_never_both_miss_a_change() {
        // One check reading the event away must not leave the other trusting the watch.
        let root = tempfile::tempdir().unwrap();
        let (watch, a, _) = watched(root.path());
        fs::write(&a, b"[]").unwrap();
        let watch = std::sync::Arc::new(watch);
        let checks: Vec<_> = (0..4)
            .map(|_| {
                let w = std::sync::Arc::clone(&watch);
                std::thread::spawn(move || w.holds())
            })
            .collect();
        for check in checks {
            assert!(!check.join().unwrap());
        }
    }

    #[test]
    fn a_path_it_cannot_watch_whole_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let real = root.path().join("real");
        fs::create_dir(&real).unwrap();
        fs::write(real.join("f"), b"x").unwrap();
        std::os::unix::fs::symlink(&real, root.path().join("link")).unwrap();
        let via_link = root.path().join("link/f");
        let refused = [
            Path::new("relative/f").to_owned(),
            root.path().join("real/../real/f"),
            via_link,
            real.clone(),
        ];
        for path in &refused {
            let e = ReadsWatch::start([path.as_path()]).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::Unsupported, "{}", path.display());
        }
        assert!(ReadsWatch::start([real.join("f").as_path()]).is_ok());
    }
}
