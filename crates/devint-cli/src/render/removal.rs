//! `devint remove`: what removal restores and what remains, then what it did.

use std::fmt::Write as _;

use devint::verbs::RemovalView;

use super::{count, steps};
use crate::output::Page;

/// Whether a removal has anything to do.
pub fn has_work(r: &RemovalView) -> bool {
    !r.steps.is_empty()
}

fn residual(p: &Page, r: &RemovalView, future: bool) -> String {
    let mut out = String::new();
    if r.residual.is_empty() {
        // "As before" is claimed only when the runtime has nothing to add: every file it
        // cannot give back byte for byte (changed since, created by devint and kept,
        // withheld) comes with a warning saying so.
        let _ = writeln!(
            out,
            "  {}",
            match (future, r.warnings.is_empty()) {
                (true, true) => "nothing of devint's will remain: the settings files will be as they were before devint",
                (false, true) => "nothing of devint's remains: the settings files are as they were before devint",
                (true, false) => "nothing of devint's will remain",
                (false, false) => "nothing of devint's remains",
            }
        );
    } else {
        let names: Vec<&str> = r.residual.iter().map(|m| m.as_str()).collect();
        let _ = writeln!(
            out,
            "  {} {}",
            p.s.warn(if future {
                "will remain (not devint's to restore, or withheld):"
            } else {
                "remains (not devint's to restore, or withheld):"
            }),
            names.join(", ")
        );
    }
    for w in &r.warnings {
        let _ = writeln!(out, "  {} {w}", p.s.warn("warning:"));
    }
    out
}

/// The removal preview, before the question.
pub fn removal_preview(p: &Page, r: &RemovalView) -> String {
    let mut out = format!(
        "{} devint's integration of {} (plan {}) will:\n",
        p.s.bold("Removing"),
        p.s.bold(r.tool_id.as_str()),
        r.plan_id
    );
    out.push_str(&steps(p, &r.steps));
    out.push_str(&residual(p, r, true));
    out.push('\n');
    out
}

/// What the removal did, in one line (or that there was nothing to remove).
pub fn removal_result(p: &Page, r: &RemovalView) -> String {
    if !has_work(r) {
        let mut out = format!(
            "Nothing to remove: devint has nothing installed for {}.\n",
            r.tool_id
        );
        if !r.residual.is_empty() || !r.warnings.is_empty() {
            out.push_str(&residual(p, r, false));
        }
        return out;
    }
    let mut out = format!(
        "{} devint's integration of {}: {} undone (plan {}).\n",
        p.s.good("Removed"),
        r.tool_id,
        count(r.steps.len(), "step"),
        r.plan_id
    );
    out.push_str(&residual(p, r, false));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Style;
    use devint::verbs::{PlanId, Sentence, ToolId};

    fn page() -> Page {
        Page {
            s: Style { colour: false },
            width: None,
        }
    }

    fn view(warnings: &[&'static str]) -> RemovalView {
        RemovalView {
            schema_version: 1,
            plan_id: PlanId::random(),
            tool_id: ToolId::parse("claude-code").unwrap(),
            steps: Vec::new(),
            residual: Vec::new(),
            warnings: warnings.iter().map(|w| Sentence::from_static(w)).collect(),
        }
    }

    #[test]
    fn as_before_is_claimed_only_when_the_runtime_has_nothing_to_add() {
        let clean = removal_preview(&page(), &view(&[]));
        assert!(
            clean.contains("will be as they were before devint"),
            "{clean}"
        );
        let kept = removal_preview(
            &page(),
            &view(&["~/.claude/settings.json stays: devint created it, but it now also holds settings devint did not write"]),
        );
        assert!(!kept.contains("as they were before devint"), "{kept}");
        assert!(kept.contains("nothing of devint's will remain"), "{kept}");
        assert!(kept.contains("stays: devint created it"), "{kept}");
    }
}
