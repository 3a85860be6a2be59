//! The modes a written file, and the directories created for it, are given: a decision the
//! caller makes per target and passes in ([`Modes`]). This crate keeps no default mode.
//!
//! Owns how a mode is applied ([`Mode`]: less the umask, as the tool itself would create
//! the file, or exactly), what happens to an existing file ([`Existing`]: kept as the user
//! left it, or reset) and creating missing directories with a mode ([`create_dirs`]). It
//! must never change the mode or owner of a directory it did not create, and never follow a
//! symlink when it sets the mode of one it did.

use std::fs::{self, DirBuilder, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::OFlags;

/// Permission bits, and how they are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// These bits less the process umask, as `open(2)` and `mkdir(2)` create: what a tool
    /// creating the file itself would get (`0o666` → `0644` under the usual `022`).
    Umasked(u32),
    /// Exactly these bits, whatever the umask.
    Exactly(u32),
}

impl Mode {
    /// The bits asked for (before any umask).
    pub const fn bits(self) -> u32 {
        match self {
            Mode::Umasked(bits) | Mode::Exactly(bits) => bits & 0o7777,
        }
    }
}

/// What a write does to a file that is already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// It keeps its mode and its owner: how the user left it is theirs.
    Kept,
    /// It gets the new file's mode and the writer's ownership, whatever it had.
    Reset,
}

/// The modes one target is written with: the file's when it is created (and when it is
/// reset), the existing file's fate, and the mode of each directory created on the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modes {
    /// The file's mode when it is created (or reset).
    pub file: Mode,
    /// What an existing file keeps.
    pub existing: Existing,
    /// The mode of every directory created for it (existing directories are left alone).
    pub dirs: Mode,
}

impl Modes {
    /// Owner-only state: `0600` files and `0700` directories, exactly, an existing file
    /// reset to `0600` and our ownership.
    pub const PRIVATE: Modes = Modes {
        file: Mode::Exactly(0o600),
        existing: Existing::Reset,
        dirs: Mode::Exactly(0o700),
    };
}

/// Creates `dir` and each missing ancestor with `mode` (a symlinked ancestor that exists is
/// followed, as a path lookup would). Directories that already exist are left as they are,
/// mode and owner; an ancestor that exists but is not a directory is an error. Answers the
/// directories created, outermost first.
pub fn create_dirs(dir: &Path, mode: Mode) -> io::Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut cursor = Some(dir);
    while let Some(path) = cursor.filter(|p| !p.as_os_str().is_empty()) {
        match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => break,
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    format!("{} is not a directory", path.display()),
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing.push(path.to_owned());
                cursor = path.parent();
            }
            Err(e) => return Err(e),
        }
    }
    let mut created = Vec::new();
    for path in missing.into_iter().rev() {
        match DirBuilder::new().mode(mode.bits()).create(&path) {
            Ok(()) => {}
            // Created by someone else meanwhile: theirs, left as it is.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => continue,
            Err(e) => return Err(e),
        }
        if let Mode::Exactly(bits) = mode {
            set_dir_mode(&path, bits)?;
        }
        created.push(path);
    }
    Ok(created)
}

/// Sets the mode of a directory this process just created, through a descriptor opened
/// without following a symlink (the name cannot be swapped for a link in between).
fn set_dir_mode(path: &Path, bits: u32) -> io::Result<()> {
    let dir = OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::DIRECTORY | OFlags::NOFOLLOW).bits() as i32)
        .open(path)?;
    dir.set_permissions(fs::Permissions::from_mode(bits))
}

/// The process umask, read without changing it (Linux's `/proc/self/status`); `None` where
/// that is not available.
pub fn current_umask() -> Option<u32> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("Umask:"))?;
    u32::from_str_radix(line.trim(), 8).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn mode_of(path: &Path) -> u32 {
        fs::metadata(path).unwrap().mode() & 0o7777
    }

    #[test]
    fn exact_directories_get_their_mode_whatever_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("etc/claude-code");
        let created = create_dirs(&deep, Mode::Exactly(0o755)).unwrap();
        assert_eq!(created, vec![dir.path().join("etc"), deep.clone()]);
        assert_eq!(mode_of(&dir.path().join("etc")), 0o755);
        assert_eq!(mode_of(&deep), 0o755);
    }

    #[test]
    fn umasked_directories_get_the_mode_less_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join(".claude");
        create_dirs(&deep, Mode::Umasked(0o777)).unwrap();
        let umask = current_umask().expect("Linux reports the umask");
        assert_eq!(mode_of(&deep), 0o777 & !umask);
    }

    #[test]
    fn an_existing_directory_is_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let existing = dir.path().join("etc");
        fs::create_dir(&existing).unwrap();
        fs::set_permissions(&existing, fs::Permissions::from_mode(0o700)).unwrap();
        let created = create_dirs(&existing.join("tool"), Mode::Exactly(0o755)).unwrap();
        assert_eq!(created, vec![existing.join("tool")]);
        assert_eq!(mode_of(&existing), 0o700, "not ours: never chmodded");
    }

    #[test]
    fn a_file_on_the_way_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("etc"), b"").unwrap();
        let err = create_dirs(&dir.path().join("etc/tool"), Mode::Exactly(0o755)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotADirectory, "{err}");
    }
}
