//! Durable, atomic replacement and removal of one file.
//!
//! Owns the write path every lifecycle mutation goes through: missing directories created
//! with the target's [`Modes`], a unique temporary file in the target's directory (random
//! name, `O_EXCL`), `fsync`, the mode and owner the caller's [`Modes`] decide (an existing
//! file kept as it is, or reset), `rename` over the target, `fsync` of the directory. It
//! must never leave a half-written target or a stray temporary file behind on failure,
//! never follow a symlink it creates, and never pick a mode itself: every write names one.
//!
//! A symlinked target is resolved first, so the link (a dotfile manager's, say) survives and
//! the file it points to is replaced.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rand::Rng;

use crate::mode::{self, Existing, Mode, Modes};
use crate::read::{self, Follow, Limit, ReadError};
use rustix::io::Errno;

/// Why a durable write or removal failed.
#[derive(Debug, thiserror::Error)]
pub enum DurableError {
    /// The file system holding the target is mounted read-only.
    #[error("{path}: the file system is read-only; nothing was changed")]
    ReadOnly {
        /// The target.
        path: PathBuf,
    },
    /// The OS refused the operation (mode bits, ownership, an immutable attribute).
    #[error(
        "{path}: permission denied while trying to {op}; nothing was changed — check the \
         ownership and permissions of the file and its directory"
    )]
    PermissionDenied {
        /// The target.
        path: PathBuf,
        /// The step that was refused.
        op: &'static str,
    },
    /// No space (or quota) left on the device.
    #[error("{path}: the disk is full; nothing was changed — free some space and retry")]
    DiskFull {
        /// The target.
        path: PathBuf,
    },
    /// The target exists but is not a regular file.
    #[error("{path}: not a regular file; nothing was changed")]
    NotAFile {
        /// The target.
        path: PathBuf,
    },
    /// Any other I/O failure before the target was replaced.
    #[error("{path}: could not {op}: {source}; nothing was changed")]
    Io {
        /// The target.
        path: PathBuf,
        /// The step that failed.
        op: &'static str,
        /// The OS error.
        source: io::Error,
    },
    /// The file could not be read safely (not a regular file, over its limit, not text).
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The target was replaced (or removed) but its directory could not be synced.
    #[error(
        "{path}: the change is in place but the directory could not be synced ({source}); \
         it may not survive a power loss — retry to make it durable"
    )]
    NotDurable {
        /// The target.
        path: PathBuf,
        /// The OS error from `fsync` of the directory.
        source: io::Error,
    },
}

impl DurableError {
    /// Whether the target may already hold the new state ([`DurableError::NotDurable`]).
    pub fn target_changed(&self) -> bool {
        matches!(self, Self::NotDurable { .. })
    }
}

fn classify(path: &Path, op: &'static str, err: io::Error) -> DurableError {
    let path = path.to_owned();
    match err.raw_os_error().map(Errno::from_raw_os_error) {
        Some(Errno::ROFS) => DurableError::ReadOnly { path },
        Some(Errno::ACCESS | Errno::PERM) => DurableError::PermissionDenied { path, op },
        Some(Errno::NOSPC | Errno::DQUOT) => DurableError::DiskFull { path },
        _ => DurableError::Io {
            path,
            op,
            source: err,
        },
    }
}

/// A temporary file removed on drop unless it was renamed into place.
struct TempFile {
    path: PathBuf,
    armed: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.armed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// The file a write to `path` must replace: symlinks resolved, so the link survives.
fn resolve(path: &Path) -> Result<PathBuf, DurableError> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|e| classify(path, "resolve the symlink", e))
        }
        _ => Ok(path.to_owned()),
    }
}

fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

fn sync_directory(dir: &Path, target: &Path) -> Result<(), DurableError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|source| DurableError::NotDurable {
            path: target.to_owned(),
            source,
        })
}

/// Replaces `path` with `bytes` atomically and durably, with the mode and owner `modes`
/// decides: missing directories are created with `modes.dirs`; a new file gets
/// `modes.file`; an existing one keeps its mode and owner ([`Existing::Kept`]) or is reset
/// to `modes.file` and the writer's ownership ([`Existing::Reset`]). On any error before the
/// rename the temporary file is removed and the target is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8], modes: &Modes) -> Result<(), DurableError> {
    write_atomic_with(path, bytes, modes, &mut |file, bytes| file.write_all(bytes))
}

/// The mode a write gives its file: `Some` to set exactly, `None` to keep what the kernel
/// gave the temporary file at creation (the bits less the umask).
fn final_mode(existing: Option<&fs::Metadata>, modes: &Modes) -> Option<u32> {
    match (existing, modes.existing, modes.file) {
        (Some(meta), Existing::Kept, _) => Some(meta.mode() & 0o7777),
        (_, _, Mode::Exactly(bits)) => Some(bits & 0o7777),
        (_, _, Mode::Umasked(_)) => None,
    }
}

/// [`write_atomic`] with the content writer injected, so tests can fail it (disk full).
pub fn write_atomic_with(
    path: &Path,
    bytes: &[u8],
    modes: &Modes,
    write: &mut dyn FnMut(&mut File, &[u8]) -> io::Result<()>,
) -> Result<(), DurableError> {
    let target = resolve(path)?;
    let Some(name) = target.file_name() else {
        return Err(DurableError::NotAFile { path: target });
    };
    let dir = directory_of(&target).to_owned();
    mode::create_dirs(&dir, modes.dirs)
        .map_err(|e| classify(&target, "create the file's directory", e))?;
    let existing = match fs::metadata(&target) {
        Ok(meta) if !meta.is_file() => return Err(DurableError::NotAFile { path: target }),
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(classify(&target, "inspect the file", e)),
    };
    let final_mode = final_mode(existing.as_ref(), modes);
    // Owner-only until the final mode is set; a umasked new file is created with its mode,
    // so the kernel applies the umask exactly as it would for the tool itself.
    let create_mode = final_mode.map_or(modes.file.bits(), |_| 0o600);

    let (mut file, mut temp) = loop {
        let suffix: u64 = rand::rng().random();
        let temp_path = dir.join(format!(
            ".{}.devint-{suffix:016x}.tmp",
            name.to_string_lossy()
        ));
        match OpenOptions::new()
            .write(true)
            .create_new(true) // O_CREAT | O_EXCL: never reuse someone else's file
            .mode(create_mode)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&temp_path)
        {
            Ok(file) => {
                break (
                    file,
                    TempFile {
                        path: temp_path,
                        armed: true,
                    },
                )
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(classify(&target, "create a temporary file", e)),
        }
    };

    write(&mut file, bytes).map_err(|e| classify(&target, "write the new content", e))?;
    if let Some(bits) = final_mode {
        file.set_permissions(fs::Permissions::from_mode(bits))
            .map_err(|e| classify(&target, "set the file mode", e))?;
    }
    if let Some(meta) = existing
        .as_ref()
        .filter(|_| modes.existing == Existing::Kept)
    {
        let mine = file
            .metadata()
            .map_err(|e| classify(&target, "inspect the temporary file", e))?;
        if (mine.uid(), mine.gid()) != (meta.uid(), meta.gid()) {
            std::os::unix::fs::fchown(&file, Some(meta.uid()), Some(meta.gid()))
                .map_err(|e| classify(&target, "keep the file's owner", e))?;
        }
    }
    file.sync_all()
        .map_err(|e| classify(&target, "flush the new content to disk", e))?;
    drop(file);
    fs::rename(&temp.path, &target).map_err(|e| classify(&target, "rename into place", e))?;
    temp.armed = false;
    sync_directory(&dir, &target)
}

/// The temporary file name [`write_atomic`] uses for `target_name`, minus its random part:
/// `.<name>.devint-` + 16 hex digits + `.tmp`.
fn is_our_temporary(entry: &str, target_name: Option<&str>) -> bool {
    let Some(rest) = entry.strip_prefix('.').and_then(|r| r.strip_suffix(".tmp")) else {
        return false;
    };
    let Some((name, suffix)) = rest.rsplit_once(".devint-") else {
        return false;
    };
    let hex = suffix.len() == 16 && suffix.bytes().all(|b| b.is_ascii_hexdigit());
    hex && !name.is_empty() && target_name.is_none_or(|t| t == name)
}

/// Removes the temporary files a crashed [`write_atomic`] left beside `target` (after its
/// symlink is resolved, as a write would): regular files named `.<target>.devint-<16 hex>.tmp`
/// and owned by us. Call it holding the target's lock, so no live write of ours is in
/// flight; a temporary of any other name, owner or kind is left alone. Answers what was
/// removed.
pub fn sweep_temporaries(target: &Path) -> Vec<PathBuf> {
    let Ok(resolved) = resolve(target) else {
        return Vec::new();
    };
    let Some(name) = resolved
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
    else {
        return Vec::new();
    };
    sweep(directory_of(&resolved), Some(&name))
}

/// Removes every temporary file of [`write_atomic`]'s pattern owned by us in `dir`: for a
/// directory only this process writes into (the runtime's private state directories).
pub fn sweep_directory(dir: &Path) -> Vec<PathBuf> {
    sweep(dir, None)
}

fn sweep(dir: &Path, target_name: Option<&str>) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let us = rustix::process::geteuid().as_raw();
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        if !is_our_temporary(&file_name.to_string_lossy(), target_name) {
            continue;
        }
        let path = entry.path();
        let ours = fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.uid() == us);
        if ours && fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    if !removed.is_empty() {
        let _ = File::open(dir).and_then(|d| d.sync_all());
    }
    removed
}

/// Removes `path` durably (unlink, then `fsync` of the directory). Answers whether a file
/// was there; an absent file is not an error.
pub fn remove_durable(path: &Path) -> Result<bool, DurableError> {
    match fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(classify(path, "remove the file", e)),
    }
    sync_directory(directory_of(path), path)?;
    Ok(true)
}

/// Reads `path` as UTF-8 text through the safe reader ([`crate::read`]): `None` if it does
/// not exist; a FIFO, device, socket or directory, or a file over `limit`, is refused.
pub fn read_optional(
    path: &Path,
    follow: Follow,
    limit: Limit,
) -> Result<Option<String>, DurableError> {
    read::read_text(path, follow, limit).map_err(|e| match e {
        ReadError::Io { source, .. } => classify(path, "read the file", source),
        other => DurableError::Read(other),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".devint-"))
            .collect()
    }

    #[test]
    fn a_full_disk_during_the_write_is_reported_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("settings.json");
        fs::write(&target, b"{\"a\": 1}\n").unwrap();
        let err = write_atomic_with(
            &target,
            b"{\"a\": 2}\n",
            &Modes::PRIVATE,
            &mut |file, bytes| {
                file.write_all(&bytes[..3])?;
                Err(io::Error::from_raw_os_error(Errno::NOSPC.raw_os_error()))
            },
        )
        .unwrap_err();
        assert!(matches!(err, DurableError::DiskFull { .. }), "{err:?}");
        assert!(err
            .to_string()
            .contains("the disk is full; nothing was changed"));
        assert_eq!(fs::read(&target).unwrap(), b"{\"a\": 1}\n");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn the_sweep_removes_only_our_temporaries_of_that_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("settings.json");
        let ours = dir
            .path()
            .join(".settings.json.devint-0123456789abcdef.tmp");
        let other_target = dir.path().join(".config.toml.devint-0123456789abcdef.tmp");
        let not_ours = [
            ".settings.json.devint-nothex0000000000.tmp",
            ".settings.json.devint-0123.tmp",
            "settings.json.devint-0123456789abcdef.tmp",
            ".settings.json.12345.0123456789abcdef.tmp",
        ];
        for p in [&ours, &other_target] {
            fs::write(p, b"half").unwrap();
        }
        for n in not_ours {
            fs::write(dir.path().join(n), b"x").unwrap();
        }
        let linked = dir
            .path()
            .join(".settings.json.devint-fedcba9876543210.tmp");
        std::os::unix::fs::symlink("/etc/hostname", &linked).unwrap();
        assert_eq!(sweep_temporaries(&target), vec![ours.clone()]);
        assert!(!ours.exists());
        assert!(
            other_target.exists(),
            "another target's temporary is not this sweep's"
        );
        assert!(linked.symlink_metadata().is_ok(), "a symlink is never ours");
        for n in not_ours {
            assert!(dir.path().join(n).exists(), "{n}");
        }
        assert_eq!(sweep_directory(dir.path()), vec![other_target]);
    }

    #[test]
    fn a_full_disk_on_a_new_file_leaves_no_file_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("config.toml");
        let err = write_atomic_with(&target, b"a = 1\n", &Modes::PRIVATE, &mut |_, _| {
            Err(io::Error::from_raw_os_error(Errno::DQUOT.raw_os_error()))
        })
        .unwrap_err();
        assert!(matches!(err, DurableError::DiskFull { .. }), "{err:?}");
        assert!(!target.exists());
        assert!(leftovers(dir.path()).is_empty());
    }
}
