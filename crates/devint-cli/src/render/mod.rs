//! Human renderings of the DI-API views, one module per view: the words of
//! [`crate::words`], tables that fit the page, one result line that says what happened.
//!
//! This module owns presentation only. It must never derive or upgrade a protection state
//! (ADR 0030 §4.2 rule 4: the runtime computes it, a client renders it): where it marks a
//! rung out of reach it says which capability on this host is missing, and it shows the
//! runtime's own sentences (`blocked_because`, `state_reason`, details) unchanged, but for
//! a step's sentence, whose capability tokens read as words ([`words::prose`]). Wire
//! tokens stay in `--output json`; a person reads words.

mod events;
mod plan;
mod removal;
mod repair;
mod status;
mod tools;
mod verify;

pub use events::{approval, events};
pub use plan::{apply_result, plan, plan_preview};
pub use removal::{has_work as removal_has_work, removal_preview, removal_result};
pub use repair::{repair_preview, repair_result};
pub use status::{overview, status, OverviewRow};
pub use tools::tools;
pub use verify::verification;

use std::fmt::Write as _;

use devint::verbs::{EvidenceView, PolicyView, StepView, Unrecognized};

use crate::output::Page;
use crate::words;

/// The evidence table: what was observed about each mechanism, and when.
fn evidence(p: &Page, items: &[EvidenceView]) -> String {
    if items.is_empty() {
        return "  evidence: none\n".into();
    }
    let mut t = p.table(&["MECHANISM", "EVIDENCE", "CHECKED AT", "DETAIL"]);
    for e in items {
        t.row([
            words::mechanism(e.mechanism.as_str()),
            words::evidence(&e.evidence),
            words::time(e.observed_at_unix_secs.get()),
            e.detail
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
        ]);
    }
    t.render("  ")
}

/// The policy line.
fn policy(p: &PolicyView) -> String {
    let mut line = format!("  policy: {}", words::policy(p.state));
    if let Some(source) = &p.source {
        let _ = write!(line, ", from {source}");
    }
    if let Some(detail) = &p.detail {
        let _ = write!(line, " ({detail})");
    }
    line.push('\n');
    line
}

/// The steps of a plan or a removal, numbered (the runtime's step ids are in
/// `--output json`): what each does, as whom, whether it can be undone, then what a step
/// touches that its sentence does not already name.
fn steps(p: &Page, steps: &[StepView]) -> String {
    let mut t = p.table(&["STEP", "WHAT IT DOES", "RUNS AS", "UNDOABLE"]);
    for (n, step) in steps.iter().enumerate() {
        t.row([
            (n + 1).to_string(),
            words::prose(step.summary.as_str()),
            words::privilege(step.privilege).to_owned(),
            if step.reversible { "yes" } else { "no" }.to_owned(),
        ]);
    }
    let mut out = t.render("  ");
    for (n, step) in steps.iter().enumerate() {
        let keys: Vec<&str> = step.managed_keys.iter().map(|k| k.as_str()).collect();
        let files: Vec<&str> = step.artifact_paths.iter().map(|f| f.as_str()).collect();
        let summary = step.summary.as_str();
        if keys.iter().chain(&files).all(|name| summary.contains(name)) {
            continue;
        }
        let mut touched = format!("  step {} touches", n + 1);
        if !keys.is_empty() {
            let _ = write!(touched, " {}", keys.join(", "));
            if !files.is_empty() {
                touched.push_str(" in");
            }
        }
        if !files.is_empty() {
            let _ = write!(touched, " {}", files.join(", "));
        }
        out.push_str(&p.s.dim(&touched));
        out.push('\n');
    }
    out
}

/// The fields of the runtime's answer the client could not read (another implementation's
/// values outside the spec's vocabularies or shapes), named so the reader knows what the
/// rest of the page leaves out; empty when every field was read.
/// Each name is the field's path, under `prefix` when the view is embedded in another.
fn unrecognized<'a>(
    p: &Page,
    parts: impl IntoIterator<Item = (&'a str, &'a [Unrecognized])>,
) -> String {
    let names: Vec<String> = parts
        .into_iter()
        .flat_map(|(prefix, fields)| fields.iter().map(move |u| format!("{prefix}{}", u.field)))
        .collect();
    if names.is_empty() {
        return String::new();
    }
    format!(
        "\n  {} {}\n  (outside the DI-API's vocabularies or shapes; shown above is everything else the runtime sent)\n",
        p.s.warn(&format!(
            "could not read {} of the runtime's answer:",
            count(names.len(), "field")
        )),
        names.join(", ")
    )
}

/// `n thing` or `n things`.
fn count(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}
