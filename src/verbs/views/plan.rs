//! `PlanView`, `StepView`, `PolicyProfileRefView`, `UnsupportedMechanismView`: a dry-run plan.

use super::{
    id_from_wire, ids_from_wire, opt_id_from_wire, opt_text_from_wire, opt_text_to_wire,
    strs_to_wire, text_from_wire, texts_from_wire, views_from_wire, ArtifactPath, Digest, KeyName,
    PlanId, PolicyProfileId, StepId, ToolId, ViewError,
};
use crate::verbs::{
    ActionKind, AdapterCeiling, CapabilityName, Level, Privilege, Profile, Requirement, Sentence,
    SettingsScope,
};
use crate::version::ApiVersion;
use crate::wire::pb;

/// A dry-run plan for one tool.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PlanView {
    /// The lifecycle schema version the plan was written for.
    pub schema_version: u32,
    /// The plan's id, to pass to apply.
    pub plan_id: PlanId,
    /// The tool.
    pub tool_id: ToolId,
    /// The profile planned for.
    pub profile: Profile,
    /// The settings scope planned for.
    pub settings_scope: SettingsScope,
    /// The policy profile referenced, if any (a reference, never the document).
    pub policy_profile: Option<PolicyProfileRefView>,
    /// The level the plan reaches if applied.
    pub planned_level: Level,
    /// The adapter's ceiling.
    pub adapter_ceiling: AdapterCeiling,
    /// The steps, in order.
    pub steps: Vec<StepView>,
    /// Mechanisms the plan cannot use, with reasons.
    pub unsupported: Vec<UnsupportedMechanismView>,
    /// Warnings for the user.
    pub warnings: Vec<Sentence>,
}

/// One step of a plan: what it touches, never what it writes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StepView {
    /// The step's id within the plan.
    pub id: StepId,
    /// What the step does.
    pub summary: Sentence,
    /// Its kind.
    pub action_kind: ActionKind,
    /// Required or optional.
    pub requirement: Requirement,
    /// User or privileged host.
    pub privilege: Privilege,
    /// The prompt shown when consent is needed.
    pub consent_prompt: Option<Sentence>,
    /// The settings scope it writes.
    pub settings_scope: SettingsScope,
    /// The names of the keys it manages (never their values).
    pub managed_keys: Vec<KeyName>,
    /// The files it manages.
    pub artifact_paths: Vec<ArtifactPath>,
    /// The digest of the content it writes, if it writes content.
    pub content_sha256: Option<Digest>,
    /// Whether removal can undo it.
    pub reversible: bool,
}

/// A reference to a policy profile: its id, name and digest, never its document.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PolicyProfileRefView {
    /// The profile's id.
    pub id: PolicyProfileId,
    /// Its human name.
    pub display_name: Sentence,
    /// The digest of its document.
    pub digest: Digest,
}

/// A capability that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UnsupportedMechanismView {
    /// The capability.
    pub capability: CapabilityName,
    /// Why not.
    pub reason: Sentence,
}

impl PlanView {
    /// To the wire.
    pub fn to_wire(&self, version: ApiVersion) -> pb::PlanView {
        pb::PlanView {
            schema_version: self.schema_version,
            plan_id: self.plan_id.as_str().to_owned(),
            tool_id: self.tool_id.as_str().to_owned(),
            profile: self.profile.token().to_owned(),
            settings_scope: self.settings_scope.token().to_owned(),
            policy_profile: self.policy_profile.as_ref().map(|p| p.to_wire(version)),
            planned_level: self.planned_level.token().to_owned(),
            adapter_ceiling: self.adapter_ceiling.token().to_owned(),
            steps: self.steps.iter().map(|s| s.to_wire(version)).collect(),
            unsupported: self
                .unsupported
                .iter()
                .map(|u| u.to_wire(version))
                .collect(),
            warnings: strs_to_wire(&self.warnings),
        }
    }

    /// From the wire.
    pub fn from_wire(w: &pb::PlanView, version: ApiVersion) -> Result<PlanView, ViewError> {
        Ok(PlanView {
            schema_version: w.schema_version,
            plan_id: id_from_wire(&w.plan_id, "plan.plan_id", PlanId::parse)?,
            tool_id: id_from_wire(&w.tool_id, "plan.tool_id", ToolId::parse)?,
            profile: Profile::parse_as(&w.profile, "plan.profile")?,
            settings_scope: SettingsScope::parse_as(&w.settings_scope, "plan.settings_scope")?,
            policy_profile: w
                .policy_profile
                .as_ref()
                .map(|p| PolicyProfileRefView::from_wire(p, version))
                .transpose()?,
            planned_level: Level::parse_as(&w.planned_level, "plan.planned_level")?,
            adapter_ceiling: AdapterCeiling::parse_as(&w.adapter_ceiling, "plan.adapter_ceiling")?,
            steps: views_from_wire(&w.steps, version, StepView::from_wire)?,
            unsupported: views_from_wire(
                &w.unsupported,
                version,
                UnsupportedMechanismView::from_wire,
            )?,
            warnings: texts_from_wire(&w.warnings),
        })
    }
}

impl StepView {
    /// To the wire.
    pub fn to_wire(&self, _version: ApiVersion) -> pb::StepView {
        pb::StepView {
            id: self.id.as_str().to_owned(),
            summary: self.summary.as_str().to_owned(),
            action_kind: self.action_kind.token().to_owned(),
            requirement: self.requirement.token().to_owned(),
            privilege: self.privilege.token().to_owned(),
            consent_prompt: opt_text_to_wire(&self.consent_prompt),
            settings_scope: self.settings_scope.token().to_owned(),
            managed_keys: strs_to_wire(&self.managed_keys),
            artifact_paths: strs_to_wire(&self.artifact_paths),
            content_sha256: self
                .content_sha256
                .as_ref()
                .map(|d| d.as_str().to_owned())
                .unwrap_or_default(),
            reversible: self.reversible,
        }
    }

    /// From the wire.
    pub fn from_wire(w: &pb::StepView, _version: ApiVersion) -> Result<StepView, ViewError> {
        Ok(StepView {
            id: id_from_wire(&w.id, "step.id", StepId::parse)?,
            summary: text_from_wire(&w.summary, "step.summary")?,
            action_kind: ActionKind::parse_as(&w.action_kind, "step.action_kind")?,
            requirement: Requirement::parse_as(&w.requirement, "step.requirement")?,
            privilege: Privilege::parse_as(&w.privilege, "step.privilege")?,
            consent_prompt: opt_text_from_wire(&w.consent_prompt),
            settings_scope: SettingsScope::parse_as(&w.settings_scope, "step.settings_scope")?,
            managed_keys: ids_from_wire(&w.managed_keys, "step.managed_keys", KeyName::parse)?,
            artifact_paths: ids_from_wire(
                &w.artifact_paths,
                "step.artifact_paths",
                ArtifactPath::parse,
            )?,
            content_sha256: opt_id_from_wire(
                &w.content_sha256,
                "step.content_sha256",
                Digest::parse,
            )?,
            reversible: w.reversible,
        })
    }
}

impl PolicyProfileRefView {
    /// To the wire.
    pub fn to_wire(&self, _version: ApiVersion) -> pb::PolicyProfileRefView {
        pb::PolicyProfileRefView {
            id: self.id.as_str().to_owned(),
            display_name: self.display_name.as_str().to_owned(),
            digest: self.digest.as_str().to_owned(),
        }
    }

    /// From the wire.
    pub fn from_wire(
        w: &pb::PolicyProfileRefView,
        _version: ApiVersion,
    ) -> Result<PolicyProfileRefView, ViewError> {
        Ok(PolicyProfileRefView {
            id: id_from_wire(&w.id, "policy_profile.id", PolicyProfileId::parse)?,
            display_name: text_from_wire(&w.display_name, "policy_profile.display_name")?,
            digest: id_from_wire(&w.digest, "policy_profile.digest", Digest::parse)?,
        })
    }
}

impl UnsupportedMechanismView {
    /// To the wire.
    pub fn to_wire(&self, _version: ApiVersion) -> pb::UnsupportedMechanismView {
        pb::UnsupportedMechanismView {
            capability: self.capability.token().to_owned(),
            reason: self.reason.as_str().to_owned(),
        }
    }

    /// From the wire.
    pub fn from_wire(
        w: &pb::UnsupportedMechanismView,
        _version: ApiVersion,
    ) -> Result<UnsupportedMechanismView, ViewError> {
        Ok(UnsupportedMechanismView {
            capability: CapabilityName::parse_as(&w.capability, "unsupported.capability")?,
            reason: text_from_wire(&w.reason, "unsupported.reason")?,
        })
    }
}
