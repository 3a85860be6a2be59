//! The reference [`EventSource`] (a spool of already-redacted verdict records a gateway
//! writes into `events/*.jsonl`) and the reference [`ApprovalAuthority`] (the approvals a
//! gateway raised, `approvals/pending.jsonl`, and an append-only queue of relayed answers,
//! `approvals/queue.jsonl`, the adjudicating authority reads).
//!
//! Owns reading the spool and the pending approvals, and appending to the queue. It must
//! never fabricate a verdict or a decision: events are only what the spool says, malformed
//! lines are skipped, an answer is queued only for an approval the gateway raised for that
//! tool and nobody answered with `approve` or `deny` yet, and a relayed approval is only
//! ever "accepted for adjudication".
//!
//! Spool record (one JSON object per line, documented in `docs/lifecycle.md`):
//! `{"occurred_at_unix_secs": 1764400000, "tool_id": "claude-code", "verdict_kind": "deny",
//! "mechanism": "hooks", "count": 1, "redaction_labels": ["aws_access_key"]}`. Pending
//! approval record: `{"approval_id": "9b2e…", "tool_id": "claude-code"}`.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use serde::Deserialize;

use devint_fs::read::{self, FileKind, Follow, Limit};

use super::config::{ApprovalAuthority, EventSource, RelayRefusal, RelayedApproval, SourceError};
use devint::time::UnixSecs;
use devint::verbs::{MechanismName, RedactionLabel, ScopedEvent, ToolId, VerdictKind};

/// The most events one call returns, whatever `limit` asks.
pub const MAX_EVENTS: u32 = 1000;
/// The number returned when `limit` is 0.
pub const DEFAULT_EVENTS: u32 = 100;

/// Reads verdict records from `*.jsonl` files in one directory.
#[derive(Debug, Clone)]
pub struct SpoolEventSource {
    dir: PathBuf,
}

impl SpoolEventSource {
    /// A source reading `dir`.
    pub fn new(dir: PathBuf) -> SpoolEventSource {
        SpoolEventSource { dir }
    }
}

#[derive(Deserialize)]
struct Record {
    occurred_at_unix_secs: u64,
    tool_id: String,
    verdict_kind: String,
    mechanism: String,
    #[serde(default = "one")]
    count: u32,
    #[serde(default)]
    redaction_labels: Vec<String>,
}

fn one() -> u32 {
    1
}

fn parse_line(line: &str) -> Option<(String, ScopedEvent)> {
    let r: Record = serde_json::from_str(line).ok()?;
    let event = ScopedEvent {
        occurred_at_unix_secs: UnixSecs::new(r.occurred_at_unix_secs),
        verdict_kind: VerdictKind::parse(&r.verdict_kind).ok()?,
        mechanism: MechanismName::parse(&r.mechanism).ok()?,
        count: r.count,
        redaction_labels: r
            .redaction_labels
            .iter()
            .map(|l| RedactionLabel::parse(l))
            .collect::<Result<_, _>>()
            .ok()?,
    };
    Some((r.tool_id, event))
}

impl EventSource for SpoolEventSource {
    fn events(
        &self,
        tool: &ToolId,
        limit: u32,
        since: UnixSecs,
    ) -> Result<Vec<ScopedEvent>, SourceError> {
        let limit = match limit {
            0 => DEFAULT_EVENTS,
            n => n.min(MAX_EVENTS),
        } as usize;
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(SourceError(format!(
                    "the event spool cannot be read ({})",
                    e.kind()
                )))
            }
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("jsonl"))
            .collect();
        files.sort();
        let mut events = Vec::new();
        for file in files {
            // A FIFO, device or oversize file in the spool is skipped, never waited on.
            let text = match read::read_text(&file, Follow::Symlinks, Limit::EVENT_SPOOL) {
                Ok(Some(text)) => text,
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!(error = %e, "an event spool file was skipped");
                    continue;
                }
            };
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                // Malformed lines are skipped, never guessed at.
                let Some((tool_id, event)) = parse_line(line) else {
                    continue;
                };
                if tool_id == tool.as_str() && event.occurred_at_unix_secs >= since {
                    events.push(event);
                }
            }
        }
        events.sort_by_key(|e| e.occurred_at_unix_secs);
        events.truncate(limit);
        Ok(events)
    }
}

/// Appends relayed approvals to `queue.jsonl` in one directory (`0600`, fsynced).
#[derive(Debug, Clone)]
pub struct QueueAuthority {
    dir: PathBuf,
}

impl QueueAuthority {
    /// A queue in `dir`.
    pub fn new(dir: PathBuf) -> QueueAuthority {
        QueueAuthority { dir }
    }

    /// The queue file.
    pub fn queue(&self) -> PathBuf {
        self.dir.join("queue.jsonl")
    }

    /// The pending approvals file (written by the gateway).
    pub fn pending(&self) -> PathBuf {
        self.dir.join("pending.jsonl")
    }

    /// Whether `relayed` answers an approval raised for its tool and not yet answered with
    /// `approve` or `deny` (a `defer` leaves it waiting).
    fn waiting(&self, relayed: &RelayedApproval<'_>) -> Result<bool, SourceError> {
        let is_ours = |v: &serde_json::Value| {
            v["approval_id"].as_str() == Some(relayed.approval.as_str())
                && v["tool_id"].as_str() == Some(relayed.tool.as_str())
        };
        let raised = lines(&self.pending(), "pending approvals file", Follow::Symlinks)?
            .iter()
            .any(is_ours);
        let answered = || -> Result<bool, SourceError> {
            // Our own queue is never read through a link, as it is never written through one.
            Ok(
                lines(&self.queue(), "approval queue", Follow::NoFinalSymlink)?
                    .iter()
                    .any(|v| is_ours(v) && matches!(v["input"].as_str(), Some("approve" | "deny"))),
            )
        };
        Ok(raised && !answered()?)
    }
}

/// The JSON objects of a JSON-lines file (none when it is missing; malformed lines
/// skipped). A file that is not a regular file, or too large, is refused in the reader's
/// words (its path and what it is), never waited on.
fn lines(
    path: &std::path::Path,
    what: &'static str,
    follow: Follow,
) -> Result<Vec<serde_json::Value>, SourceError> {
    let limit = Limit {
        what,
        ..Limit::EVENT_SPOOL
    };
    let text = read::read_text(path, follow, limit)
        .map_err(|e| {
            tracing::warn!(error = %e, "{what} unreadable");
            SourceError(format!("the {what} cannot be read: {e}"))
        })?
        .unwrap_or_default();
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

impl ApprovalAuthority for QueueAuthority {
    fn accept(&self, relayed: &RelayedApproval<'_>) -> Result<(), RelayRefusal> {
        if !self.waiting(relayed)? {
            return Err(RelayRefusal::NotPending);
        }
        let line = serde_json::json!({
            "approval_id": relayed.approval.as_str(),
            "tool_id": relayed.tool.as_str(),
            "input": relayed.input.token(),
            "client_name": relayed.client.as_str(),
            "relayed_at_unix_secs": relayed.relayed_at_unix_secs,
        })
        .to_string();
        let fail = |e: std::io::Error| {
            SourceError(format!(
                "the approval queue cannot be written ({})",
                e.kind()
            ))
        };
        let queue = self.queue();
        // Never blocks and never follows a link, so a planted file cannot stall or redirect
        // the relay: a FIFO with no reader
        // fails the open at once (ENXIO), one with a reader — like a device or anything
        // else not a regular file — is refused after the `fstat`, before a byte is written.
        let flags = rustix::fs::OFlags::NONBLOCK
            | rustix::fs::OFlags::NOFOLLOW
            | rustix::fs::OFlags::NOCTTY;
        let mut file = match OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .custom_flags(flags.bits() as i32)
            .open(&queue)
        {
            Ok(file) => file,
            Err(e) => {
                return Err(match std::fs::symlink_metadata(&queue) {
                    Ok(meta) if !meta.is_file() => not_regular(FileKind::of(&meta)),
                    _ => fail(e),
                }
                .into())
            }
        };
        let meta = file.metadata().map_err(fail)?;
        if !meta.is_file() {
            return Err(not_regular(FileKind::of(&meta)).into());
        }
        file.write_all(format!("{line}\n").as_bytes())
            .map_err(fail)?;
        file.sync_all().map_err(fail)?;
        Ok(())
    }
}

/// The refusal of a queue path that is not a regular file, naming what it is.
fn not_regular(kind: FileKind) -> SourceError {
    SourceError(format!(
        "the approval queue (approvals/queue.jsonl in the runtime's state directory) is {kind}, \
         not a regular file; remove it and relay the approval again"
    ))
}
