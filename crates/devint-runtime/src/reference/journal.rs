//! The write-ahead journal of one (tool, scope): written durably before the first
//! mutation, removed after the last; and recovery, which finishes or undoes an operation a
//! crash interrupted.
//!
//! Owns the journal record and the recovery rule: each target ends either as it was before
//! the operation or fully done (settings written *and* receipt in step), never half. The
//! journal holds digests, the reversal and the receipt to be written — never the user's
//! file text, so it holds nothing the receipt may not. Recovery must never touch a target
//! whose lock another process holds, and never overwrite a file the user changed since.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::config::JournalOperation;
use super::layout::{write_private, StateLayout};
use super::receipt::{self, Receipt};
use super::stored::{self, StoredValueError};
use super::target::Current;
use devint::verbs::{ReceiptId, ToolId};
use devint_fs::durable::{self, DurableError};
use devint_fs::lock::TargetLock;
use devint_fs::read::{Follow, Limit};

/// The journal format version.
pub const JOURNAL_VERSION: u32 = 1;

/// What the journaled operation does to the receipt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReceiptChange {
    /// Write this receipt (apply, repair).
    Write {
        /// The receipt, complete.
        receipt: Box<Receipt>,
    },
    /// Delete the receipt with this id (remove).
    Delete {
        /// The receipt id being removed.
        #[serde(deserialize_with = "stored::token")]
        receipt_id: ReceiptId,
    },
}

/// One journal record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Journal {
    /// [`JOURNAL_VERSION`].
    pub version: u32,
    /// The journaled operation.
    pub operation: JournalOperation,
    /// The tool.
    #[serde(deserialize_with = "stored::token")]
    pub tool: ToolId,
    /// The scope key (the scope token, or `project:<dir>`: the key of the target's files).
    pub scope: String,
    /// The settings file.
    pub target: PathBuf,
    /// Digest of the file before (`None`: absent).
    pub pre_digest: Option<String>,
    /// Digest of the file after (`None`: absent).
    pub post_digest: Option<String>,
    /// The receipt change that completes the operation.
    pub receipt: ReceiptChange,
}

/// Writes the journal durably (`0600`).
pub fn write(path: &Path, journal: &Journal) -> Result<(), DurableError> {
    let text = serde_json::to_string_pretty(journal).expect("a journal always serialises");
    write_private(path, text.as_bytes())
}

/// Removes the journal durably.
pub fn remove(path: &Path) -> Result<(), DurableError> {
    durable::remove_durable(path).map(|_| ())
}

/// What recovery did with one journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovered {
    /// The operation had completed; only the journal was left.
    AlreadyComplete,
    /// The settings were fully written; the receipt was brought in step (rolled forward).
    RolledForward,
    /// Nothing had been written; the operation was abandoned (rolled back).
    RolledBack,
    /// The file changed since; it was left alone and the journal discarded.
    LeftUserChange,
}

/// Why recovery could not finish a journal (it stays for the next attempt).
#[derive(Debug, thiserror::Error)]
pub enum RecoveryError {
    /// Reading or writing failed.
    #[error("recovering the journal {path} failed: {source}")]
    Io {
        /// The journal.
        path: PathBuf,
        /// The failure.
        source: DurableError,
    },
    /// The journal does not parse, or holds a value this build does not know.
    #[error("the journal {path} cannot be read ({why}); move it aside after checking its target by hand")]
    Corrupt {
        /// The journal.
        path: PathBuf,
        /// What is wrong with it.
        why: JournalDefect,
    },
}

/// What is wrong with a journal that recovery cannot read.
#[derive(Debug, thiserror::Error)]
pub enum JournalDefect {
    /// It could not be read at all.
    #[error("it cannot be read: {0}")]
    Unreadable(DurableError),
    /// Its format version is not this build's.
    #[error("its version {0} is not one this build reads ({JOURNAL_VERSION})")]
    Version(u32),
    /// A field does not read back (syntax, an unknown operation or id…).
    #[error("{0}")]
    Value(#[from] StoredValueError),
}

/// Recovers every journal whose lock is free (held ones belong to a live operation).
pub fn recover_all(layout: &StateLayout) -> Vec<Result<Recovered, RecoveryError>> {
    let Ok(entries) = std::fs::read_dir(layout.journal_dir()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let journal = match read(&path) {
            Ok(journal) => journal,
            Err(why) => {
                out.push(Err(RecoveryError::Corrupt { path, why }));
                continue;
            }
        };
        let Ok(_lock) =
            TargetLock::try_acquire(&layout.locks(), journal.tool.as_str(), &journal.scope)
        else {
            continue;
        };
        out.push(recover_locked(layout, &path));
    }
    out
}

/// Whether a removal at the (tool, scope) keyed `tool`, `scope` has begun and not finished:
/// its journal is on disk (a live removal holds the target's lock; an interrupted one waits
/// for recovery). This is what the `removal_pending` phase reports; a removal plan that was
/// only previewed writes nothing and is not one. Read through [`super::reads`], so a
/// remembered status holds only while the journal reads the same.
pub fn removal_unfinished(layout: &StateLayout, tool: &str, scope: &str) -> bool {
    let path = layout.journal(tool, scope);
    match super::reads::text(&path, Follow::NoFinalSymlink, Limit::STATE) {
        Ok(Some(text)) => stored::from_json::<Journal>(&text)
            .is_ok_and(|j| j.operation == JournalOperation::Remove),
        _ => false,
    }
}

fn read(path: &Path) -> Result<Journal, JournalDefect> {
    let text = durable::read_optional(path, Follow::NoFinalSymlink, Limit::STATE)
        .map_err(JournalDefect::Unreadable)?
        .unwrap_or_default();
    let journal: Journal = stored::from_json(&text)?;
    if journal.version != JOURNAL_VERSION {
        return Err(JournalDefect::Version(journal.version));
    }
    Ok(journal)
}

/// Recovers the journal at `path`; the caller holds the target's lock.
pub fn recover_locked(layout: &StateLayout, path: &Path) -> Result<Recovered, RecoveryError> {
    let io = |source| RecoveryError::Io {
        path: path.to_owned(),
        source,
    };
    if !path.exists() {
        return Ok(Recovered::AlreadyComplete);
    }
    let journal = read(path).map_err(|why| RecoveryError::Corrupt {
        path: path.to_owned(),
        why,
    })?;
    let receipt_path = layout.receipt(journal.tool.as_str(), &journal.scope);
    // A crash mid-write may have left the temporary file of the write it interrupted.
    durable::sweep_temporaries(&journal.target);
    let on_disk = receipt::load(&receipt_path).ok().flatten();
    let now = Current::read(&journal.target).map_err(io)?.digest();
    let outcome = match &journal.receipt {
        ReceiptChange::Write { receipt } => {
            let in_step = on_disk
                .as_ref()
                .is_some_and(|r| r.receipt_id == receipt.receipt_id);
            if in_step {
                Recovered::AlreadyComplete
            } else if now == journal.post_digest {
                receipt::store(&receipt_path, receipt).map_err(io)?;
                Recovered::RolledForward
            } else if now == journal.pre_digest {
                Recovered::RolledBack
            } else {
                Recovered::LeftUserChange
            }
        }
        ReceiptChange::Delete { receipt_id } => {
            let still_there = on_disk
                .as_ref()
                .is_some_and(|r| &r.receipt_id == receipt_id);
            if !still_there {
                Recovered::AlreadyComplete
            } else if now == journal.post_digest {
                durable::remove_durable(&receipt_path).map_err(io)?;
                let _ = durable::remove_durable(
                    &layout.evidence(journal.tool.as_str(), &journal.scope),
                );
                Recovered::RolledForward
            } else if now == journal.pre_digest {
                Recovered::RolledBack
            } else {
                Recovered::LeftUserChange
            }
        }
    };
    remove(path).map_err(io)?;
    if outcome == Recovered::LeftUserChange {
        tracing::warn!(
            journal = %path.display(),
            "an interrupted lifecycle operation found its settings file changed since; left it alone"
        );
    }
    Ok(outcome)
}
