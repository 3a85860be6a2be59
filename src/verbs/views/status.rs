//! `StatusView`, `EvidenceView` (with [`Evidence`]), `NextLevelView`, `PolicyView`: the
//! evidence-derived protection state of one tool.

use super::tolerant::{Tolerant, Unrecognized};
use super::{
    id_from_wire, opt_text_from_wire, opt_text_to_wire, strs_to_wire, AbsentReason, ManagedRef,
    MechanismName, ToolId, ViewError,
};
use crate::time::UnixSecs;
use crate::verbs::{
    AdapterCeiling, Compatibility, EvidenceKind, ExercisedOutcome, HostAttestedOutcome, Level,
    Phase, PolicyState, ReadBackOutcome, Sentence, StatusState,
};
use crate::version::{ApiVersion, POLICY_SINCE};
use crate::wire::pb;

/// The protection state of one tool, derived from evidence.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StatusView {
    /// The tool.
    pub tool_id: ToolId,
    /// Where the lifecycle stands.
    pub phase: Phase,
    /// Ladder, or the condition overriding it.
    pub state: StatusState,
    /// The rung held (the last one, when a condition overrides).
    pub achieved_level: Level,
    /// The rung a plan aims for, if one is planned or applied.
    pub planned_level: Option<Level>,
    /// The adapter's ceiling.
    pub adapter_ceiling: AdapterCeiling,
    /// Whether the tool's version is compatible.
    pub compatibility: Compatibility,
    /// The evidence behind the state.
    pub evidence: Vec<EvidenceView>,
    /// The next rung and what blocks it (none at the top).
    pub next_level: Option<NextLevelView>,
    /// When the state was derived (unix seconds).
    pub observed_at_unix_secs: UnixSecs,
    /// The keys and artifacts of ours that drifted.
    pub drift_mismatched: Vec<ManagedRef>,
    /// Why the state is what it is.
    pub state_reason: Option<Sentence>,
    /// What to do about it.
    pub state_remediation: Option<Sentence>,
    /// The policy state (on the wire only at DI-API ≥ [`POLICY_SINCE`]).
    pub policy: Option<PolicyView>,
    /// The fields the client could not read ([`StatusView::from_wire`]): each unreadable
    /// evidence or drift entry is left out of its list and each unreadable optional field is
    /// `None`, and all of them are named here. Never on the wire; a backend leaves it empty.
    /// Serialised (`--output json`, the sidecar) as `[{ field, refusal }]`, always present.
    pub unrecognized: Vec<Unrecognized>,
}

/// One piece of evidence.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EvidenceView {
    /// The mechanism it is about.
    pub mechanism: MechanismName,
    /// Its kind and the outcome in that kind's vocabulary.
    pub evidence: Evidence,
    /// When it was observed (unix seconds).
    pub observed_at_unix_secs: UnixSecs,
    /// A detail sentence.
    pub detail: Option<Sentence>,
}

/// Evidence kind and outcome together, so an outcome can only come from its kind's
/// vocabulary (spec §4 `EvidenceView.kind → outcome`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(tag = "kind", content = "outcome", rename_all = "snake_case")]
pub enum Evidence {
    /// `read_back` → `matched` / `mismatched`.
    ReadBack(ReadBackOutcome),
    /// `exercised` → `blocked` / `redacted` / `observed_only` / `leaked` / `inconclusive`.
    Exercised(ExercisedOutcome),
    /// `host_attested` → `healthy` / `unhealthy`.
    HostAttested(HostAttestedOutcome),
    /// `absent` → a short reason token.
    Absent(AbsentReason),
}

impl Evidence {
    /// The kind.
    pub fn kind(&self) -> EvidenceKind {
        match self {
            Evidence::ReadBack(_) => EvidenceKind::ReadBack,
            Evidence::Exercised(_) => EvidenceKind::Exercised,
            Evidence::HostAttested(_) => EvidenceKind::HostAttested,
            Evidence::Absent(_) => EvidenceKind::Absent,
        }
    }

    /// The outcome token.
    pub fn outcome_token(&self) -> &str {
        match self {
            Evidence::ReadBack(o) => o.token(),
            Evidence::Exercised(o) => o.token(),
            Evidence::HostAttested(o) => o.token(),
            Evidence::Absent(r) => r.as_str(),
        }
    }

    /// Parse a kind and an outcome from its kind's vocabulary.
    pub fn parse(kind: &str, outcome: &str) -> Result<Evidence, ViewError> {
        const F: &str = "evidence.outcome";
        Ok(match EvidenceKind::parse_as(kind, "evidence.kind")? {
            EvidenceKind::ReadBack => Evidence::ReadBack(ReadBackOutcome::parse_as(outcome, F)?),
            EvidenceKind::Exercised => Evidence::Exercised(ExercisedOutcome::parse_as(outcome, F)?),
            EvidenceKind::HostAttested => {
                Evidence::HostAttested(HostAttestedOutcome::parse_as(outcome, F)?)
            }
            EvidenceKind::Absent => {
                Evidence::Absent(id_from_wire(outcome, F, AbsentReason::parse)?)
            }
        })
    }
}

/// The next rung of the ladder and what blocks it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NextLevelView {
    /// The next rung.
    pub level: Level,
    /// What blocks it.
    pub blocked_because: Option<Sentence>,
}

/// The state of the policy governing the tool (v3+): a state and where it came from, never
/// the policy document.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PolicyView {
    /// The policy state.
    pub state: PolicyState,
    /// Where the policy comes from.
    pub source: Option<Sentence>,
    /// A detail sentence.
    pub detail: Option<Sentence>,
}

impl StatusView {
    /// To the wire; `policy` only at DI-API ≥ [`POLICY_SINCE`].
    pub fn to_wire(&self, version: ApiVersion) -> pb::StatusView {
        pb::StatusView {
            tool_id: self.tool_id.as_str().to_owned(),
            phase: self.phase.token().to_owned(),
            state: self.state.token().to_owned(),
            achieved_level: self.achieved_level.token().to_owned(),
            planned_level: self
                .planned_level
                .map(|l| l.token().to_owned())
                .unwrap_or_default(),
            adapter_ceiling: self.adapter_ceiling.token().to_owned(),
            compatibility: self.compatibility.token().to_owned(),
            evidence: self.evidence.iter().map(|e| e.to_wire(version)).collect(),
            next_level: self.next_level.as_ref().map(|n| n.to_wire(version)),
            observed_at_unix_secs: self.observed_at_unix_secs.get(),
            drift_mismatched: strs_to_wire(&self.drift_mismatched),
            state_reason: opt_text_to_wire(&self.state_reason),
            state_remediation: opt_text_to_wire(&self.state_remediation),
            // spec[S5-FIELD-GATING] §5: v3 added `StatusView.policy`; we gate it too.
            policy: policy_to_wire(&self.policy, version),
        }
    }

    /// From the wire; a `policy` below [`POLICY_SINCE`] is ignored.
    ///
    /// Tolerant (see [`Unrecognized`]): an evidence entry, a drift entry, the planned
    /// level, the next level or the policy another implementation filled outside its
    /// vocabulary or shape is left out and named in [`StatusView::unrecognized`]. The
    /// fields that say what the status is about (tool, phase, state, achieved level,
    /// ceiling, compatibility) are required: one of them unreadable fails the view.
    pub fn from_wire(w: &pb::StatusView, version: ApiVersion) -> Result<StatusView, ViewError> {
        let mut t = Tolerant::default();
        let planned_level = t.optional(
            "planned_level",
            if w.planned_level.is_empty() {
                Ok(None)
            } else {
                Level::parse_as(&w.planned_level, "status.planned_level")
                    .map(Some)
                    .map_err(ViewError::from)
            },
        );
        let evidence = t.list(
            "evidence",
            &w.evidence,
            |e| EvidenceView::from_wire(e, version),
            true,
        );
        let next_level = t.optional(
            "next_level",
            w.next_level
                .as_ref()
                .map(|n| NextLevelView::from_wire(n, version))
                .transpose(),
        );
        let drift_mismatched = t.list(
            "drift_mismatched",
            &w.drift_mismatched,
            |d| id_from_wire(d, "status.drift_mismatched", ManagedRef::parse),
            false,
        );
        let policy = t.optional("policy", policy_from_wire(&w.policy, version));
        Ok(StatusView {
            tool_id: id_from_wire(&w.tool_id, "status.tool_id", ToolId::parse)?,
            phase: Phase::parse_as(&w.phase, "status.phase")?,
            state: StatusState::parse_as(&w.state, "status.state")?,
            achieved_level: Level::parse_as(&w.achieved_level, "status.achieved_level")?,
            planned_level,
            adapter_ceiling: AdapterCeiling::parse_as(
                &w.adapter_ceiling,
                "status.adapter_ceiling",
            )?,
            compatibility: Compatibility::parse_as(&w.compatibility, "status.compatibility")?,
            evidence,
            next_level,
            observed_at_unix_secs: UnixSecs::new(w.observed_at_unix_secs),
            drift_mismatched,
            state_reason: opt_text_from_wire(&w.state_reason),
            state_remediation: opt_text_from_wire(&w.state_remediation),
            policy,
            unrecognized: t.finish(),
        })
    }
}

/// `policy` to the wire, gated at [`POLICY_SINCE`].
pub(super) fn policy_to_wire(
    policy: &Option<PolicyView>,
    version: ApiVersion,
) -> Option<pb::PolicyView> {
    if version.has(POLICY_SINCE) {
        policy.as_ref().map(|p| p.to_wire(version))
    } else {
        None
    }
}

/// `policy` from the wire, ignored below [`POLICY_SINCE`].
pub(super) fn policy_from_wire(
    policy: &Option<pb::PolicyView>,
    version: ApiVersion,
) -> Result<Option<PolicyView>, ViewError> {
    match policy {
        Some(p) if version.has(POLICY_SINCE) => PolicyView::from_wire(p, version).map(Some),
        _ => Ok(None),
    }
}

impl EvidenceView {
    /// To the wire.
    pub fn to_wire(&self, _version: ApiVersion) -> pb::EvidenceView {
        pb::EvidenceView {
            mechanism: self.mechanism.as_str().to_owned(),
            kind: self.evidence.kind().token().to_owned(),
            outcome: self.evidence.outcome_token().to_owned(),
            observed_at_unix_secs: self.observed_at_unix_secs.get(),
            detail: opt_text_to_wire(&self.detail),
        }
    }

    /// From the wire.
    pub fn from_wire(
        w: &pb::EvidenceView,
        _version: ApiVersion,
    ) -> Result<EvidenceView, ViewError> {
        Ok(EvidenceView {
            mechanism: id_from_wire(&w.mechanism, "evidence.mechanism", MechanismName::parse)?,
            evidence: Evidence::parse(&w.kind, &w.outcome)?,
            observed_at_unix_secs: UnixSecs::new(w.observed_at_unix_secs),
            detail: opt_text_from_wire(&w.detail),
        })
    }
}

impl NextLevelView {
    /// To the wire.
    pub fn to_wire(&self, _version: ApiVersion) -> pb::NextLevelView {
        pb::NextLevelView {
            level: self.level.token().to_owned(),
            blocked_because: opt_text_to_wire(&self.blocked_because),
        }
    }

    /// From the wire.
    pub fn from_wire(
        w: &pb::NextLevelView,
        _version: ApiVersion,
    ) -> Result<NextLevelView, ViewError> {
        Ok(NextLevelView {
            level: Level::parse_as(&w.level, "next_level.level")?,
            blocked_because: opt_text_from_wire(&w.blocked_because),
        })
    }
}

impl PolicyView {
    /// To the wire.
    pub fn to_wire(&self, _version: ApiVersion) -> pb::PolicyView {
        pb::PolicyView {
            state: self.state.token().to_owned(),
            source: opt_text_to_wire(&self.source),
            detail: opt_text_to_wire(&self.detail),
        }
    }

    /// From the wire.
    pub fn from_wire(w: &pb::PolicyView, _version: ApiVersion) -> Result<PolicyView, ViewError> {
        Ok(PolicyView {
            state: PolicyState::parse_as(&w.state, "policy.state")?,
            source: opt_text_from_wire(&w.source),
            detail: opt_text_from_wire(&w.detail),
        })
    }
}
