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
//! Owns that key and the memo, nothing else; it must never answer for a tool without reading
//! its files again, and never keep an answer whose derivation read a file that failed or
//! read more than [`super::pure_memo::MAX_KEPT_BYTES`] in all.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::reads::{self, Read};
use crate::adapters::ToolListing;
use devint::time::UnixSecs;
use devint::verbs::StatusView;

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
        if let Some(r) = remembered.filter(|r| r.key.same(&key) && reads::all_hold(&r.reads)) {
            return r.view.clone();
        }
        let (view, reads) = reads::recorded(derive);
        if let Some(reads) = reads {
            let remembered = Remembered {
                key,
                reads,
                view: view.clone(),
            };
            self.lock().insert(tool, Arc::new(remembered));
        }
        view
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<&'static str, Arc<Remembered>>> {
        self.by_tool.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
