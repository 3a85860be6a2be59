//! [`JsonLinesAuditLog`]: the durable, append-only, hash-chained audit file, and [`verify`].
//!
//! Each line is `{"prev_sha256":"<hex>","event":{...}}`, where `prev_sha256` is the SHA-256
//! of the previous line's bytes (without its newline), and 64 zeros on the first line. An
//! edited, inserted, removed or partly written line breaks the chain and [`verify`] names
//! the first bad line. Removing whole lines from the *end* leaves a valid shorter chain;
//! that is caught by comparing [`ChainHead::head_sha256`] with the head the writer reported
//! ([`JsonLinesAuditLog::head`]), e.g. one kept in another log or shipped elsewhere.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use devint::audit::{AuditError, AuditEvent, AuditSink};
use devint_fs::private as private_fs;
use devint_fs::read::{self, Follow};

const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A verified chain: how many records and the hash of the last line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainHead {
    /// Number of records.
    pub records: usize,
    /// SHA-256 of the last line (64 zeros for an empty log).
    pub head_sha256: String,
}

/// Why [`verify`] failed.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The log could not be read.
    #[error("could not read the audit log {}: {source}", path.display())]
    Io {
        /// The log.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// The first line whose chain link does not hold (1-based).
    #[error("the audit log {} is damaged at line {line}: edited, reordered or truncated", path.display())]
    ChainBroken {
        /// The log.
        path: PathBuf,
        /// The first bad line.
        line: usize,
    },
}

/// The longest audit line [`verify`] reads.
const MAX_LINE_BYTES: u64 = 64 * 1024;

fn line_hash(line: &[u8]) -> String {
    hex::encode(Sha256::digest(line))
}

/// Check every link of the log at `path`.
pub fn verify(path: &Path) -> Result<ChainHead, VerifyError> {
    // Never blocks on a FIFO, never reads a device: a regular file or an error.
    let file = match read::open_regular(path, Follow::NoFinalSymlink) {
        Ok(Some((file, _))) => file,
        Ok(None) => {
            return Err(VerifyError::Io {
                path: path.to_path_buf(),
                source: io::Error::from(io::ErrorKind::NotFound),
            })
        }
        Err(e) => {
            return Err(VerifyError::Io {
                path: path.to_path_buf(),
                source: io::Error::other(e.to_string()),
            })
        }
    };
    let mut reader = BufReader::new(file);
    let mut prev = GENESIS.to_owned();
    let mut records = 0;
    let mut line = Vec::new();
    loop {
        line.clear();
        // A record is well under a kilobyte; a line longer than the cap is damage, never
        // read into memory whole.
        let n = (&mut reader)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut line)
            .map_err(|source| VerifyError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        if n == 0 {
            break;
        }
        let broken = || VerifyError::ChainBroken {
            path: path.to_path_buf(),
            line: records + 1,
        };
        if line.len() as u64 > MAX_LINE_BYTES {
            return Err(broken());
        }
        // A line without its newline was cut short.
        let body = line.strip_suffix(b"\n").ok_or_else(broken)?;
        let value: serde_json::Value = serde_json::from_slice(body).map_err(|_| broken())?;
        let linked = value.get("prev_sha256").and_then(|v| v.as_str()) == Some(prev.as_str())
            && value.get("event").is_some_and(|e| e.is_object())
            && value.as_object().is_some_and(|o| o.len() == 2);
        if !linked {
            return Err(broken());
        }
        prev = line_hash(body);
        records += 1;
    }
    Ok(ChainHead {
        records,
        head_sha256: prev,
    })
}

#[derive(Debug)]
struct Tail {
    file: File,
    head: String,
    /// The file's length after the last complete record: what a failed append is cut
    /// back to.
    len: u64,
    /// A failed append could not be cut back; re-read the chain before the next append.
    resync: bool,
}

/// The append-only audit file (`0600`). Each record is written with one `write` and synced
/// to disk before [`AuditSink::record`] returns.
#[derive(Debug)]
pub struct JsonLinesAuditLog {
    path: PathBuf,
    tail: Mutex<Tail>,
}

impl JsonLinesAuditLog {
    /// Open (or create, with its `0700` directory) the log at `path`. An existing log must be
    /// ours, `0600`, and verify; a damaged one is refused rather than extended.
    pub fn open(path: impl Into<PathBuf>) -> Result<JsonLinesAuditLog, AuditError> {
        let path = path.into();
        let io = |action, source| AuditError::Io {
            action,
            path: path.clone(),
            source,
        };
        private_fs::create_private_dir(&private_fs::parent_dir(&path))
            .map_err(|e| io("create the directory of", e))?;
        read::check_regular_or_absent(&path, Follow::NoFinalSymlink)
            .map_err(|e| io("open", io::Error::other(e.to_string())))?;
        // `O_NONBLOCK`: a FIFO planted as the log fails the open (no reader) or the kind
        // check below, never blocks it; on a regular file the flag changes nothing.
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .custom_flags(
                (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32,
            )
            .open(&path)
            .map_err(|e| io("open", e))?;
        let meta = file.metadata().map_err(|e| io("inspect", e))?;
        if private_fs::check_private(&meta, false).is_err() {
            return Err(AuditError::Exposed { path });
        }
        if meta.len() == 0 {
            file.set_permissions(fs::Permissions::from_mode(0o600))
                .map_err(|e| io("set the mode of", e))?;
        }
        let head = match verify(&path) {
            Ok(h) => h.head_sha256,
            Err(VerifyError::ChainBroken { line, .. }) => {
                return Err(AuditError::ChainBroken { path, line })
            }
            Err(VerifyError::Io { source, .. }) => return Err(io("read", source)),
        };
        let len = file.metadata().map_err(|e| io("inspect", e))?.len();
        Ok(JsonLinesAuditLog {
            path,
            tail: Mutex::new(Tail {
                file,
                head,
                len,
                resync: false,
            }),
        })
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// SHA-256 of the last line written (keep it elsewhere to detect a cut-off tail).
    pub fn head(&self) -> String {
        self.tail
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .head
            .clone()
    }
}

impl JsonLinesAuditLog {
    /// After a failed append that could not be cut back: take the head and length from the
    /// file itself, refusing to extend a chain that no longer verifies.
    fn resync(&self, tail: &mut Tail) -> Result<(), AuditError> {
        let chain = verify(&self.path).map_err(|e| match e {
            VerifyError::ChainBroken { path, line } => AuditError::ChainBroken { path, line },
            VerifyError::Io { path, source } => AuditError::Io {
                action: "read",
                path,
                source,
            },
        })?;
        tail.len = tail
            .file
            .metadata()
            .map_err(|source| AuditError::Io {
                action: "inspect",
                path: self.path.clone(),
                source,
            })?
            .len();
        tail.head = chain.head_sha256;
        tail.resync = false;
        Ok(())
    }
}

impl AuditSink for JsonLinesAuditLog {
    fn record(&self, event: &AuditEvent) -> Result<(), AuditError> {
        let mut tail = self.tail.lock().map_err(|_| AuditError::Poisoned)?;
        let io = |action, source| AuditError::Io {
            action,
            path: self.path.clone(),
            source,
        };
        if tail.resync {
            self.resync(&mut tail)?;
        }
        let line = format!(
            "{{\"prev_sha256\":\"{}\",\"event\":{}}}",
            tail.head,
            event.to_json()?
        );
        let mut bytes = line.clone().into_bytes();
        bytes.push(b'\n');
        let appended = tail
            .file
            .write_all(&bytes)
            .map_err(|e| io("append to", e))
            .and_then(|()| tail.file.sync_data().map_err(|e| io("sync", e)));
        if let Err(e) = appended {
            // A full disk can take part of the line, and a failed sync leaves a line the
            // caller was told is lost: cut the file back to the last complete record so the
            // chain still verifies and the next record links to the right head.
            let cut = tail
                .file
                .set_len(tail.len)
                .and_then(|()| tail.file.sync_data());
            tail.resync = cut.is_err();
            return Err(e);
        }
        tail.len += bytes.len() as u64;
        tail.head = line_hash(line.as_bytes());
        Ok(())
    }
}
