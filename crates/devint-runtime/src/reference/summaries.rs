//! [`Summaries`]: each tool's `list_tools` entry, kept while the detector's listing behind
//! it is the same one.
//!
//! A listing holds a dozen reasons and "where detection looked", and every line of a view
//! is a checked [`devint::verbs::Sentence`]; making them again for every `list_tools` of an
//! IDE that polls would redo that work for answers that have not changed. The detector
//! hands out the same `Arc` while its cache stands (see `adapters::detect`), so an entry is
//! reused exactly while that `Arc` is the one remembered, and made again from the new
//! listing the moment detection sees a change. Holding the remembered `Arc` keeps its
//! address from being reused, so pointer identity cannot mistake a new listing for the old.
//!
//! Owns the conversion from a listing to its `ToolSummary` and that memo, nothing else; it
//! must never decide what a tool supports (the adapters do) or outlive a listing change.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::text::say;
use crate::adapters::ToolListing;
use devint::verbs::{CapabilityView, ToolId, ToolSummary, VersionLabel};

/// The memo: one entry per tool id (bounded by the registry).
#[derive(Debug, Default)]
pub(super) struct Summaries {
    by_tool: Mutex<HashMap<&'static str, (Arc<ToolListing>, ToolSummary)>>,
}

impl Summaries {
    /// The `list_tools` entry of `listing` (`None` for a descriptor whose id is not a valid
    /// tool id, which the registry's tests rule out).
    pub(super) fn of(&self, listing: &Arc<ToolListing>) -> Option<ToolSummary> {
        let mut by_tool = self.by_tool.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((seen, summary)) = by_tool.get(listing.tool_id) {
            if Arc::ptr_eq(seen, listing) {
                return Some(summary.clone());
            }
        }
        let summary = summary(listing)?;
        by_tool.insert(listing.tool_id, (Arc::clone(listing), summary.clone()));
        Some(summary)
    }
}

fn summary(l: &ToolListing) -> Option<ToolSummary> {
    Some(ToolSummary {
        tool_id: ToolId::parse(l.tool_id).ok()?,
        display_name: say(l.display_name),
        detected: l.detected.present,
        detected_version: l
            .detected
            .version
            .as_ref()
            .and_then(|v| VersionLabel::parse(&v.to_string()).ok()),
        compatibility: l.detected.compatibility,
        capabilities: l
            .capabilities
            .iter()
            .map(|c| CapabilityView {
                capability: c.capability,
                support: c.support,
                reason: Some(say(&c.reason)),
            })
            .collect(),
        adapter_ceiling: l.adapter_ceiling,
    })
}
