//! `devint status`: one line per tool, or one tool's ladder, evidence, drift and policy.

use std::fmt::Write as _;

use devint::verbs::{
    CapabilityName, Compatibility, Level, Phase, StatusState, StatusView, Support, ToolSummary,
};

use super::{evidence, policy, unrecognized};
use crate::output::Page;
use crate::words;

/// The protection a status reports, in words: the rung, or the condition overriding it
/// with the rung last held.
fn protection(st: &StatusView) -> String {
    match words::condition(st.state) {
        None => words::level(st.achieved_level).to_owned(),
        Some(condition) => format!(
            "{condition} (last held: {})",
            words::level(st.achieved_level)
        ),
    }
}

/// The one command that moves a tool on, judged from the runtime's own state (a
/// suggestion, never a state of ours).
fn next_step(st: &StatusView) -> Option<String> {
    let tool = st.tool_id.as_str();
    match st.state {
        StatusState::Drifted => return Some(format!("devint repair {tool}")),
        StatusState::Incompatible | StatusState::Degraded => {
            return Some(format!("devint status {tool}"))
        }
        // Something to fix before the ladder can be climbed (a settings file that does not
        // parse): its page says what.
        StatusState::Ladder if st.state_remediation.is_some() => {
            return Some(format!("devint status {tool}"))
        }
        StatusState::Ladder => {}
    }
    if st.phase == Phase::RemovalPending {
        return Some(format!("devint remove {tool}"));
    }
    match st.achieved_level {
        Level::NotInstalled => None,
        Level::DetectedNotIntegrated => Some(format!("devint plan {tool} --scope user")),
        Level::PartiallyIntegrated => Some(format!("devint verify {tool}")),
        Level::Integrated | Level::GatewayProtected | Level::HostEnforced => None,
    }
}

/// One row of the overview: a tool the runtime knows, with its status when asked for.
pub struct OverviewRow<'a> {
    /// The tool.
    pub tool: &'a ToolSummary,
    /// Its status.
    pub status: &'a StatusView,
}

/// `devint status` with no tool: one line per tool shown, then how many were left out.
pub fn overview(p: &Page, rows: &[OverviewRow<'_>], hidden: usize) -> String {
    if rows.is_empty() {
        return format!(
            "No tool devint knows is detected on this host ({hidden} known; `devint tools` lists them).\n"
        );
    }
    let mut t = p.table(&["TOOL", "DETECTED", "PROTECTION", "NEXT STEP"]);
    for row in rows {
        t.row([
            row.tool.tool_id.to_string(),
            match (&row.tool.detected, &row.tool.detected_version) {
                (true, Some(v)) => format!("yes ({v})"),
                (true, None) => "yes".into(),
                (false, _) => "no".into(),
            },
            protection(row.status),
            next_step(row.status).unwrap_or_else(|| "-".into()),
        ]);
    }
    let mut out = t.render("");
    if hidden > 0 {
        let _ = writeln!(
            out,
            "\n{} more known tools are not detected here and have nothing of devint's installed (`devint status --all` lists them).",
            hidden
        );
    }
    out
}

/// Why `level` is out of this host's reach, judged from the tool's declared capabilities;
/// `None` when nothing on this host rules it out.
fn out_of_reach(level: Level, tool: Option<&ToolSummary>, status: &StatusView) -> Option<String> {
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
                "the tool offers no route for model traffic (gateway URL, HTTP proxy or model path interception)"
                    .to_owned()
            })
        }
        Level::HostEnforced => match support(CapabilityName::HostEnforcement) {
            Some((Support::Supported, _)) => None,
            Some((support, reason)) => Some(format!(
                "host enforcement is {}{}",
                words::support(support),
                reason.map(|r| format!(": {r}")).unwrap_or_default()
            )),
            None => Some("host enforcement is not declared".into()),
        },
        _ => None,
    }
}

/// One tool's status: the headline, the ladder with every rung, evidence, drift, policy.
pub fn status(p: &Page, st: &StatusView, tool: Option<&ToolSummary>) -> String {
    let s = &p.s;
    let mut out = String::new();
    let name = match tool {
        Some(t) => match &t.detected_version {
            Some(v) => format!("{} ({} {v})", st.tool_id, t.display_name),
            None => format!("{} ({})", st.tool_id, t.display_name),
        },
        None => st.tool_id.to_string(),
    };
    let headline = match st.state {
        StatusState::Ladder => s.good(&protection(st)),
        StatusState::Degraded => s.warn(&protection(st)),
        StatusState::Drifted | StatusState::Incompatible => s.bad(&protection(st)),
    };
    let _ = writeln!(out, "{}: {headline}", s.bold(&name));
    match &st.state_reason {
        Some(r) => {
            let _ = writeln!(out, "  why: {r}");
        }
        None => {
            let _ = writeln!(out, "  {}", words::level_meaning(st.achieved_level));
        }
    }
    if let Some(r) = &st.state_remediation {
        let _ = writeln!(out, "  to fix: {r}");
    }
    if let Some(cmd) = next_step(st) {
        let _ = writeln!(out, "  next step: `{cmd}`");
    }
    let _ = writeln!(
        out,
        "  devint: {} · adapter: {} · version: {} · observed {} ({})",
        words::phase(st.phase),
        words::ceiling(st.adapter_ceiling),
        words::compatibility(st.compatibility),
        words::time(st.observed_at_unix_secs.get()),
        words::relative(st.observed_at_unix_secs.get())
    );

    out.push('\n');
    let mut t = p.table(&["", "LADDER", "NOTE"]);
    for level in Level::ALL.iter().rev().copied() {
        let held = level <= st.achieved_level;
        let mut notes = Vec::new();
        if level == st.achieved_level {
            notes.push(match words::condition(st.state) {
                None => "here now".to_owned(),
                Some(c) => format!("last held ({c} overrides)"),
            });
        }
        if st.planned_level == Some(level) {
            notes.push("planned".into());
        }
        if let Some(next) = st.next_level.as_ref().filter(|n| n.level == level) {
            notes.push(match &next.blocked_because {
                Some(b) => format!("next; blocked: {b}"),
                None => "next".into(),
            });
        }
        if !held {
            if let Some(why) = out_of_reach(level, tool, st) {
                notes.push(format!("out of reach here: {why}"));
            }
        }
        t.row([
            if held { "✓" } else { "·" }.to_owned(),
            words::level(level).to_owned(),
            notes.join("; "),
        ]);
    }
    out.push_str(&t.render("  "));
    out.push('\n');
    out.push_str(&evidence(p, &st.evidence));
    if !st.drift_mismatched.is_empty() {
        let names: Vec<&str> = st.drift_mismatched.iter().map(|d| d.as_str()).collect();
        let _ = writeln!(
            out,
            "\n  {} {}",
            s.bad("changed since devint installed them:"),
            names.join(", ")
        );
        let _ = writeln!(out, "  `devint repair {}` restores them", st.tool_id);
    }
    if let Some(pv) = &st.policy {
        out.push('\n');
        out.push_str(&policy(pv));
    }
    out.push_str(&unrecognized(p, [("", st.unrecognized.as_slice())]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Style;
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
            unrecognized: Vec::new(),
        }
    }

    fn page() -> Page {
        Page {
            s: Style { colour: false },
            width: None,
        }
    }

    #[test]
    fn the_ladder_shows_every_rung_and_why_one_is_out_of_reach() {
        let text = status(&page(), &view(), Some(&summary(Support::Unsupported)));
        for level in Level::ALL {
            assert!(text.contains(words::level(*level)), "{level}: {text}");
        }
        assert!(text.contains("last held (drifted overrides)"), "{text}");
        assert!(
            text.contains("next; blocked: no gateway probe is configured"),
            "{text}"
        );
        assert!(
            text.contains("out of reach here: host enforcement is not supported"),
            "{text}"
        );
        assert!(
            text.contains("next step: `devint repair claude-code`"),
            "{text}"
        );
    }

    #[test]
    fn a_status_with_fields_another_implementation_filled_is_shown_and_names_them() {
        let version = devint::version::MAX_SUPPORTED;
        let mut wire = StatusView {
            evidence: vec![devint::verbs::EvidenceView {
                mechanism: devint::verbs::MechanismName::parse("hooks").unwrap(),
                evidence: devint::verbs::Evidence::ReadBack(
                    devint::verbs::ReadBackOutcome::Matched,
                ),
                observed_at_unix_secs: devint::time::UnixSecs::EPOCH,
                detail: None,
            }],
            ..view()
        }
        .to_wire(version);
        wire.evidence.push(wire.evidence[0].clone());
        wire.evidence[1].kind = "absent".into();
        wire.evidence[1].outcome = "no host enforcement layer on this platform".into();
        wire.planned_level = "fully_protected".into();
        let st = StatusView::from_wire(&wire, version).expect("the status stays readable");
        let text = status(&page(), &st, None);
        assert!(text.contains("last held (drifted overrides)"), "{text}");
        assert!(
            text.contains("could not read 2 fields of the runtime's answer: planned_level, evidence[1].outcome"),
            "{text}"
        );
        assert!(!text.contains("no host enforcement layer"), "{text}");
        assert!(!text.contains("fully_protected"), "{text}");
        // A status read whole says nothing of the kind.
        assert!(!status(&page(), &view(), None).contains("could not read"));
    }

    #[test]
    fn a_supported_rung_is_not_called_out_of_reach() {
        let text = status(&page(), &view(), Some(&summary(Support::Supported)));
        assert!(!text.contains("out of reach"), "{text}");
    }

    #[test]
    fn the_next_step_follows_the_runtimes_state() {
        let mut st = view();
        assert_eq!(next_step(&st).as_deref(), Some("devint repair claude-code"));
        st.state = StatusState::Ladder;
        st.achieved_level = Level::PartiallyIntegrated;
        assert_eq!(next_step(&st).as_deref(), Some("devint verify claude-code"));
        st.achieved_level = Level::DetectedNotIntegrated;
        assert_eq!(
            next_step(&st).as_deref(),
            Some("devint plan claude-code --scope user")
        );
        st.achieved_level = Level::Integrated;
        assert_eq!(next_step(&st), None);
    }
}
