//! `ApplyView`, `StepOutcomeView`, `ApplyOutcomeView`: what an apply did.

use super::{
    id_from_wire, opt_id_from_wire, opt_text_from_wire, opt_text_to_wire, views_from_wire, Digest,
    PlanId, ReceiptId, StepId, ViewError,
};
use crate::time::UnixSecs;
use crate::verbs::{Level, Sentence, StepOutcome};
use crate::version::{ApiVersion, APPLY_OUTCOME_SINCE};
use crate::wire::pb;

/// The result of executing a plan.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ApplyView {
    /// The plan executed.
    pub plan_id: PlanId,
    /// The receipt recorded.
    pub receipt_id: ReceiptId,
    /// When it was applied (unix seconds).
    pub applied_at_unix_secs: UnixSecs,
    /// Each step's outcome.
    pub steps: Vec<StepOutcomeView>,
    /// The level the plan aimed for.
    pub planned_level: Level,
    /// The level reached.
    pub achieved_level: Level,
    /// The overall mutation (on the wire only at DI-API ≥ [`APPLY_OUTCOME_SINCE`]).
    pub outcome: Option<ApplyOutcomeView>,
}

/// One step's outcome.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StepOutcomeView {
    /// The step.
    pub step_id: StepId,
    /// Applied, skipped or failed.
    pub outcome: StepOutcome,
    /// The fingerprint (SHA-256) of what the step left in place, if anything.
    pub fingerprint: Option<Digest>,
}

/// What the apply changed overall (v5+).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ApplyOutcomeView {
    /// The mutation.
    pub mutation: ApplyMutation,
    /// A detail sentence.
    pub detail: Option<Sentence>,
}

/// `ApplyMutation` (wire enum): whether anything changed. Serialised as its
/// [`token`](ApplyMutation::token) (`unknown` for a number this build does not know).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ApplyMutation {
    /// The target changed.
    Changed,
    /// Nothing needed changing.
    Unchanged,
    /// The apply failed (and was rolled back).
    Failed,
    /// The plan could not be applied on this host.
    Unsupported,
    /// A wire number this build does not know (proto3 enums are open: a newer or another
    /// implementation may send one). Kept as received and written back unchanged.
    Unknown(i32),
}

impl serde::Serialize for ApplyMutation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.token())
    }
}

impl ApplyMutation {
    /// The snake_case name shown to people and in JSON (`changed`, `unchanged`, …).
    pub const fn token(self) -> &'static str {
        match self {
            ApplyMutation::Changed => "changed",
            ApplyMutation::Unchanged => "unchanged",
            ApplyMutation::Failed => "failed",
            ApplyMutation::Unsupported => "unsupported",
            ApplyMutation::Unknown(_) => "unknown",
        }
    }

    /// The wire number (an [`ApplyMutation::Unknown`] keeps the number it was read with).
    pub const fn to_wire_number(self) -> i32 {
        match self {
            ApplyMutation::Unknown(n) => n,
            known => known.to_wire() as i32,
        }
    }

    /// To the wire enum.
    pub const fn to_wire(self) -> pb::ApplyMutation {
        match self {
            ApplyMutation::Changed => pb::ApplyMutation::Changed,
            ApplyMutation::Unchanged => pb::ApplyMutation::Unchanged,
            ApplyMutation::Failed => pb::ApplyMutation::Failed,
            ApplyMutation::Unsupported => pb::ApplyMutation::Unsupported,
            // Not a member of this build's enum; `to_wire_number` keeps the number.
            ApplyMutation::Unknown(_) => pb::ApplyMutation::Unspecified,
        }
    }

    /// From the wire number; `UNSPECIFIED` (the field left unset) is refused, a number
    /// outside this build's enum is [`ApplyMutation::Unknown`].
    pub fn from_wire(value: i32) -> Result<ApplyMutation, ViewError> {
        match pb::ApplyMutation::try_from(value) {
            Ok(pb::ApplyMutation::Changed) => Ok(ApplyMutation::Changed),
            Ok(pb::ApplyMutation::Unchanged) => Ok(ApplyMutation::Unchanged),
            Ok(pb::ApplyMutation::Failed) => Ok(ApplyMutation::Failed),
            Ok(pb::ApplyMutation::Unsupported) => Ok(ApplyMutation::Unsupported),
            Ok(pb::ApplyMutation::Unspecified) => Err(ViewError::UnknownEnumValue {
                field: "apply.outcome.mutation",
                value,
            }),
            Err(_) => Ok(ApplyMutation::Unknown(value)),
        }
    }
}

impl ApplyView {
    /// To the wire; `outcome` only at DI-API ≥ [`APPLY_OUTCOME_SINCE`].
    pub fn to_wire(&self, version: ApiVersion) -> pb::ApplyView {
        pb::ApplyView {
            plan_id: self.plan_id.as_str().to_owned(),
            receipt_id: self.receipt_id.as_str().to_owned(),
            applied_at_unix_secs: self.applied_at_unix_secs.get(),
            steps: self.steps.iter().map(|s| s.to_wire(version)).collect(),
            planned_level: self.planned_level.token().to_owned(),
            achieved_level: self.achieved_level.token().to_owned(),
            // spec[S5-FIELD-GATING] §5: a field added at version N is sent only on connections
            // negotiated at N or above.
            outcome: if version.has(APPLY_OUTCOME_SINCE) {
                self.outcome.as_ref().map(|o| o.to_wire(version))
            } else {
                None
            },
        }
    }

    /// From the wire; an `outcome` below [`APPLY_OUTCOME_SINCE`] is ignored.
    pub fn from_wire(w: &pb::ApplyView, version: ApiVersion) -> Result<ApplyView, ViewError> {
        Ok(ApplyView {
            plan_id: id_from_wire(&w.plan_id, "apply.plan_id", PlanId::parse)?,
            receipt_id: id_from_wire(&w.receipt_id, "apply.receipt_id", ReceiptId::parse)?,
            applied_at_unix_secs: UnixSecs::new(w.applied_at_unix_secs),
            steps: views_from_wire(&w.steps, version, StepOutcomeView::from_wire)?,
            planned_level: Level::parse_as(&w.planned_level, "apply.planned_level")?,
            achieved_level: Level::parse_as(&w.achieved_level, "apply.achieved_level")?,
            outcome: match &w.outcome {
                Some(o) if version.has(APPLY_OUTCOME_SINCE) => {
                    Some(ApplyOutcomeView::from_wire(o, version)?)
                }
                _ => None,
            },
        })
    }
}

impl StepOutcomeView {
    /// To the wire.
    pub fn to_wire(&self, _version: ApiVersion) -> pb::StepOutcomeView {
        pb::StepOutcomeView {
            step_id: self.step_id.as_str().to_owned(),
            outcome: self.outcome.token().to_owned(),
            fingerprint: self
                .fingerprint
                .as_ref()
                .map(|f| f.as_str().to_owned())
                .unwrap_or_default(),
        }
    }

    /// From the wire.
    pub fn from_wire(
        w: &pb::StepOutcomeView,
        _version: ApiVersion,
    ) -> Result<StepOutcomeView, ViewError> {
        Ok(StepOutcomeView {
            step_id: id_from_wire(&w.step_id, "step_outcome.step_id", StepId::parse)?,
            outcome: StepOutcome::parse_as(&w.outcome, "step_outcome.outcome")?,
            fingerprint: opt_id_from_wire(
                &w.fingerprint,
                "step_outcome.fingerprint",
                Digest::parse,
            )?,
        })
    }
}

impl ApplyOutcomeView {
    /// To the wire.
    pub fn to_wire(&self, _version: ApiVersion) -> pb::ApplyOutcomeView {
        pb::ApplyOutcomeView {
            mutation: self.mutation.to_wire_number(),
            detail: opt_text_to_wire(&self.detail),
        }
    }

    /// From the wire.
    pub fn from_wire(
        w: &pb::ApplyOutcomeView,
        _version: ApiVersion,
    ) -> Result<ApplyOutcomeView, ViewError> {
        Ok(ApplyOutcomeView {
            mutation: ApplyMutation::from_wire(w.mutation)?,
            detail: opt_text_from_wire(&w.detail),
        })
    }
}
