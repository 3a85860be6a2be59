//! `devint verify`: the outcome, why, what is missing, and the fresh evidence.

use std::fmt::Write as _;

use devint::verbs::{VerificationOutcome, VerificationView};

use super::{evidence, policy, unrecognized};
use crate::exit::Exit;
use crate::output::Page;
use crate::words;

/// A verification, headed by what `exit` (the command's exit code for it) means: a
/// read-back that found one of devint's settings changed is drift (exit 5), and says so.
pub fn verification(p: &Page, tool: &str, v: &VerificationView, exit: Exit) -> String {
    let s = &p.s;
    let at = words::time(v.verified_at_unix_secs.get());
    let drifted = exit == Exit::Drifted;
    let headline = if drifted {
        format!("{tool} is drifted: the verification at {at} read back settings of devint's that changed since apply")
    } else {
        format!(
            "{tool} verification {} at {at}",
            words::verification(v.outcome)
        )
    };
    let mut out = match v.outcome {
        _ if drifted => s.bad(&headline),
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
    if drifted {
        let _ = writeln!(
            out,
            "\n`devint repair {tool}` restores devint's settings (other settings are left alone)."
        );
    }
    let _ = writeln!(
        out,
        "\n`devint status {tool}` shows the level this evidence supports."
    );
    out
}
