//! Human renderings of the DI-API views: tool tables, the ladder with every rung, evidence
//! split by kind, plans, removals.
//!
//! This module owns presentation only. It must never derive or upgrade a protection state
//! (ADR 0030 §4.2 rule 4: the runtime computes it, a client renders it): where it marks a
//! rung unreachable it says which capability on this host is missing, and it shows the
//! runtime's own `next_level.blocked_because` unchanged.

use std::fmt::Write as _;

use devint::verbs::{
    ApplyMutation, ApplyView, CapabilityName, Compatibility, EvidenceKind, EvidenceView, Level,
    PlanView, Privilege, RemovalView, RepairView, ScopedEventList, StatusState, StatusView,
    StepView, Support, ToolSummary, VerificationOutcome, VerificationView,
};

use crate::output::{utc, Style, Table};

/// The `tools` table.
pub fn tools(s: &Style, tools: &[ToolSummary]) -> String {
    let mut t = Table::new(&[
        "TOOL",
        "NAME",
        "DETECTED",
        "VERSION",
        "COMPATIBILITY",
        "CEILING",
    ]);
    for tool in tools {
        t.row(vec![
            tool.tool_id.to_string(),
            tool.display_name.to_string(),
            if tool.detected {
                s.good("yes")
            } else {
                s.dim("no")
            },
            tool.detected_version
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_else(|| "-".into()),
            compatibility(s, tool.compatibility),
            tool.adapter_ceiling.to_string(),
        ]);
    }
    let detected = tools.iter().filter(|t| t.detected).count();
    format!(
        "{}\n{detected} of {} tools detected on this host. `devint status TOOL` shows one tool's ladder.",
        t.render(""),
        tools.len()
    )
}

fn compatibility(s: &Style, c: Compatibility) -> String {
    match c {
        Compatibility::Compatible => s.good(c.token()),
        Compatibility::Incompatible => s.bad(c.token()),
        Compatibility::Unknown => s.dim(c.token()),
    }
}

/// Why `level` is out of this host's reach, judged from the tool's capabilities; `None`
/// when nothing on this host rules it out.
fn unreachable_because(
    level: Level,
    tool: Option<&ToolSummary>,
    status: &StatusView,
) -> Option<String> {
    if status.compatibility == Compatibility::Incompatible && level > Level::DetectedNotIntegrated {
        return Some("the installed version is incompatible with the adapter".into());
    }
    let tool = tool?;
    if !tool.detected && level > Level::NotInstalled {
        return Some("the tool is not installed on this host".into());
    }
    let support = |c: CapabilityName| {
        tool.capabilities
            .iter()
            .find(|v| v.capability == c)
            .map(|v| (v.support, v.reason.as_ref().map(|r| r.to_string())))
    };
    let supported = |c: CapabilityName| matches!(support(c), Some((Support::Supported, _)));
    match level {
        Level::GatewayProtected => {
            let routes = [
                CapabilityName::ModelGatewayBaseUrl,
                CapabilityName::HttpProxy,
                CapabilityName::ModelPathInterception,
            ];
            (!routes.iter().any(|c| supported(*c))).then(|| {
                "no supported route for model traffic (model_gateway_base_url, http_proxy, \
                 model_path_interception)"
                    .to_owned()
            })
        }
        Level::HostEnforced => match support(CapabilityName::HostEnforcement) {
            Some((Support::Supported, _)) => None,
            Some((support, reason)) => Some(format!(
                "host_enforcement is {support}{}",
                reason.map(|r| format!(": {r}")).unwrap_or_default()
            )),
            None => Some("host_enforcement is absent".into()),
        },
        _ => None,
    }
}

/// One tool's status: state, the ladder with every rung, evidence by kind, drift, policy.
pub fn status(s: &Style, st: &StatusView, tool: Option<&ToolSummary>) -> String {
    let mut out = String::new();
    let state = match st.state {
        StatusState::Ladder => s.good(st.state.token()),
        StatusState::Drifted | StatusState::Incompatible => s.bad(st.state.token()),
        StatusState::Degraded => s.warn(st.state.token()),
    };
    let _ = writeln!(
        out,
        "{}  phase {}  state {}  achieved {}",
        s.bold(st.tool_id.as_str()),
        st.phase,
        state,
        st.achieved_level
    );
    let _ = writeln!(
        out,
        "  adapter ceiling {}  compatibility {}  observed {}",
        st.adapter_ceiling,
        compatibility(s, st.compatibility),
        utc(st.observed_at_unix_secs)
    );
    if let Some(r) = &st.state_reason {
        let _ = writeln!(out, "  why: {r}");
    }
    if let Some(r) = &st.state_remediation {
        let _ = writeln!(out, "  to fix: {r}");
    }
    let _ = writeln!(out, "\n  ladder:");
    let mut t = Table::new(&["", "RUNG", "NOTE"]);
    for level in Level::ALL.iter().copied() {
        let held = level <= st.achieved_level;
        let mark = if held { s.good("✓") } else { s.dim("·") };
        let mut notes = Vec::new();
        if level == st.achieved_level {
            notes.push(if st.state == StatusState::Ladder {
                "held now".to_owned()
            } else {
                format!("last held ({} overrides)", st.state)
            });
        }
        if st.planned_level == Some(level) {
            notes.push("planned".into());
        }
        if let Some(next) = st.next_level.as_ref().filter(|n| n.level == level) {
            notes.push(match &next.blocked_because {
                Some(b) => format!("next, blocked: {b}"),
                None => "next".into(),
            });
        }
        if !held {
            if let Some(why) = unreachable_because(level, tool, st) {
                notes.push(s.warn(&format!("not reachable on this host: {why}")));
            }
        }
        t.row(vec![mark, level.to_string(), notes.join("; ")]);
    }
    out.push_str(&t.render("    "));
    out.push_str(&evidence(s, &st.evidence));
    if !st.drift_mismatched.is_empty() {
        let _ = writeln!(out, "\n  {}", s.bad("drifted (ours, changed since apply):"));
        for d in &st.drift_mismatched {
            let _ = writeln!(out, "    {}", d.as_str());
        }
        let _ = writeln!(out, "  run `devint repair {}` to restore them", st.tool_id);
    }
    if let Some(p) = &st.policy {
        let _ = writeln!(
            out,
            "\n  policy: {}{}{}",
            p.state,
            p.source
                .as_ref()
                .map(|x| format!(" from {x}"))
                .unwrap_or_default(),
            p.detail
                .as_ref()
                .map(|x| format!(" ({x})"))
                .unwrap_or_default()
        );
    }
    out
}

/// Evidence split by kind, each with "verified at T".
pub fn evidence(s: &Style, items: &[EvidenceView]) -> String {
    let mut out = String::new();
    if items.is_empty() {
        let _ = writeln!(out, "\n  evidence: none");
        return out;
    }
    for kind in [
        EvidenceKind::ReadBack,
        EvidenceKind::Exercised,
        EvidenceKind::HostAttested,
        EvidenceKind::Absent,
    ] {
        let of_kind: Vec<&EvidenceView> =
            items.iter().filter(|e| e.evidence.kind() == kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n  evidence ({kind}):");
        let mut t = Table::new(&["MECHANISM", "OUTCOME", "VERIFIED AT", "DETAIL"]);
        for e in of_kind {
            let outcome = e.evidence.outcome_token();
            let painted = match outcome {
                "matched" | "blocked" | "redacted" | "healthy" => s.good(outcome),
                "mismatched" | "leaked" | "unhealthy" => s.bad(outcome),
                _ => s.warn(outcome),
            };
            t.row(vec![
                e.mechanism.to_string(),
                painted,
                format!("verified at {}", utc(e.observed_at_unix_secs)),
                e.detail
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
            ]);
        }
        out.push_str(&t.render("    "));
    }
    out
}

fn steps(s: &Style, steps: &[StepView]) -> String {
    let mut t = Table::new(&[
        "STEP",
        "ACTION",
        "PRIVILEGE",
        "SCOPE",
        "REVERSIBLE",
        "SUMMARY",
    ]);
    for step in steps {
        t.row(vec![
            step.id.to_string(),
            step.action_kind.to_string(),
            match step.privilege {
                Privilege::PrivilegedHost => s.warn(step.privilege.token()),
                Privilege::User => step.privilege.to_string(),
            },
            step.settings_scope.to_string(),
            if step.reversible {
                "yes".into()
            } else {
                s.warn("no")
            },
            step.summary.to_string(),
        ]);
    }
    let mut out = t.render("    ");
    for step in steps {
        let touched: Vec<&str> = step
            .managed_keys
            .iter()
            .map(|k| k.as_str())
            .chain(step.artifact_paths.iter().map(|p| p.as_str()))
            .collect();
        if !touched.is_empty() {
            let _ = writeln!(out, "    {}: {}", step.id, s.dim(&touched.join(", ")));
        }
    }
    out
}

/// A plan.
pub fn plan(s: &Style, p: &PlanView) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} plan {} for {}: profile {}, scope {}, aims for {} (adapter ceiling {})",
        s.bold("dry run"),
        p.plan_id,
        p.tool_id,
        p.profile,
        p.settings_scope,
        p.planned_level,
        p.adapter_ceiling
    );
    if let Some(pp) = &p.policy_profile {
        let _ = writeln!(
            out,
            "  policy profile: {} ({}, {})",
            pp.display_name, pp.id, pp.digest
        );
    }
    if p.steps.is_empty() {
        let _ = writeln!(out, "  no steps: nothing to change");
    } else {
        let _ = writeln!(out, "  steps:");
        out.push_str(&steps(s, &p.steps));
    }
    if !p.unsupported.is_empty() {
        let _ = writeln!(out, "  not possible for this tool:");
        for u in &p.unsupported {
            let _ = writeln!(out, "    {}: {}", u.capability, u.reason);
        }
    }
    for w in &p.warnings {
        let _ = writeln!(out, "  {} {w}", s.warn("warning:"));
    }
    out
}

/// An apply's outcome.
pub fn apply(s: &Style, a: &ApplyView) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "applied plan {} at {}: receipt {}, achieved {} (planned {})",
        a.plan_id,
        utc(a.applied_at_unix_secs),
        a.receipt_id,
        a.achieved_level,
        a.planned_level
    );
    if let Some(o) = &a.outcome {
        let _ = writeln!(
            out,
            "  outcome: {}{}",
            mutation_token(o.mutation),
            o.detail
                .as_ref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        );
    }
    let mut t = Table::new(&["STEP", "OUTCOME", "FINGERPRINT"]);
    for step in &a.steps {
        t.row(vec![
            step.step_id.to_string(),
            match step.outcome.token() {
                "applied" => s.good("applied"),
                "failed" => s.bad("failed"),
                other => s.dim(other),
            },
            step.fingerprint
                .as_ref()
                .map(|f| f.as_str()[..12].to_owned())
                .unwrap_or_else(|| "-".into()),
        ]);
    }
    out.push_str(&t.render("    "));
    out
}

fn mutation_token(m: ApplyMutation) -> &'static str {
    m.token()
}

/// A verification.
pub fn verification(s: &Style, tool: &str, v: &VerificationView) -> String {
    let mut out = String::new();
    let outcome = match v.outcome {
        VerificationOutcome::Passed => s.good(v.outcome.token()),
        VerificationOutcome::Failed => s.bad(v.outcome.token()),
        _ => s.warn(v.outcome.token()),
    };
    let _ = writeln!(
        out,
        "{} verification {} (verified at {})",
        s.bold(tool),
        outcome,
        utc(v.verified_at_unix_secs)
    );
    if let Some(r) = &v.reason {
        let _ = writeln!(out, "  why: {r}");
    }
    if !v.missing.is_empty() {
        let names: Vec<&str> = v.missing.iter().map(|m| m.as_str()).collect();
        let _ = writeln!(out, "  missing: {}", names.join(", "));
    }
    out.push_str(&evidence(s, &v.evidence));
    if let Some(p) = &v.policy {
        let _ = writeln!(out, "\n  policy: {}", p.state);
    }
    out
}

/// A repair.
pub fn repair(s: &Style, r: &RepairView, tool: Option<&ToolSummary>) -> String {
    let mut out = String::new();
    if r.repaired.is_empty() {
        let _ = writeln!(out, "{}: nothing needed repair", r.tool_id);
    } else {
        let _ = writeln!(out, "{}: restored", r.tool_id);
        for m in &r.repaired {
            let _ = writeln!(out, "    {}", m.as_str());
        }
    }
    for u in &r.unrepairable {
        let _ = writeln!(
            out,
            "  {} {}: {}",
            s.bad("cannot repair"),
            u.capability,
            u.reason
        );
    }
    out.push('\n');
    out.push_str(&status(s, &r.status, tool));
    out
}

/// A removal preview or result.
pub fn removal(s: &Style, r: &RemovalView, executed: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {} for {} (plan {})",
        s.bold(if executed {
            "removed"
        } else {
            "removal preview"
        }),
        if executed {
            "integration"
        } else {
            "— what will be restored"
        },
        r.tool_id,
        r.plan_id
    );
    if r.steps.is_empty() {
        let _ = writeln!(out, "  no steps: nothing of ours is installed");
    } else {
        out.push_str(&steps(s, &r.steps));
    }
    if r.residual.is_empty() {
        let _ = writeln!(out, "  nothing will remain");
    } else {
        let _ = writeln!(
            out,
            "  {}",
            s.warn(if executed {
                "remains (not ours to restore, or withheld):"
            } else {
                "will remain (not ours to restore, or withheld):"
            })
        );
        for m in &r.residual {
            let _ = writeln!(out, "    {}", m.as_str());
        }
    }
    for w in &r.warnings {
        let _ = writeln!(out, "  {} {w}", s.warn("warning:"));
    }
    out
}

/// Scoped events.
pub fn events(s: &Style, tool: &str, list: &ScopedEventList) -> String {
    if list.events.is_empty() {
        return format!("{tool}: no events in range\n");
    }
    let mut t = Table::new(&["AT", "VERDICT", "MECHANISM", "COUNT", "REDACTIONS"]);
    for e in &list.events {
        let verdict = e.verdict_kind.token();
        t.row(vec![
            utc(e.occurred_at_unix_secs),
            match verdict {
                "deny" => s.bad(verdict),
                "allow" => s.good(verdict),
                _ => s.warn(verdict),
            },
            e.mechanism.to_string(),
            e.count.to_string(),
            e.redaction_labels
                .iter()
                .map(|l| l.as_str())
                .collect::<Vec<_>>()
                .join(","),
        ]);
    }
    t.render("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use devint::verbs::{
        AdapterCeiling, CapabilityView, NextLevelView, Phase, Sentence, ToolId, VersionLabel,
    };

    fn summary(host: Support) -> ToolSummary {
        ToolSummary {
            tool_id: ToolId::parse("claude-code").unwrap(),
            display_name: Sentence::from_static("Claude Code"),
            detected: true,
            detected_version: Some(VersionLabel::parse("2.0.14").unwrap()),
            compatibility: Compatibility::Compatible,
            capabilities: CapabilityName::ALL
                .iter()
                .map(|c| CapabilityView {
                    capability: *c,
                    support: if *c == CapabilityName::HostEnforcement {
                        host
                    } else {
                        Support::Supported
                    },
                    reason: None,
                })
                .collect(),
            adapter_ceiling: AdapterCeiling::L3Native,
        }
    }

    fn view() -> StatusView {
        StatusView {
            tool_id: ToolId::parse("claude-code").unwrap(),
            phase: Phase::Installed,
            state: StatusState::Drifted,
            achieved_level: Level::Integrated,
            planned_level: Some(Level::GatewayProtected),
            adapter_ceiling: AdapterCeiling::L3Native,
            compatibility: Compatibility::Compatible,
            evidence: Vec::new(),
            next_level: Some(NextLevelView {
                level: Level::GatewayProtected,
                blocked_because: Some(Sentence::from_static("no gateway probe is configured")),
            }),
            observed_at_unix_secs: devint::time::UnixSecs::EPOCH,
            drift_mismatched: Vec::new(),
            state_reason: None,
            state_remediation: None,
            policy: None,
        }
    }

    #[test]
    fn the_ladder_shows_every_rung_and_why_one_is_out_of_reach() {
        let text = status(
            &Style { colour: false },
            &view(),
            Some(&summary(Support::Unsupported)),
        );
        for level in Level::ALL {
            assert!(text.contains(level.token()), "{level}: {text}");
        }
        assert!(text.contains("last held (drifted overrides)"), "{text}");
        assert!(
            text.contains("next, blocked: no gateway probe is configured"),
            "{text}"
        );
        assert!(
            text.contains("not reachable on this host: host_enforcement is unsupported"),
            "{text}"
        );
    }

    #[test]
    fn a_supported_rung_is_not_called_unreachable() {
        let text = status(
            &Style { colour: false },
            &view(),
            Some(&summary(Support::Supported)),
        );
        assert!(!text.contains("not reachable"), "{text}");
    }
}
