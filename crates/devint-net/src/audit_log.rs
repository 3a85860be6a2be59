//! [`JsonLinesAuditLog`]: the durable, append-only, hash-chained audit file, and [`verify`].
//!
//! ## Durability: what waits for the disk
//!
//! A record made with [`AuditSink::record`] (a mutation's, spec §10 (b)) is written and
//! synced to disk before `record` returns, so a mutation's answer never leaves before its
//! audit record is durable. A record made with [`AuditSink::record_deferred`] (a refusal,
//! spec §10 (a)) is queued and `record_deferred` returns at once: a committer thread writes
//! everything queued with one `write` and one `fdatasync` per batch (group commit), so a
//! refusal's answer does not wait for the disk and a flood of refusals costs one sync per
//! batch, not one per record. Order is kept: a durable record first writes every record
//! queued before it, in the same write, and the chain links them in that order.
//!
//! **The loss window.** The queue holds at most [`DEFERRED_CAPACITY`] records (see
//! [`JsonLinesAuditLog::open_with_capacity`]); a producer finding it full waits for room
//! (the flood is slowed to the disk's pace, nothing is dropped). A crash of the process or
//! the machine can lose what was queued and what was being written: at most twice the
//! capacity of refusal records, and never a mutation's record, whose `record` had not
//! returned. A clean shutdown (dropping the log) writes everything queued first;
//! [`JsonLinesAuditLog::flush`] waits for it on demand. A batch the disk refuses (full,
//! read-only) is cut back so the chain still verifies, and its loss is logged at `error`
//! with its size and returned by the next `flush`: counted, never silent.
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
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

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

mod commit;

use commit::Queue;
pub use commit::DEFERRED_CAPACITY;

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

/// The append-only audit file (`0600`). Mutations' records are synced before
/// [`AuditSink::record`] returns; refusals' records are group-committed (see the module doc).
#[derive(Debug)]
pub struct JsonLinesAuditLog {
    path: PathBuf,
    inner: Arc<Inner>,
    /// The committer thread; `None` when it could not be started (then every record is
    /// written on the caller's thread).
    committer: Option<JoinHandle<()>>,
}

/// What the callers and the committer thread share.
#[derive(Debug)]
struct Inner {
    path: PathBuf,
    /// The file; held while a batch is written and synced.
    tail: Mutex<Tail>,
    /// Refusals' records waiting for the committer.
    queue: Queue,
}

impl JsonLinesAuditLog {
    /// Open (or create, with its `0700` directory) the log at `path`. An existing log must be
    /// ours, `0600`, and verify; a damaged one is refused rather than extended. Refusals are
    /// queued for group commit, at most [`DEFERRED_CAPACITY`] at a time.
    pub fn open(path: impl Into<PathBuf>) -> Result<JsonLinesAuditLog, AuditError> {
        JsonLinesAuditLog::open_with_capacity(path, DEFERRED_CAPACITY)
    }

    /// [`JsonLinesAuditLog::open`] with room for `capacity` queued refusal records (at least
    /// 1): the bound of the loss window (see the module doc).
    pub fn open_with_capacity(
        path: impl Into<PathBuf>,
        capacity: usize,
    ) -> Result<JsonLinesAuditLog, AuditError> {
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
        let inner = Arc::new(Inner {
            path: path.clone(),
            tail: Mutex::new(Tail {
                file,
                head,
                len,
                resync: false,
            }),
            queue: Queue::new(capacity),
        });
        let committer = {
            let inner = Arc::clone(&inner);
            std::thread::Builder::new()
                .name("devint-audit".into())
                .spawn(move || inner.commit_until_closed())
        };
        let committer = match committer {
            Ok(handle) => Some(handle),
            Err(error) => {
                tracing::warn!(%error, "no audit committer thread; every record is written on its caller's thread");
                None
            }
        };
        Ok(JsonLinesAuditLog {
            path,
            inner,
            committer,
        })
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// SHA-256 of the last line written (keep it elsewhere to detect a cut-off tail).
    pub fn head(&self) -> String {
        self.inner
            .tail
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .head
            .clone()
    }

    /// Wait until every record queued before this call is written and synced. Returns the
    /// last failure of a queued batch since the previous `flush` (its records are lost and
    /// were logged), if any.
    pub fn flush(&self) -> Result<(), AuditError> {
        if self.committer.is_some() {
            self.inner.queue.wait_drained();
        } else {
            self.inner.commit_pending();
        }
        match self.inner.queue.take_failure() {
            Some(failure) => Err(failure.into_error(&self.path)),
            None => Ok(()),
        }
    }
}

impl Drop for JsonLinesAuditLog {
    /// A clean shutdown writes every queued record first.
    fn drop(&mut self) {
        self.inner.queue.close();
        if let Some(committer) = self.committer.take() {
            let _ = committer.join();
        }
    }
}

impl Inner {
    /// The committer thread: write what is queued, each time there is something, until the
    /// log is closed and drained.
    fn commit_until_closed(&self) {
        while self.queue.wait_for_work() {
            self.commit_pending();
        }
    }

    /// Write everything queued now as one batch. The batch is taken from the queue only once
    /// the file's lock is held, as [`AuditSink::record`] does: a durable record made
    /// meanwhile either writes these refusals ahead of its own or waits until they are
    /// written, never overtakes them. A failure is logged with the batch's size and kept for
    /// the next `flush`.
    fn commit_pending(&self) {
        let tail = self.tail.lock();
        let batch = self.queue.take_all();
        if batch.is_empty() {
            return;
        }
        let lines = self.lines(&batch);
        let result = match tail {
            Ok(mut tail) => tail.append(&self.path, &lines),
            Err(_) => Err(AuditError::Poisoned),
        };
        if let Err(error) = result {
            self.queue.lost(lines.len(), &error);
        }
        self.queue.batch_done();
    }

    /// The JSON bodies of `events`; an event that cannot be serialised is logged and left out.
    fn lines(&self, events: &[AuditEvent]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match e.to_json() {
                Ok(json) => Some(json),
                Err(error) => {
                    tracing::error!(%error, kind = ?e.kind, "an audit event could not be serialised; it is lost");
                    None
                }
            })
            .collect()
    }
}

impl Tail {
    /// Append one line per JSON body, chained, with one `write` and one `fdatasync`. On a
    /// failure nothing of it is kept: the file is cut back to the last complete record.
    fn append(&mut self, path: &Path, bodies: &[String]) -> Result<(), AuditError> {
        let io = |action, source| AuditError::Io {
            action,
            path: path.to_path_buf(),
            source,
        };
        if self.resync {
            self.resync(path)?;
        }
        let mut bytes = Vec::with_capacity(bodies.iter().map(|b| b.len() + 96).sum());
        let mut head = self.head.clone();
        for body in bodies {
            let start = bytes.len();
            bytes.extend_from_slice(b"{\"prev_sha256\":\"");
            bytes.extend_from_slice(head.as_bytes());
            bytes.extend_from_slice(b"\",\"event\":");
            bytes.extend_from_slice(body.as_bytes());
            bytes.push(b'}');
            head = line_hash(&bytes[start..]);
            bytes.push(b'\n');
        }
        let appended = self
            .file
            .write_all(&bytes)
            .map_err(|e| io("append to", e))
            .and_then(|()| self.file.sync_data().map_err(|e| io("sync", e)));
        if let Err(e) = appended {
            // A full disk can take part of the lines, and a failed sync leaves lines the
            // caller was told are lost: cut the file back to the last complete record so the
            // chain still verifies and the next record links to the right head.
            let cut = self
                .file
                .set_len(self.len)
                .and_then(|()| self.file.sync_data());
            self.resync = cut.is_err();
            return Err(e);
        }
        self.len += bytes.len() as u64;
        self.head = head;
        Ok(())
    }

    /// After a failed append that could not be cut back: take the head and length from the
    /// file itself, refusing to extend a chain that no longer verifies.
    fn resync(&mut self, path: &Path) -> Result<(), AuditError> {
        let chain = verify(path).map_err(|e| match e {
            VerifyError::ChainBroken { path, line } => AuditError::ChainBroken { path, line },
            VerifyError::Io { path, source } => AuditError::Io {
                action: "read",
                path,
                source,
            },
        })?;
        self.len = self
            .file
            .metadata()
            .map_err(|source| AuditError::Io {
                action: "inspect",
                path: path.to_path_buf(),
                source,
            })?
            .len();
        self.head = chain.head_sha256;
        self.resync = false;
        Ok(())
    }
}

impl AuditSink for JsonLinesAuditLog {
    /// Write `event` and every refusal queued before it, and sync, before returning.
    fn record(&self, event: &AuditEvent) -> Result<(), AuditError> {
        let own = event.to_json()?;
        let mut tail = self.inner.tail.lock().map_err(|_| AuditError::Poisoned)?;
        // Taken under the file's lock, so nothing queued later can be written before them.
        let queued = self.inner.queue.take_all();
        let mut lines = self.inner.lines(&queued);
        let ahead = lines.len();
        lines.push(own);
        let result = tail.append(&self.path, &lines);
        drop(tail);
        if !queued.is_empty() {
            if let Err(error) = &result {
                self.inner.queue.lost(ahead, error);
            }
            self.inner.queue.batch_done();
        }
        result
    }

    /// Queue `event` for the committer (waiting for room when the queue is full).
    fn record_deferred(&self, event: &AuditEvent) -> Result<(), AuditError> {
        if self.committer.is_none() {
            return self.record(event);
        }
        self.inner.queue.push(event.clone());
        Ok(())
    }
}
