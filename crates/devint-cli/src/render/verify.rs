//! `devint verify`: the outcome, why, what is missing, and the fresh evidence.

use std::fmt::Write as _;

use devint::verbs::{VerificationOutcome, VerificationView};

use super::{evidence, policy, unrecognized};
use crate::output::Page;
use crate::words;

/// A verification.
pub fn verification(p: &Page, tool: &str, v: &VerificationView) -> String {
    let s = &p.s;
    let headline = format!(
        "{tool} verification {} at {}",
        words::verification(v.outcome),
        words::time(v.verified_at_unix_secs.get())
    );
    let mut out = match v.outcome {
        VerificationOutcome::Passed => s.good(&headline),
        VerificationOutcome::Failed => s.bad(&headline),
        _ => s.warn(&headline),
    };
    out.push('\n');
    if let Some(r) = &v.reason {
        let _ = writeln!(out, "  why: {r}");
    }
    if !v.missing.is_empty() {
        let names: Vec<String> = v
            .missing
            .iter()
            .map(|m| words::mechanism(m.as_str()))
            .collect();
        let _ = writeln!(out, "  missing: {}", names.join(", "));
    }
    out.push('\n');
    out.push_str(&evidence(p, &v.evidence));
    if let Some(pv) = &v.policy {
        out.push('\n');
        out.push_str(&policy(pv));
    }
    out.push_str(&unrecognized(p, [("", v.unrecognized.as_slice())]));
    let _ = writeln!(
        out,
        "\n`devint status {tool}` shows the level this evidence supports."
    );
    out
}
