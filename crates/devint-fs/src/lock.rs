//! [`TargetLock`]: the cross-process lock held for apply, repair and remove of one
//! (tool, scope).
//!
//! Owns naming and taking an exclusive `flock` on a per-(tool, scope) lock file. It must
//! never delete a lock file (another process may be waiting on that inode) and never treat a
//! lock it did not get as held. `flock` locks belong to the open file description, so two
//! opens in one process exclude each other just as two processes do; the lock is released
//! when the [`TargetLock`] is dropped (its descriptor closed), including when a process dies.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use rustix::fs::{flock, FlockOperation, OFlags};
use rustix::io::Errno;
use sha2::{Digest, Sha256};

/// Why a [`TargetLock`] was not obtained.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process (or handle) holds the lock now.
    #[error("another lifecycle operation on {tool} ({scope}) holds {path}; wait for it to finish")]
    Busy {
        /// The tool.
        tool: String,
        /// The settings scope.
        scope: String,
        /// The lock file.
        path: PathBuf,
    },
    /// The lock stayed busy for the whole timeout.
    #[error(
        "another lifecycle operation on {tool} ({scope}) held {path} for longer than \
         {timeout:?}; retry later or look for a stuck process"
    )]
    TimedOut {
        /// The tool.
        tool: String,
        /// The settings scope.
        scope: String,
        /// The lock file.
        path: PathBuf,
        /// How long we waited.
        timeout: Duration,
    },
    /// The lock directory or file could not be created or locked.
    #[error("cannot use the lock file {path}: {source}")]
    Io {
        /// The lock file (or directory).
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

/// An exclusive, cross-process lock on one (tool, scope); released on drop.
#[derive(Debug)]
pub struct TargetLock {
    _file: File,
    path: PathBuf,
}

/// The lock file name for (tool, scope): a readable tool prefix plus a digest of both, so
/// any scope text (a project path, say) maps to one safe name.
pub fn lock_file_name(tool: &str, scope: &str) -> String {
    let readable: String = tool
        .chars()
        .take(48)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut hasher = Sha256::new();
    hasher.update(tool.as_bytes());
    hasher.update([0]);
    hasher.update(scope.as_bytes());
    let digest = hex::encode(hasher.finalize());
    format!("{readable}.{}.lock", &digest[..16])
}

impl TargetLock {
    /// Takes the lock now or answers [`LockError::Busy`].
    pub fn try_acquire(lock_dir: &Path, tool: &str, scope: &str) -> Result<Self, LockError> {
        let (file, path) = open(lock_dir, tool, scope)?;
        match flock(&file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Self { _file: file, path }),
            Err(Errno::WOULDBLOCK) => Err(LockError::Busy {
                tool: tool.to_owned(),
                scope: scope.to_owned(),
                path,
            }),
            Err(e) => Err(LockError::Io {
                path,
                source: e.into(),
            }),
        }
    }

    /// Takes the lock, waiting up to `timeout` for its holder to release it.
    pub fn acquire(
        lock_dir: &Path,
        tool: &str,
        scope: &str,
        timeout: Duration,
    ) -> Result<Self, LockError> {
        let (file, path) = open(lock_dir, tool, scope)?;
        let deadline = Instant::now() + timeout;
        let mut pause = Duration::from_millis(2);
        loop {
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(Self { _file: file, path }),
                Err(Errno::WOULDBLOCK) => {}
                Err(e) => {
                    return Err(LockError::Io {
                        path,
                        source: e.into(),
                    })
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(LockError::TimedOut {
                    tool: tool.to_owned(),
                    scope: scope.to_owned(),
                    path,
                    timeout,
                });
            }
            thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    /// The lock file this lock is held on.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn open(lock_dir: &Path, tool: &str, scope: &str) -> Result<(File, PathBuf), LockError> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(lock_dir)
        .map_err(|source| LockError::Io {
            path: lock_dir.to_owned(),
            source,
        })?;
    let path = lock_dir.join(lock_file_name(tool, scope));
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(&path)
        .map_err(|source| LockError::Io {
            path: path.clone(),
            source,
        })?;
    // Refuse anything but a regular file (a FIFO planted under our name, say).
    match file.metadata() {
        Ok(meta) if meta.is_file() => Ok((file, path)),
        Ok(_) => Err(LockError::Io {
            path,
            source: io::Error::other("not a regular file"),
        }),
        Err(source) => Err(LockError::Io { path, source }),
    }
}
