//! `devint repair`: what will be restored, then what was.

use std::fmt::Write as _;

use devint::verbs::{RepairView, StatusView};

use super::{count, unrecognized};
use crate::output::Page;
use crate::words;

/// Before a repair: what the status says drifted.
pub fn repair_preview(p: &Page, st: &StatusView) -> String {
    let mut out = String::new();
    if st.drift_mismatched.is_empty() {
        let _ = writeln!(
            out,
            "{}: no drift was seen; repair checks everything of devint's again and restores what is missing.",
            p.s.bold(st.tool_id.as_str())
        );
    } else {
        let names: Vec<&str> = st.drift_mismatched.iter().map(|d| d.as_str()).collect();
        let _ = writeln!(
            out,
            "{}: {} changed since devint installed {}: {}",
            p.s.bold(st.tool_id.as_str()),
            count(names.len(), "setting"),
            if names.len() == 1 { "it" } else { "them" },
            names.join(", ")
        );
        let _ = writeln!(
            out,
            "  repair writes devint's values back; other settings are left alone."
        );
    }
    out.push('\n');
    out
}

/// After a repair: one line saying what was restored, what could not be, and where the
/// tool stands now.
pub fn repair_result(p: &Page, r: &RepairView) -> String {
    let s = &p.s;
    let mut out = String::new();
    if r.repaired.is_empty() {
        let _ = writeln!(out, "Nothing needed repair for {}.", r.tool_id);
    } else {
        let names: Vec<&str> = r.repaired.iter().map(|m| m.as_str()).collect();
        let _ = writeln!(
            out,
            "{} {} for {}: {}",
            s.good("Restored"),
            count(names.len(), "setting"),
            r.tool_id,
            names.join(", ")
        );
    }
    for u in &r.unrepairable {
        let _ = writeln!(
            out,
            "  {} {}: {}",
            s.bad("cannot repair"),
            words::capability(u.capability),
            u.reason
        );
    }
    let st = &r.status;
    match words::condition(st.state) {
        None => {
            let _ = writeln!(
                out,
                "{} is now {}.",
                r.tool_id,
                words::level(st.achieved_level)
            );
            if st.achieved_level == devint::verbs::Level::PartiallyIntegrated {
                let what = if r.repaired.is_empty() {
                    "devint's settings"
                } else {
                    "the restored settings"
                };
                let _ = writeln!(
                    out,
                    "Run `devint verify {}` to read {what} back.",
                    r.tool_id
                );
            }
        }
        Some(c) => {
            let _ = writeln!(
                out,
                "{} is still {c} (last held: {}); `devint status {}` says why.",
                r.tool_id,
                words::level(st.achieved_level),
                r.tool_id
            );
        }
    }
    out.push_str(&unrecognized(
        p,
        [
            ("", r.unrecognized.as_slice()),
            ("status.", st.unrecognized.as_slice()),
        ],
    ));
    out
}
