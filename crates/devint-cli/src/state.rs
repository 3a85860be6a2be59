//! Where a runtime keeps its state: one directory (default `~/.aa`) holding the enrolment
//! book, the audit log and the backend's receipts, journal and profiles under `devint/`.
//!
//! This module owns the layout and the runtime's exclusive lock on it ([`StateLock`]: two
//! runtimes appending to one audit chain or journal would corrupt both). It must never fall back to a shared directory such as
//! `/tmp` when `HOME` is missing.

use std::path::{Path, PathBuf};

use crate::exit::CliError;

/// The environment variable that overrides the default state directory.
pub const STATE_DIR_ENV: &str = "AA_DEVINT_STATE_DIR";

/// The state directory's layout.
#[derive(Debug, Clone)]
pub struct StateDir {
    root: PathBuf,
}

impl StateDir {
    /// `--state-dir`, else `AA_DEVINT_STATE_DIR` (non-empty), else `$HOME/.aa`.
    pub fn resolve(flag: Option<&Path>) -> Result<StateDir, CliError> {
        if let Some(dir) = flag {
            return StateDir::at(dir);
        }
        if let Some(dir) = std::env::var_os(STATE_DIR_ENV).filter(|v| !v.is_empty()) {
            return StateDir::at(Path::new(&dir));
        }
        match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            Some(home) => StateDir::at(&Path::new(&home).join(".aa")),
            None => Err(
                CliError::usage("cannot locate the state directory: HOME is not set")
                    .fix("set HOME, or pass --state-dir DIR"),
            ),
        }
    }

    /// The layout under `root` (which must be absolute).
    pub fn at(root: &Path) -> Result<StateDir, CliError> {
        if !root.is_absolute() {
            return Err(CliError::usage(format!(
                "the state directory {} is not an absolute path",
                root.display()
            ))
            .fix("pass an absolute --state-dir"));
        }
        Ok(StateDir {
            root: root.to_path_buf(),
        })
    }

    /// The root (`~/.aa`).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `<root>/devint`: everything devint keeps (mode 0700).
    pub fn devint(&self) -> PathBuf {
        self.root.join("devint")
    }

    /// The enrolment book.
    pub fn book(&self) -> PathBuf {
        self.devint().join("enrolment.json")
    }

    /// The audit log.
    pub fn audit_log(&self) -> PathBuf {
        self.devint().join("audit.jsonl")
    }

    /// The backend's own directory (receipts, journal, profiles).
    pub fn backend(&self) -> PathBuf {
        self.devint().join("runtime")
    }

    /// Create `<root>/devint` (and missing parents) with mode 0700.
    pub fn create(&self) -> Result<(), CliError> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = self.devint();
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| {
                CliError::internal(format!("cannot create {}: {e}", dir.display()))
                    .fix("check the permissions of the state directory, or pass --state-dir")
            })
    }
}

/// An exclusive `flock` on `<state>/devint/runtime.lock`, held while a runtime serves.
#[derive(Debug)]
pub struct StateLock {
    _file: std::fs::File,
}

impl StateLock {
    /// Take the lock without waiting; another runtime holding it is a refusal.
    pub fn acquire(state: &StateDir) -> Result<StateLock, CliError> {
        use std::os::unix::fs::OpenOptionsExt;
        state.create()?;
        let path = state.devint().join("runtime.lock");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .map_err(|e| CliError::internal(format!("cannot open {}: {e}", path.display())))?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).map_err(
            |_| {
                CliError::internal(format!(
                    "another devint runtime is using the state directory {}",
                    state.root().display()
                ))
                .fix("stop that runtime, or give this one its own --state-dir")
            },
        )?;
        Ok(StateLock { _file: file })
    }
}
