//! [`PathsWatch`]: an `inotify` instance watching a few paths — every name on the way to
//! each, through its symlinks, and the file each leads to — so that "does each path still
//! lead to the same, unchanged file?" is one `ioctl(FIONREAD)`: nothing queued means nothing
//! happened. A cache checked this way (a remembered `status` answer, a detected binary) is
//! checked without opening or `stat`ing anything, so it can be checked on a thread that
//! must never block.
//!
//! Why the check is immediate: the kernel queues an event inside the writer's `write`,
//! `rename`, `truncate`, `chmod`, `link` or `unlink`, before that call returns, so a check
//! made after such a call returned sees it.
//!
//! What is watched, for each absolute path: every directory the kernel's own lookup walks
//! through, from `/`, for the next name on the way (created, deleted, moved in or out,
//! written, its mode or link count changed); a symlink met on the way is followed as the
//! kernel follows it (its target read, the walk going on from there, at most 40 links),
//! its name watched in its directory — a symlink's target cannot change in place, only by
//! the link being replaced, which is an event on that name; and the regular file at the
//! end, whichever name it is reached by (written, truncated, mode changed, moved, deleted).
//! A path that leads nowhere is watched up to where it stops, so its creation is seen.
//!
//! Events about other names in a watched directory change nothing and are read away.
//! Anything else — an event about a watched name or file, lost events (queue overflow), a
//! removed watch, a queue that cannot be read — spoils the watch for good.
//!
//! Owns making the watch and that check; it never reads a file's contents. It must never
//! vouch for a path it could not watch whole: [`PathsWatch::start`] fails for a relative
//! path, a path on a network or FUSE filesystem (see [`crate::remote`]; another host or a
//! daemon changes it without a local event), a symlink loop, something other than a regular
//! file at the end, or a watch the per-user limits refuse. What it does not see: an edit
//! through a shared memory mapping, and a filesystem mounted over a directory on the way (a
//! mount is no `inotify` event); `devint` itself does neither.
//!
//! The caller makes the watch first, then checks (reads, `stat`s) what it caches, and keeps
//! the watch only if that check passed: a change between the two would not be queued.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ffi::{CStr, OsStr, OsString};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use rustix::fs::inotify::{self, CreateFlags, WatchFlags};

/// How many symlinks one path may pass through (the kernel's own limit).
const MAX_LINKS: usize = 40;

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
    /// A file a path leads to: every event on it matters.
    File,
    /// A directory on the way: events about these names in it matter, and every event
    /// about the directory itself.
    Directory(HashSet<OsString>),
}

/// The watch (see the module doc).
#[derive(Debug)]
pub struct PathsWatch {
    inotify: OwnedFd,
    watched: HashMap<i32, Watched>,
    /// Set once an event that matters was read: from then on the watch vouches for nothing.
    /// The check reads and judges the queue holding this lock, so two checks at once can
    /// never both miss an event the other read away.
    spoiled: Mutex<bool>,
}

impl PathsWatch {
    /// Watch `paths` (see the module doc for what, and for what the caller does next).
    pub fn start<'a>(paths: impl IntoIterator<Item = &'a Path>) -> io::Result<PathsWatch> {
        let inotify = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC)?;
        let mut watch = PathsWatch {
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

    /// Watch one path: walk it as the kernel does, watching each directory for the next
    /// name and following symlinks, then the file it leads to.
    fn add(&mut self, path: &Path, local: &mut HashSet<PathBuf>) -> io::Result<()> {
        let refused = |why: &str| {
            io::Error::new(
                io::ErrorKind::Unsupported,
                format!("{} cannot be watched: {why}", path.display()),
            )
        };
        if !path.is_absolute() {
            return Err(refused("the path is not absolute"));
        }
        let mut ahead: VecDeque<OsString> = names(path);
        let mut dir = PathBuf::from("/");
        let mut links = 0;
        while let Some(name) = ahead.pop_front() {
            if name == ".." {
                // `dir` has no symlink on it, so its parent by name is its parent.
                dir.pop();
                continue;
            }
            if local.insert(dir.clone()) {
                if let Some(kind) = crate::remote::remote_filesystem(&dir)? {
                    return Err(refused(&format!(
                        "{} is on {kind}, where a change can come without an event here",
                        dir.display()
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
                    names.insert(name.clone());
                }
                Watched::File => return Err(refused("a file on it is also a directory")),
            }
            let next = dir.join(&name);
            let kind = match std::fs::symlink_metadata(&next) {
                Ok(meta) => meta.file_type(),
                // Nothing there (yet): its creation is watched in `dir`.
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(e),
            };
            if kind.is_symlink() {
                links += 1;
                if links > MAX_LINKS {
                    return Err(refused("it passes through too many symlinks"));
                }
                let target = std::fs::read_link(&next)?;
                if target.is_absolute() {
                    dir = PathBuf::from("/");
                }
                for name in names(&target).into_iter().rev() {
                    ahead.push_front(name);
                }
            } else if ahead.is_empty() {
                if !kind.is_file() {
                    return Err(refused("it does not lead to a regular file"));
                }
                let wd = inotify::add_watch(&self.inotify, &next, FILE_EVENTS)?;
                if let Some(Watched::Directory(_)) = self.watched.insert(wd, Watched::File) {
                    return Err(refused("a directory on it is also the file"));
                }
            } else if kind.is_dir() {
                dir = next;
            } else {
                // A file where a directory should be: nothing is there, and its replacement
                // by a directory is an event on its name in `dir`.
                return Ok(());
            }
        }
        Ok(())
    }

    /// Whether nothing that matters has happened to any watched path since the watch was
    /// made. Never blocks: the queue is read without waiting.
    pub fn holds(&self) -> bool {
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

/// The names a path walks through, in order (`.` dropped, `..` kept: it is resolved
/// against the directory reached, as the kernel does).
fn names(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_owned()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::symlink;

    use super::*;

    /// A state directory with `a` (present) and `b` (absent), watched.
    fn watched(root: &Path) -> (PathsWatch, PathBuf, PathBuf) {
        let dir = root.join("state");
        fs::create_dir(&dir).unwrap();
        let (a, b) = (dir.join("a.json"), dir.join("b.json"));
        fs::write(&a, b"{}").unwrap();
        let watch = PathsWatch::start([a.as_path(), b.as_path()]).unwrap();
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
    fn every_change_to_a_watched_file_or_its_way_spoils_the_watch() {
        type Change = fn(&Path, &Path);
        let changes: [(&str, Change); 10] = [
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
            ("given a second name elsewhere", |a, _| {
                fs::hard_link(a, a.parent().unwrap().parent().unwrap().join("link")).unwrap()
            }),
            ("written through a second name", |a, _| {
                let other = a.parent().unwrap().parent().unwrap().join("link");
                fs::hard_link(a, &other).unwrap();
                fs::write(&other, b"[1]").unwrap()
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
    fn every_check_after_a_change_sees_it_whichever_reads_the_queue() {
        // One check reading the event away must not leave the others trusting the watch.
        // (This shows the outcome; the interleaving it guards against is too narrow to
        // force here: the lock in `holds` is what makes it impossible.)
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

    /// `root/dotfiles/tool/settings.json`, reached as `root/home/.tool/settings.json`
    /// through a relative directory link, and `root/bin/tool` through an absolute file link
    /// to `root/versions/1/tool`.
    fn linked(root: &Path) -> (PathBuf, PathBuf) {
        fs::create_dir_all(root.join("dotfiles/tool")).unwrap();
        fs::write(root.join("dotfiles/tool/settings.json"), b"{}").unwrap();
        fs::create_dir_all(root.join("home")).unwrap();
        symlink("../dotfiles/tool", root.join("home/.tool")).unwrap();
        for v in ["1", "2"] {
            fs::create_dir_all(root.join("versions").join(v)).unwrap();
            fs::write(root.join("versions").join(v).join("tool"), v).unwrap();
        }
        fs::create_dir_all(root.join("bin")).unwrap();
        symlink(root.join("versions/1/tool"), root.join("bin/tool")).unwrap();
        (root.join("home/.tool/settings.json"), root.join("bin/tool"))
    }

    #[test]
    fn a_path_through_symlinks_is_watched_to_the_file_it_leads_to() {
        type Change = fn(&Path);
        let changes: [(&str, Change); 5] = [
            ("the file behind a directory link written", |r| {
                fs::write(r.join("dotfiles/tool/settings.json"), b"[]").unwrap()
            }),
            ("a directory link re-pointed", |r| {
                fs::create_dir_all(r.join("elsewhere")).unwrap();
                let tmp = r.join("home/.tool.new");
                symlink("../elsewhere", &tmp).unwrap();
                fs::rename(&tmp, r.join("home/.tool")).unwrap()
            }),
            ("a file link re-pointed (an upgrade)", |r| {
                let tmp = r.join("bin/tool.new");
                symlink(r.join("versions/2/tool"), &tmp).unwrap();
                fs::rename(&tmp, r.join("bin/tool")).unwrap()
            }),
            ("the file behind a file link replaced", |r| {
                fs::write(r.join("versions/1/tool.tmp"), b"1b").unwrap();
                fs::rename(r.join("versions/1/tool.tmp"), r.join("versions/1/tool")).unwrap()
            }),
            ("the target's directory removed", |r| {
                fs::remove_dir_all(r.join("versions/1")).unwrap()
            }),
        ];
        for (what, change) in changes {
            let root = tempfile::tempdir().unwrap();
            let (settings, binary) = linked(root.path());
            let watch = PathsWatch::start([settings.as_path(), binary.as_path()]).unwrap();
            assert!(watch.holds(), "{what}: holds before");
            fs::write(root.path().join("home/unrelated"), b"x").unwrap();
            assert!(
                watch.holds(),
                "{what}: a neighbour of a link is not about it"
            );
            change(root.path());
            assert!(!watch.holds(), "{what}: the watch still holds");
        }
    }

    #[test]
    fn a_dangling_link_is_watched_for_its_target_to_appear() {
        let root = tempfile::tempdir().unwrap();
        let link = root.path().join("link");
        symlink(root.path().join("later/file"), &link).unwrap();
        let watch = PathsWatch::start([link.as_path()]).unwrap();
        assert!(watch.holds());
        fs::create_dir(root.path().join("later")).unwrap();
        assert!(!watch.holds());
    }

    #[test]
    fn a_path_it_cannot_watch_whole_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("dir");
        fs::create_dir(&dir).unwrap();
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        symlink(&b, &a).unwrap();
        symlink(&a, &b).unwrap();
        for path in [Path::new("relative/f"), dir.as_path(), a.as_path()] {
            let e = PathsWatch::start([path]).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::Unsupported, "{}", path.display());
        }
        fs::write(dir.join("f"), b"x").unwrap();
        let dotted = root.path().join("dir/../dir/./f");
        assert!(PathsWatch::start([dotted.as_path()]).is_ok());
    }
}
