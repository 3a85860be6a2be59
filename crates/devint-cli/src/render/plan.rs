//! Plans and applies: what a plan will change, the command that applies exactly it, and
//! what the apply did.

use std::fmt::Write as _;

use devint::verbs::{ApplyMutation, ApplyView, Level, PlanView, StepOutcome};

use super::steps;
use crate::output::Page;
use crate::words;

/// The body of a plan: whose settings, what it aims for, the steps, what is impossible,
/// the warnings.
fn body(p: &Page, plan: &PlanView) -> String {
    let s = &p.s;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  for {}, profile {}; aims for: {} (adapter: {})",
        words::scope(plan.settings_scope),
        words::profile(plan.profile),
        words::level(plan.planned_level),
        words::ceiling(plan.adapter_ceiling)
    );
    if let Some(pp) = &plan.policy_profile {
        let _ = writeln!(
            out,
            "  policy profile: {}; its values: `devint profile show {}`",
            pp.display_name, pp.id
        );
    }
    out.push('\n');
    if plan.steps.is_empty() {
        let _ = writeln!(out, "  no steps: nothing would change");
    } else {
        out.push_str(&steps(p, &plan.steps));
    }
    if !plan.unsupported.is_empty() {
        let _ = writeln!(out, "\n  not possible for this tool:");
        for u in &plan.unsupported {
            let _ = writeln!(out, "    {}: {}", words::capability(u.capability), u.reason);
        }
    }
    if !plan.warnings.is_empty() {
        out.push('\n');
        for w in &plan.warnings {
            let _ = writeln!(out, "  {} {w}", s.warn("warning:"));
        }
    }
    out
}

/// `devint plan`: the plan, then the command that applies exactly it.
pub fn plan(p: &Page, plan: &PlanView) -> String {
    let s = &p.s;
    let mut out = format!(
        "{} {} for {}\n",
        s.bold("Plan"),
        plan.plan_id,
        s.bold(plan.tool_id.as_str())
    );
    out.push_str(&body(p, plan));
    if plan.steps.is_empty() {
        let _ = writeln!(
            out,
            "\nNothing changed, and applying this plan would change nothing."
        );
    } else {
        let _ = writeln!(
            out,
            "\nNothing changed yet. To apply exactly this plan (with this token, before it expires):\n  devint apply {} --plan {}",
            plan.tool_id, plan.plan_id
        );
    }
    p.fit(&out)
}

/// `devint apply`: the plan about to be applied, for review before the question (ends
/// with a blank line, before the question or the result).
pub fn plan_preview(p: &Page, plan: &PlanView) -> String {
    let mut out = format!(
        "{} for {} (plan {}):\n",
        p.s.bold("About to apply"),
        p.s.bold(plan.tool_id.as_str()),
        plan.plan_id
    );
    out.push_str(&body(p, plan));
    out.push('\n');
    p.fit(&out)
}

/// What an apply did, in one line, then the level it left and what would raise it.
pub fn apply_result(p: &Page, tool: &str, a: &ApplyView) -> String {
    let s = &p.s;
    let mut out = String::new();
    let failed = a
        .steps
        .iter()
        .filter(|st| st.outcome == StepOutcome::Failed)
        .count();
    let mutation = a.outcome.as_ref().map(|o| o.mutation);
    let (verdict, painted) = match mutation {
        Some(ApplyMutation::Failed) => ("failed", true),
        Some(ApplyMutation::Unsupported) => ("could not be applied", true),
        _ if failed > 0 => ("failed", true),
        _ => ("applied", false),
    };
    let headline = format!("Plan {} {verdict} to {tool}", a.plan_id);
    let _ = write!(
        out,
        "{}",
        if painted {
            s.bad(&headline)
        } else {
            s.good(&headline)
        }
    );
    if verdict == "applied" {
        let _ = write!(out, "{}", words::applied(mutation));
    }
    let _ = writeln!(out, " (receipt {}).", a.receipt_id);
    if verdict != "applied" {
        if let Some(detail) = a.outcome.as_ref().and_then(|o| o.detail.as_ref()) {
            let _ = writeln!(out, "  why: {detail}");
        }
    }
    let unchanged = mutation == Some(ApplyMutation::Unchanged);
    if !unchanged && a.steps.iter().any(|st| st.outcome != StepOutcome::Applied) {
        let mut t = p.table(&["STEP", "OUTCOME"]);
        for st in &a.steps {
            t.row([
                st.step_id.to_string(),
                words::step_outcome(st.outcome).to_owned(),
            ]);
        }
        out.push_str(&t.render("  "));
    }
    let _ = writeln!(
        out,
        "{tool} is now {}: {}.",
        words::level(a.achieved_level),
        words::level_meaning(a.achieved_level)
    );
    if a.achieved_level == Level::PartiallyIntegrated && verdict == "applied" {
        let _ = writeln!(
            out,
            "Run `devint verify {tool}` to read it back and reach {} (planned: {}).",
            words::level(Level::Integrated),
            words::level(a.planned_level)
        );
    } else if a.achieved_level < a.planned_level && verdict == "applied" {
        let _ = writeln!(
            out,
            "Planned: {}; `devint status {tool}` shows what blocks it.",
            words::level(a.planned_level)
        );
    }
    out
}
