//! How strongly a policy's controls hold in one tool at one scope, and what that does to
//! the level the integration can reach.
//!
//! Owns [`Holding`]: read off an adapter rendering, it says which deny rules the tool holds
//! as enforced, which only as advisory (matched on what one call names), which it cannot
//! express at all, and which enforcing mechanisms the policy asks for that the tool cannot
//! deliver. Plans put its sentences in their warnings and lower their adapter ceiling with
//! it; `status` puts it in the policy view. A sentence names a rule by its position and
//! kind, never by its value: policy values do not cross the wire. Must never read a file or
//! decide anything beyond what the rendering says.

use crate::adapters::Strength;
use crate::adapters::{MechanismOutcome, RenderedIntegration, RuleKind, RuleOutcome, RuleReport};
use devint::verbs::{AdapterCeiling, CapabilityName};

/// How a policy's controls hold in one tool at one scope.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holding {
    /// One report per deny rule of the policy.
    rules: Vec<RuleReport>,
    /// Enforcing capabilities the policy asks for that the tool cannot deliver here.
    undelivered: Vec<CapabilityName>,
}

/// Capabilities that enforce a policy (rather than route traffic for observation).
const ENFORCING: [CapabilityName; 3] = [
    CapabilityName::Hooks,
    CapabilityName::McpGovernance,
    CapabilityName::ToolActionApproval,
];

impl Holding {
    /// What `rendered` holds of the policy it was rendered from.
    pub fn of(rendered: &RenderedIntegration) -> Holding {
        Holding {
            rules: rendered.rules.clone(),
            undelivered: rendered
                .reports
                .iter()
                .filter(|r| ENFORCING.contains(&r.capability))
                .filter(|r| matches!(r.outcome, MechanismOutcome::Unsupported { .. }))
                .map(|r| r.capability)
                .collect(),
        }
    }

    fn with(&self, outcome: RuleOutcome) -> impl Iterator<Item = &RuleReport> {
        self.rules.iter().filter(move |r| r.outcome == outcome)
    }

    /// Whether part of what the policy enforces cannot be enforced in this tool here.
    pub fn falls_short(&self) -> bool {
        !self.undelivered.is_empty() || self.with(RuleOutcome::NotEnforceable).next().is_some()
    }

    /// The ceiling the integration can reach: the tool's, lowered to observation when the
    /// policy asks for enforcement the tool cannot deliver (an integration that leaves part
    /// of its policy unenforced does not enforce it).
    pub fn ceiling(&self, listed: AdapterCeiling) -> AdapterCeiling {
        if self.falls_short() {
            listed.min(AdapterCeiling::L1Observe)
        } else {
            listed
        }
    }

    /// The plan's sentences, one per kind of rule held only as advisory or not at all, and
    /// one for a lowered ceiling (none when every rule is enforced).
    pub fn warnings(&self, tool: &str, listed: AdapterCeiling) -> Vec<String> {
        let mut warnings = Vec::new();
        let advisory: Vec<&RuleReport> = self
            .with(RuleOutcome::Written(Strength::Advisory))
            .collect();
        for (positions, what, kind) in groups(&advisory) {
            warnings.push(format!(
                "{tool} holds {positions} of the policy's deny list ({what}) only as advisory: {}",
                advisory_because(kind)
            ));
        }
        let missing: Vec<&RuleReport> = self.with(RuleOutcome::NotEnforceable).collect();
        for (positions, what, _) in groups(&missing) {
            warnings.push(format!(
                "{tool} cannot enforce {positions} of the policy's deny list ({what}): its settings have no form for it here, so nothing is written for it"
            ));
        }
        let lowered = self.ceiling(listed);
        if lowered < listed {
            warnings.push(format!(
                "the plan's adapter ceiling is {} (the tool's is {}): part of what this policy enforces cannot be enforced in {tool}",
                lowered.token(),
                listed.token()
            ));
        }
        warnings
    }

    /// One sentence for the policy view when some control is not enforced: how many of
    /// the deny rules the tool enforces, holds as advisory, or cannot express.
    pub fn summary(&self, tool: &str) -> Option<String> {
        let enforced = self.with(RuleOutcome::Written(Strength::Enforced)).count();
        let advisory = self.with(RuleOutcome::Written(Strength::Advisory)).count();
        let missing: Vec<usize> = self
            .with(RuleOutcome::NotEnforceable)
            .map(|r| r.position)
            .collect();
        if advisory == 0 && missing.is_empty() && self.undelivered.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        if !self.rules.is_empty() {
            let mut rules = format!(
                "of its {} deny rules {tool} enforces {enforced}, holds {advisory} as advisory and cannot express {}",
                self.rules.len(),
                missing.len()
            );
            if !missing.is_empty() {
                rules.push_str(&format!(" ({})", positions_text(&missing)));
            }
            parts.push(rules);
        }
        if !self.undelivered.is_empty() {
            let names: Vec<&str> = self.undelivered.iter().map(|c| c.token()).collect();
            parts.push(format!("{tool} has no {} here", names.join(" or ")));
        }
        Some(parts.join("; "))
    }
}

/// Why a tool's rules of `kind` are only advisory.
fn advisory_because(kind: RuleKind) -> &'static str {
    match kind {
        RuleKind::Shell => {
            "it matches them on the command line, so a script or an indirect command passes them"
        }
        RuleKind::FileRead | RuleKind::FileWrite => {
            "it matches them on the paths its file tools name, so a shell command can still reach those files"
        }
        RuleKind::WebFetch => {
            "it matches them on its own fetch tool, so a shell command such as curl can still fetch"
        }
        RuleKind::WebSearch | RuleKind::Mcp => "it matches them on the tool's name only",
    }
}

/// The rules grouped by kind and narrowing, in kind order: ("rules 1 and 3", "shell
/// commands narrowed to a command prefix", kind).
fn groups(rules: &[&RuleReport]) -> Vec<(String, String, RuleKind)> {
    let mut out = Vec::new();
    for kind in RuleKind::ALL {
        for narrowed in [false, true] {
            let positions: Vec<usize> = rules
                .iter()
                .filter(|r| r.rule.kind() == kind && r.rule.is_narrowed() == narrowed)
                .map(|r| r.position)
                .collect();
            if positions.is_empty() {
                continue;
            }
            let what = if narrowed {
                format!("{} narrowed to {}", kind.description(), kind.narrowing())
            } else {
                format!("every one of the {}", kind.description())
            };
            out.push((positions_text(&positions), what, kind));
        }
    }
    out
}

/// "rule 2", "rules 1 and 3", "rules 1, 3 and 4".
fn positions_text(positions: &[usize]) -> String {
    let numbers: Vec<String> = positions.iter().map(usize::to_string).collect();
    match numbers.as_slice() {
        [one] => format!("rule {one}"),
        [rest @ .., last] => format!("rules {} and {last}", rest.join(", ")),
        [] => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::DenyRule;

    fn report(position: usize, rule: &str, outcome: RuleOutcome) -> RuleReport {
        RuleReport {
            rule: DenyRule::parse(rule).unwrap(),
            position,
            outcome,
        }
    }

    fn holding(rules: Vec<RuleReport>) -> Holding {
        Holding {
            rules,
            undelivered: Vec::new(),
        }
    }

    #[test]
    fn a_rule_the_tool_cannot_express_lowers_the_ceiling_and_is_named_by_position_and_kind() {
        let h = holding(vec![
            report(1, "shell:curl", RuleOutcome::Written(Strength::Advisory)),
            report(2, "web_fetch:example.com", RuleOutcome::NotEnforceable),
            report(3, "mcp:github", RuleOutcome::Written(Strength::Enforced)),
        ]);
        assert_eq!(
            h.ceiling(AdapterCeiling::L2Enforce),
            AdapterCeiling::L1Observe
        );
        let warnings = h.warnings("OpenCode", AdapterCeiling::L2Enforce).join("\n");
        assert!(warnings.contains("OpenCode holds rule 1 of the policy's deny list (shell commands narrowed to a command prefix) only as advisory: it matches them on the command line"), "{warnings}");
        assert!(warnings.contains("OpenCode cannot enforce rule 2 of the policy's deny list (web fetches narrowed to a domain)"), "{warnings}");
        assert!(
            warnings.contains("adapter ceiling is l1_observe (the tool's is l2_enforce)"),
            "{warnings}"
        );
        assert!(
            !warnings.contains("curl") && !warnings.contains("example.com"),
            "values never cross: {warnings}"
        );
        let summary = h.summary("OpenCode").unwrap();
        assert!(
            summary.contains("enforces 1, holds 1 as advisory and cannot express 1 (rule 2)"),
            "{summary}"
        );
        for w in h
            .warnings("OpenCode", AdapterCeiling::L2Enforce)
            .iter()
            .chain([&summary])
        {
            assert!(
                w.chars().count() <= devint::verbs::Sentence::MAX_CHARS,
                "fits one sentence: {w}"
            );
        }
    }

    #[test]
    fn enforced_rules_keep_the_ceiling_and_say_nothing() {
        let h = holding(vec![report(
            1,
            "mcp:github",
            RuleOutcome::Written(Strength::Enforced),
        )]);
        assert_eq!(
            h.ceiling(AdapterCeiling::L3Native),
            AdapterCeiling::L3Native
        );
        assert!(h
            .warnings("Claude Code", AdapterCeiling::L3Native)
            .is_empty());
        assert_eq!(h.summary("Claude Code"), None);
    }

    #[test]
    fn an_undelivered_enforcing_mechanism_lowers_the_ceiling_but_never_raises_it() {
        let h = Holding {
            rules: Vec::new(),
            undelivered: vec![CapabilityName::McpGovernance],
        };
        assert_eq!(
            h.ceiling(AdapterCeiling::L2Enforce),
            AdapterCeiling::L1Observe
        );
        assert_eq!(
            h.ceiling(AdapterCeiling::L0Discover),
            AdapterCeiling::L0Discover
        );
        assert!(h
            .summary("Codex CLI")
            .unwrap()
            .contains("no mcp_governance"));
    }

    #[test]
    fn positions_read_as_people_write_them() {
        assert_eq!(positions_text(&[2]), "rule 2");
        assert_eq!(positions_text(&[1, 3]), "rules 1 and 3");
        assert_eq!(positions_text(&[1, 3, 4]), "rules 1, 3 and 4");
    }
}
