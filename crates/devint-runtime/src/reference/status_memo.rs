//! [`StatusMemo`]: each tool's last `status` answer, given again while everything it was
//! derived from is unchanged.
//!
//! An IDE that shows every known tool polls `status`; deriving each answer parses the receipts, the
//! settings file's syntax tree, the policy profile and the recorded evidence, renders the
//! policy again and climbs the ladder — a few hundred microseconds for an answer that has
//! not changed. A remembered answer is given again only when all of these are the same:
//!
//! - every file its derivation read, read again now and compared byte for byte, in the
//!   order it was read (see [`super::reads`]);
//! - the detector's listing of the tool (the same `Arc`, which stands while the binary's
//!   path and identity do; holding it keeps its address from being reused);
//! - the second it was observed at (evidence freshness and plan expiry are judged to the
//!   second, and the answer carries that second);
//! - whether a live install plan exists (the plan store is in memory; a removal plan is not
//!   part of any status: only a removal begun, whose journal is read like any state file).
//!
//! The runtime's configuration is fixed for its lifetime, so it is not part of the key.
//!
//! "Read again and compared" is done one of two ways. Where the files can be watched whole
//! ([`devint_fs::watch`]), the first comparison after an answer is derived makes a watch
//! just before it reads the files; when they read as recorded, that watch stands for reading
//! them from then on: nothing queued on it means every file reads as it did, so the answer is
//! given without opening any file — on the connection's own thread ([`StatusMemo::at_once`],
//! for `Lifecycle::status_at_once`). A derivation that reads the same files the same while
//! the watch holds (the next second's) keeps it. Otherwise, or once the watch saw a change,
//! the files are read again. So no file is ever read more often than before the watch.
//!
//! Owns that key and the memo, nothing else; it must never answer for a tool without reading
//! its files again or a watch on them that holds, and never keep an answer whose derivation
//! read a file that failed or read more than [`super::pure_memo::MAX_KEPT_BYTES`] in all.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::reads::{self, Read};
use crate::adapters::ToolListing;
use devint::time::UnixSecs;
use devint::verbs::StatusView;
use devint_fs::watch::PathsWatch;

/// What a `status` answer depends on besides its files.
#[derive(Debug, Clone)]
pub(super) struct StatusKey {
    /// The detector's listing of the tool.
    pub(super) listing: Arc<ToolListing>,
    /// The second the answer is observed at.
    pub(super) now: UnixSecs,
    /// Whether live plans exist.
    pub(super) pending: Pending,
}

/// Whether a live install plan exists for the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pending {
    /// A live install plan.
    pub(super) install: bool,
}

impl StatusKey {
    fn same(&self, other: &StatusKey) -> bool {
        Arc::ptr_eq(&self.listing, &other.listing)
            && self.now == other.now
            && self.pending == other.pending
    }
}

#[derive(Debug)]
struct Remembered {
    key: StatusKey,
    reads: Vec<Read>,
    view: StatusView,
    /// The watch on the files of `reads`, when one stands for them.
    watch: Mutex<Watch>,
}

/// Whether a watch stands for reading a remembered answer's files again.
#[derive(Debug, Clone)]
enum Watch {
    /// None yet: the next comparison makes one first, so that it costs no extra read.
    NotYet,
    /// Made before a comparison that found every file as read: nothing queued on it since
    /// means nothing changed.
    Armed(Arc<PathsWatch>),
    /// The files cannot be watched whole (see [`devint_fs::watch`]): read them, until
    /// the answer is derived again.
    Refused,
}

impl Remembered {
    fn new(key: StatusKey, reads: Vec<Read>, view: StatusView, watch: Watch) -> Remembered {
        Remembered {
            key,
            reads,
            view,
            watch: Mutex::new(watch),
        }
    }

    fn watch(&self) -> Watch {
        self.watch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether its watch holds: nothing it vouches for has changed.
    fn watched_unchanged(&self) -> bool {
        matches!(self.watch(), Watch::Armed(w) if w.holds())
    }

    /// Whether every file reads as it did: by the watch when it holds, else read again —
    /// under a new watch made first, which stands for them from then on if they do.
    fn files_hold(&self) -> bool {
        if self.watched_unchanged() {
            return true;
        }
        let next = match self.watch() {
            Watch::Refused => None,
            Watch::NotYet | Watch::Armed(_) => Some(
                PathsWatch::start(self.reads.iter().map(Read::path))
                    .map_or(Watch::Refused, |w| Watch::Armed(Arc::new(w))),
            ),
        };
        let hold = reads::all_hold(&self.reads);
        if let Some(next) = next.filter(|_| hold) {
            *self.watch.lock().unwrap_or_else(PoisonError::into_inner) = next;
        }
        hold
    }
}

/// The memo: one answer per tool id (bounded by the registry).
#[derive(Debug, Default)]
pub(super) struct StatusMemo {
    by_tool: Mutex<HashMap<&'static str, Arc<Remembered>>>,
}

impl StatusMemo {
    /// The answer for `tool` under `key`: the remembered one when it still holds, else the
    /// one `derive` makes now (remembered when every read it made succeeded).
    pub(super) fn answer(
        &self,
        tool: &'static str,
        key: StatusKey,
        derive: impl FnOnce() -> StatusView,
    ) -> StatusView {
        let remembered = self.lock().get(tool).cloned();
        // The files are read again outside the lock: two polls never wait on each other's I/O.
        if let Some(r) = remembered
            .as_ref()
            .filter(|r| r.key.same(&key) && r.files_hold())
        {
            return r.view.clone();
        }
        let (view, reads) = reads::recorded(derive);
        if let Some(reads) = reads {
            // The same files read the same while the watch on them holds (a new second, say):
            // that watch stands for them still.
            // (A refused watch is tried again: the per-user limits may have room now.)
            let watch = match remembered {
                Some(r) if r.reads == reads && r.watched_unchanged() => r.watch(),
                _ => Watch::NotYet,
            };
            let remembered = Remembered::new(key, reads, view.clone(), watch);
            self.lock().insert(tool, Arc::new(remembered));
        }
        view
    }

    /// The remembered answer for `tool` under `key`, when a watch shows that every file it
    /// was derived from is unchanged; never opens a file. `None`: ask [`StatusMemo::answer`].
    pub(super) fn at_once(&self, tool: &'static str, key: &StatusKey) -> Option<StatusView> {
        let remembered = self.lock().get(tool).cloned()?;
        let holds = remembered.key.same(key) && remembered.watched_unchanged();
        holds.then(|| remembered.view.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<&'static str, Arc<Remembered>>> {
        self.by_tool.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
