//! File-level foundations of the lifecycle backend on a real file system: durable atomic
//! writes (mode, symlinks, read-only and unwritable targets, a full disk) and the
//! cross-process (tool, scope) lock.
//!
//! Some cases need root (a tmpfs mount, `chattr +i`); without it they print why they are
//! skipped and pass.

use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use devint_fs::durable::{read_optional, remove_durable, write_atomic, DurableError};
use devint_fs::lock::{LockError, TargetLock};
use devint_fs::mode::{current_umask, Existing, Mode, Modes};
use devint_fs::read::{Follow, Limit};

/// A user settings file's modes: an existing file kept, a new one `0666` less the umask.
const USER: Modes = Modes {
    file: Mode::Umasked(0o666),
    existing: Existing::Kept,
    dirs: Mode::Umasked(0o777),
};

/// The modes of a file every user must read (the managed scope's).
const SHARED: Modes = Modes {
    file: Mode::Exactly(0o644),
    existing: Existing::Reset,
    dirs: Mode::Exactly(0o755),
};

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().tempdir_in("/tmp").unwrap()
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn temp_leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".devint-"))
        .collect()
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// A tmpfs mounted for one test, unmounted on drop.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Self> {
        if !is_root() {
            println!("skipped: mounting a tmpfs needs root");
            return None;
        }
        let dir = scratch();
        let status = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0755"),
                "tmpfs",
            ])
            .arg(dir.path())
            .status();
        match status {
            Ok(s) if s.success() => Some(Self { dir }),
            other => {
                println!("skipped: cannot mount a tmpfs here ({other:?})");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn remount_read_only(&self) -> bool {
        Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(self.path())
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn a_new_file_gets_the_given_mode_and_an_existing_file_keeps_its_own() {
    let dir = scratch();
    let umask = current_umask().expect("Linux reports the umask");
    let fresh = dir.path().join("new.json");
    write_atomic(&fresh, b"{}\n", &USER).unwrap();
    assert_eq!(fs::read(&fresh).unwrap(), b"{}\n");
    assert_eq!(mode(&fresh), 0o666 & !umask, "as the tool would create it");

    let exact = dir.path().join("exact.json");
    write_atomic(&exact, b"{}\n", &SHARED).unwrap();
    assert_eq!(mode(&exact), 0o644);

    let existing = dir.path().join("settings.json");
    fs::write(&existing, b"old").unwrap();
    fs::set_permissions(&existing, fs::Permissions::from_mode(0o604)).unwrap();
    write_atomic(&existing, b"new", &USER).unwrap();
    assert_eq!(fs::read(&existing).unwrap(), b"new");
    assert_eq!(mode(&existing), 0o604, "an existing file keeps its mode");

    let reset = dir.path().join("managed.json");
    fs::write(&reset, b"old").unwrap();
    fs::set_permissions(&reset, fs::Permissions::from_mode(0o600)).unwrap();
    write_atomic(&reset, b"new", &SHARED).unwrap();
    assert_eq!(mode(&reset), 0o644, "a reset file gets the exact mode");
    assert!(temp_leftovers(dir.path()).is_empty());
}

#[test]
fn missing_directories_are_created_with_the_targets_directory_mode() {
    let dir = scratch();
    let target = dir.path().join("etc/tool/settings.json");
    write_atomic(&target, b"{}\n", &SHARED).unwrap();
    assert_eq!(mode(&dir.path().join("etc")), 0o755);
    assert_eq!(mode(&dir.path().join("etc/tool")), 0o755);
    assert_eq!(mode(&target), 0o644);
}

#[test]
fn writing_through_a_symlink_replaces_the_file_and_keeps_the_link() {
    let dir = scratch();
    let real = dir.path().join("dotfiles-settings.json");
    let link = dir.path().join("settings.json");
    fs::write(&real, b"old").unwrap();
    symlink(&real, &link).unwrap();
    write_atomic(&link, b"new", &USER).unwrap();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read(&real).unwrap(), b"new");
}

#[test]
fn a_directory_in_the_target_place_is_refused() {
    let dir = scratch();
    let err = write_atomic(dir.path(), b"x", &USER).unwrap_err();
    assert!(matches!(err, DurableError::NotAFile { .. }), "{err:?}");
}

#[test]
fn remove_durable_deletes_and_reports_absence() {
    let dir = scratch();
    let target = dir.path().join("settings.json");
    fs::write(&target, b"{}").unwrap();
    assert!(remove_durable(&target).unwrap());
    assert!(!target.exists());
    assert!(!remove_durable(&target).unwrap());
    assert_eq!(
        read_optional(&target, Follow::Symlinks, Limit::SETTINGS).unwrap(),
        None
    );
}

#[test]
fn a_full_disk_is_a_clear_error_and_the_target_is_untouched() {
    let Some(fs_) = Tmpfs::mount("64k") else {
        return;
    };
    let target = fs_.path().join("settings.json");
    fs::write(&target, b"{\"original\": true}\n").unwrap();
    let big = vec![b' '; 1 << 20];
    let err = write_atomic(&target, &big, &USER).unwrap_err();
    assert!(matches!(err, DurableError::DiskFull { .. }), "{err:?}");
    assert!(err
        .to_string()
        .contains("the disk is full; nothing was changed"));
    assert!(!err.target_changed());
    assert_eq!(fs::read(&target).unwrap(), b"{\"original\": true}\n");
    assert!(
        temp_leftovers(fs_.path()).is_empty(),
        "temp file left behind"
    );
}

#[test]
fn a_read_only_file_system_is_a_clear_error_and_the_target_is_untouched() {
    let Some(fs_) = Tmpfs::mount("1m") else {
        return;
    };
    let target = fs_.path().join("config.toml");
    fs::write(&target, b"model = \"o3\"\n").unwrap();
    if !fs_.remount_read_only() {
        println!("skipped: cannot remount the tmpfs read-only");
        return;
    }
    let err = write_atomic(&target, b"model = \"x\"\n", &USER).unwrap_err();
    assert!(matches!(err, DurableError::ReadOnly { .. }), "{err:?}");
    assert!(err.to_string().contains("read-only; nothing was changed"));
    assert_eq!(fs::read(&target).unwrap(), b"model = \"o3\"\n");
    let err = remove_durable(&target).unwrap_err();
    assert!(matches!(err, DurableError::ReadOnly { .. }), "{err:?}");
}

/// Makes `dir` unwritable for this process: `chattr +i` as root (mode bits do not bind
/// root), mode 0500 otherwise. Answers a cleanup closure, or `None` if impossible here.
fn make_unwritable(dir: &Path) -> Option<Box<dyn FnOnce()>> {
    if is_root() {
        let ok = Command::new("chattr")
            .arg("+i")
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            println!("skipped: chattr +i is not available on this file system");
            return None;
        }
        let dir = dir.to_owned();
        Some(Box::new(move || {
            let _ = Command::new("chattr").arg("-i").arg(&dir).status();
        }))
    } else {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o500)).ok()?;
        let dir = dir.to_owned();
        Some(Box::new(move || {
            let _ = fs::set_permissions(&dir, fs::Permissions::from_mode(0o700));
        }))
    }
}

#[test]
fn an_unwritable_directory_is_a_clear_error_and_the_target_is_untouched() {
    let base = scratch();
    let dir = base.path().join("project");
    fs::create_dir(&dir).unwrap();
    let target = dir.join("settings.json");
    fs::write(&target, b"{\"mine\": 1}\n").unwrap();
    let Some(restore) = make_unwritable(&dir) else {
        return;
    };
    let result = write_atomic(&target, b"{\"ours\": 2}\n", &USER);
    let removal = remove_durable(&target);
    restore();
    let err = result.unwrap_err();
    assert!(
        matches!(err, DurableError::PermissionDenied { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("permission denied"));
    assert!(matches!(
        removal.unwrap_err(),
        DurableError::PermissionDenied { .. }
    ));
    assert_eq!(fs::read(&target).unwrap(), b"{\"mine\": 1}\n");
    assert!(temp_leftovers(&dir).is_empty());
}

// ---------------------------------------------------------------------------------------
// The (tool, scope) lock.

#[test]
fn a_held_lock_is_busy_for_another_handle_and_free_after_drop() {
    let dir = scratch();
    let held = TargetLock::try_acquire(dir.path(), "claude-code", "user").unwrap();
    let err = TargetLock::try_acquire(dir.path(), "claude-code", "user").unwrap_err();
    assert!(matches!(err, LockError::Busy { .. }), "{err:?}");
    let err = TargetLock::acquire(dir.path(), "claude-code", "user", Duration::from_millis(20))
        .unwrap_err();
    assert!(matches!(err, LockError::TimedOut { .. }), "{err:?}");
    // Another scope or tool is a different lock.
    let _other = TargetLock::try_acquire(dir.path(), "claude-code", "project:/src/app").unwrap();
    let _codex = TargetLock::try_acquire(dir.path(), "codex", "user").unwrap();
    let path = held.path().to_owned();
    drop(held);
    // Not `try_acquire`: a child process another test forks in this binary inherits the lock's
    // descriptor until it execs (close-on-exec), keeping the flock held for that instant.
    let again =
        TargetLock::acquire(dir.path(), "claude-code", "user", Duration::from_secs(5)).unwrap();
    assert_eq!(again.path(), path);
    assert!(path.exists(), "lock files are never deleted");
}

#[test]
fn odd_tool_and_scope_names_map_to_safe_distinct_lock_files() {
    let dir = scratch();
    let a = TargetLock::try_acquire(dir.path(), "../../etc/x", "project:/a/b").unwrap();
    let b = TargetLock::try_acquire(dir.path(), "../../etc/x", "project:/a/c").unwrap();
    assert_ne!(a.path(), b.path());
    assert_eq!(a.path().parent(), Some(dir.path()));
    assert_eq!(b.path().parent(), Some(dir.path()));
}

const CHILD_DIR: &str = "DEVINT_TEST_LOCK_CHILD_DIR";
const CHILD_ROUNDS: &str = "DEVINT_TEST_LOCK_CHILD_ROUNDS";
const PROBE_DIR: &str = "DEVINT_TEST_LOCK_PROBE_DIR";
const PROBE_BUSY: i32 = 17;

/// Child body for `two_processes_serialize_on_one_target`: increments a counter file with a
/// deliberately non-atomic read-modify-write inside the lock. A no-op when run normally.
#[test]
fn child_lock_counter() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let rounds: u32 = std::env::var(CHILD_ROUNDS).unwrap().parse().unwrap();
    let counter = dir.join("counter");
    for _ in 0..rounds {
        let _lock =
            TargetLock::acquire(&dir, "claude-code", "user", Duration::from_secs(120)).unwrap();
        let n: u64 = fs::read_to_string(&counter)
            .unwrap()
            .trim()
            .parse()
            .expect("counter is never seen half-written under the lock");
        fs::write(&counter, format!("{}\n", n + 1)).unwrap();
    }
}

/// Child body for `a_lock_held_by_one_process_is_busy_in_another`. A no-op when run normally.
#[test]
fn child_lock_probe() {
    let Ok(dir) = std::env::var(PROBE_DIR) else {
        return;
    };
    match TargetLock::try_acquire(Path::new(&dir), "claude-code", "user") {
        Ok(_) => std::process::exit(0),
        Err(LockError::Busy { .. }) => std::process::exit(PROBE_BUSY),
        Err(e) => panic!("{e}"),
    }
}

fn child(test: &str) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([test, "--exact", "--test-threads=1", "--quiet"]);
    cmd
}

#[test]
fn a_lock_held_by_one_process_is_busy_in_another() {
    let dir = scratch();
    let held = TargetLock::try_acquire(dir.path(), "claude-code", "user").unwrap();
    let status = child("child_lock_probe")
        .env(PROBE_DIR, dir.path())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(PROBE_BUSY));
    drop(held);
    let status = child("child_lock_probe")
        .env(PROBE_DIR, dir.path())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn two_processes_serialize_on_one_target() {
    let dir = scratch();
    fs::write(dir.path().join("counter"), "0\n").unwrap();
    let rounds = 150;
    let children: Vec<_> = (0..2)
        .map(|_| {
            child("child_lock_counter")
                .env(CHILD_DIR, dir.path())
                .env(CHILD_ROUNDS, rounds.to_string())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a child failed");
    }
    let total: u32 = fs::read_to_string(dir.path().join("counter"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(
        total,
        2 * rounds,
        "an update was lost: the lock did not serialize"
    );
}
