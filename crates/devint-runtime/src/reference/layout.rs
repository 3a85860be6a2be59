//! [`StateLayout`]: where the runtime keeps its private state, and the one file name per
//! (tool, scope) used for its receipt, journal, evidence and lock.
//!
//! Owns creating the state directories (`0700`) and writing private files (`0600`, atomic,
//! durable). It must never loosen the mode of a directory or file it did not create, and
//! never put a settings value in a file name.

use std::fs::DirBuilder;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

use devint_fs::durable::{self, DurableError};
use devint_fs::lock::lock_file_name;
use devint_fs::mode::Modes;

/// The subdirectories of the state directory.
pub const SUBDIRS: [&str; 7] = [
    "profiles",
    "receipts",
    "journal",
    "locks",
    "evidence",
    "events",
    "approvals",
];

/// The state directory's layout.
#[derive(Debug, Clone)]
pub struct StateLayout {
    root: PathBuf,
}

/// Why the state directory could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    /// A directory could not be created.
    #[error("cannot create the state directory {path}: {source}; check its parent's permissions")]
    Create {
        /// The directory.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// A state directory is readable or writable by others.
    #[error(
        "the state directory {path} has mode {mode:o}; it must be 0700 (owner only) — \
         run `chmod 700 {path}` if it is yours"
    )]
    TooOpen {
        /// The directory.
        path: PathBuf,
        /// Its mode bits.
        mode: u32,
    },
}

impl StateLayout {
    /// Creates (0700) or checks every directory under `root`.
    pub fn prepare(root: &Path) -> Result<StateLayout, LayoutError> {
        let layout = StateLayout {
            root: root.to_owned(),
        };
        make_private_dir(root)?;
        for sub in SUBDIRS {
            make_private_dir(&root.join(sub))?;
        }
        Ok(layout)
    }

    /// The layout under `root`, without creating or checking anything (for readers on
    /// the trusted side that must not create a runtime's state).
    pub fn unprepared(root: &Path) -> StateLayout {
        StateLayout {
            root: root.to_owned(),
        }
    }

    /// The state directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `profiles/`.
    pub fn profiles(&self) -> PathBuf {
        self.root.join("profiles")
    }

    /// `locks/`.
    pub fn locks(&self) -> PathBuf {
        self.root.join("locks")
    }

    /// `journal/`.
    pub fn journal_dir(&self) -> PathBuf {
        self.root.join("journal")
    }

    /// `receipts/`.
    pub fn receipts_dir(&self) -> PathBuf {
        self.root.join("receipts")
    }

    /// `events/`.
    pub fn events(&self) -> PathBuf {
        self.root.join("events")
    }

    /// `approvals/`.
    pub fn approvals(&self) -> PathBuf {
        self.root.join("approvals")
    }

    /// The receipt of (tool, scope).
    pub fn receipt(&self, tool: &str, scope: &str) -> PathBuf {
        self.receipts_dir()
            .join(format!("{}.json", stem(tool, scope)))
    }

    /// The journal of (tool, scope).
    pub fn journal(&self, tool: &str, scope: &str) -> PathBuf {
        self.journal_dir()
            .join(format!("{}.json", stem(tool, scope)))
    }

    /// The recorded evidence of (tool, scope).
    pub fn evidence(&self, tool: &str, scope: &str) -> PathBuf {
        self.root
            .join("evidence")
            .join(format!("{}.json", stem(tool, scope)))
    }
}

/// The per-(tool, scope) file stem: the lock file's name without `.lock`.
fn stem(tool: &str, scope: &str) -> String {
    let name = lock_file_name(tool, scope);
    name.trim_end_matches(".lock").to_owned()
}

fn make_private_dir(path: &Path) -> Result<(), LayoutError> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .map_err(|source| LayoutError::Create {
            path: path.to_owned(),
            source,
        })?;
    let meta = std::fs::metadata(path).map_err(|source| LayoutError::Create {
        path: path.to_owned(),
        source,
    })?;
    let mode = meta.mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(LayoutError::TooOpen {
            path: path.to_owned(),
            mode,
        });
    }
    Ok(())
}

/// Writes a private state file: `0600` and ours (an existing one reset to that), atomic
/// and durable.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), DurableError> {
    durable::write_atomic(path, bytes, &Modes::PRIVATE)
}
