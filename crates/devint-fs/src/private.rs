//! Owner-only files and directories: the checks and the atomic, durable write shared by the
//! enrolment book file, the client's token file and the audit log.
//!
//! It must never loosen a mode, follow a symlink at the final component, or leave a
//! temporary file behind on a failed write.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rand::TryRngCore;

/// Why a file or directory is not private to us.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exposure {
    /// Group or other permission bits are set (the full mode, masked to `0o7777`).
    Mode(u32),
    /// Owned by another uid.
    Owner {
        /// The owner's uid.
        owner: u32,
        /// Our effective uid.
        us: u32,
    },
    /// Not the kind of object expected (a directory where a file was expected, a device…).
    Kind,
}

/// Our effective uid.
pub fn our_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Whether `meta` describes an object private to us: no group/other bits, owned by us.
pub fn check_private(meta: &fs::Metadata, want_dir: bool) -> Result<(), Exposure> {
    if meta.is_dir() != want_dir || (!want_dir && !meta.is_file()) {
        return Err(Exposure::Kind);
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(Exposure::Mode(mode));
    }
    let us = our_uid();
    if meta.uid() != us {
        return Err(Exposure::Owner {
            owner: meta.uid(),
            us,
        });
    }
    Ok(())
}

/// The directory a file lives in (`.` for a bare file name).
pub fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Create `dir` (and missing parents) with mode `0700` if it does not exist.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    match fs::metadata(dir) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir),
        Err(e) => Err(e),
    }
}

// spec[S7-BOOK-NO-SECRET] §7: the book file is written 0600, atomically and durably.
// spec[S7-TOKEN-FILE] §7: the client's token file is a 0600 file.
/// Replace `path` with `bytes` atomically and durably: a uniquely named `0600` temp file in
/// the same directory, written, fsynced, renamed over `path`, then the directory fsynced.
/// A reader sees the old content or the new, never a mix; a crash leaves one of the two.
pub fn write_private_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    stage_private(path, bytes)?.commit().map_err(|e| match e {
        CommitError::NotMoved(e) | CommitError::NotDurable(e) => e,
    })
}

/// The new content of a private file, written and fsynced beside it but not yet in place:
/// [`StagedFile::commit`] renames it over the file; dropping it uncommitted removes it.
///
/// It lets a caller put a file's new content on disk first (the step a full disk refuses)
/// and decide afterwards, once everything else it depends on is committed, whether it
/// replaces the file.
#[derive(Debug)]
pub struct StagedFile {
    path: PathBuf,
    tmp: PathBuf,
    committed: bool,
}

/// Why [`StagedFile::commit`] failed, and whether the new content is in place.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// The rename failed: the file holds its old content (the staged one is removed).
    #[error("{0}")]
    NotMoved(io::Error),
    /// The rename succeeded but the directory could not be fsynced: the file holds the new
    /// content, which a crash might still undo.
    #[error("{0}")]
    NotDurable(io::Error),
}

/// Write `bytes` to a uniquely named `0600` temp file beside `path` and fsync it; nothing
/// at `path` changes. On failure nothing is left behind.
pub fn stage_private(path: &Path, bytes: &[u8]) -> io::Result<StagedFile> {
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let mut nonce = [0u8; 8];
    rand::rngs::OsRng
        .try_fill_bytes(&mut nonce)
        .map_err(io::Error::other)?;
    let tmp = dir.join(format!(
        ".{}.{}.{:016x}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        u64::from_le_bytes(nonce)
    ));
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(&tmp)?;
    let staged = StagedFile {
        path: path.to_path_buf(),
        tmp,
        committed: false,
    };
    // The umask can only clear bits; set the mode exactly anyway.
    file.set_permissions(fs::Permissions::from_mode(0o600))?;
    file.write_all(bytes)?;
    file.sync_all()?;
    Ok(staged)
}

impl StagedFile {
    /// The file the staged content is for.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Rename the staged content over the file, then fsync the directory.
    pub fn commit(mut self) -> Result<(), CommitError> {
        fs::rename(&self.tmp, &self.path).map_err(CommitError::NotMoved)?;
        self.committed = true;
        File::open(parent_dir(&self.path))
            .and_then(|dir| dir.sync_all())
            .map_err(CommitError::NotDurable)
    }
}

impl Drop for StagedFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}
