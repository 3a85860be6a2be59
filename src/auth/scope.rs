//! [`Scope`]: which tools × which verbs a token covers (spec §6, §7).

use std::collections::BTreeSet;

use crate::verbs::{Verb, VerbSet};

/// The tool half of a scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolScope {
    /// Every tool, including ones added later.
    All,
    /// Exactly these tool ids. An empty set grants nothing at all — not even `list_tools`.
    Only(BTreeSet<String>),
}

/// What a token may do: a set of tools (or all tools) × a set of verbs.
///
/// Rules (spec §6, §7):
/// - the verb must be in `verbs`;
/// - every verb but `list_tools` is tool-scoped (the [`Verb::rule`] table says which), and
///   the request's tool must be in `tools`;
/// - an empty set on either side grants nothing. We read "nothing" literally: a scope with
///   an empty tool set does not grant `list_tools` either, although that verb names no tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The tools covered.
    pub tools: ToolScope,
    /// The verbs covered.
    pub verbs: VerbSet,
}

impl Scope {
    // spec[S7-SCOPE-SETS] §7: the named verb sets `read_only` and `full_lifecycle`.
    /// `read_only` = {list_tools, status, verify, scoped_events} on `tools` (spec §7).
    pub fn read_only(tools: ToolScope) -> Scope {
        Scope {
            tools,
            verbs: VerbSet::read_only(),
        }
    }

    /// `full_lifecycle` = all nine verbs on `tools` (spec §7).
    pub fn full_lifecycle(tools: ToolScope) -> Scope {
        Scope {
            tools,
            verbs: VerbSet::full_lifecycle(),
        }
    }

    /// Whether the scope grants anything at all.
    pub fn is_empty(&self) -> bool {
        self.verbs.is_empty() || matches!(&self.tools, ToolScope::Only(set) if set.is_empty())
    }

    // spec[S6-SCOPE] §6: the token's scope covers this verb, and this tool.
    /// Whether this scope covers `verb` on `tool` (`tool` is ignored for `list_tools`).
    pub fn covers(&self, verb: Verb, tool: &str) -> bool {
        // spec[S7-SCOPE-SETS] §7: an empty set grants nothing.
        if self.is_empty() || !self.verbs.contains(verb) {
            return false;
        }
        // spec[S6-SCOPE] §6: every verb but list_tools is tool-scoped.
        if !verb.rule().tool_scoped {
            return true;
        }
        match &self.tools {
            ToolScope::All => true,
            ToolScope::Only(set) => set.contains(tool),
        }
    }
}

impl ToolScope {
    /// `Only` from an iterator of tool ids.
    pub fn only<I, S>(tools: I) -> ToolScope
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ToolScope::Only(tools.into_iter().map(Into::into).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_scope_refuses_apply_repair_remove_and_plan() {
        let s = Scope::read_only(ToolScope::All);
        for v in [
            Verb::Apply,
            Verb::Repair,
            Verb::Remove,
            Verb::Plan,
            Verb::ApprovalRelay,
        ] {
            assert!(!s.covers(v, "codex"), "{v}");
        }
        for v in [
            Verb::ListTools,
            Verb::Status,
            Verb::Verify,
            Verb::ScopedEvents,
        ] {
            assert!(s.covers(v, "codex"), "{v}");
        }
    }

    #[test]
    fn a_tool_scope_does_not_cross_to_another_tool() {
        let s = Scope::full_lifecycle(ToolScope::only(["codex"]));
        assert!(s.covers(Verb::Apply, "codex"));
        assert!(!s.covers(Verb::Apply, "claude-code"));
        assert!(!s.covers(Verb::Status, ""));
    }

    #[test]
    fn list_tools_is_exempt_from_the_tool_check() {
        let s = Scope::read_only(ToolScope::only(["codex"]));
        assert!(s.covers(Verb::ListTools, ""));
        assert!(s.covers(Verb::ListTools, "claude-code"));
    }

    #[test]
    fn empty_sets_grant_nothing_not_even_list_tools() {
        let no_tools = Scope::full_lifecycle(ToolScope::Only(BTreeSet::new()));
        let no_verbs = Scope {
            tools: ToolScope::All,
            verbs: VerbSet::EMPTY,
        };
        for v in Verb::ALL {
            assert!(!no_tools.covers(v, "codex"));
            assert!(!no_verbs.covers(v, "codex"));
        }
    }
}
