//! `RemovalView`: a removal plan (preview) or the removal it executed.

use super::{
    id_from_wire, ids_from_wire, strs_to_wire, texts_from_wire, views_from_wire, ManagedRef,
    PlanId, StepView, ToolId, ViewError,
};
use crate::verbs::Sentence;
use crate::version::ApiVersion;
use crate::wire::pb;

/// A removal plan, or what a removal did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RemovalView {
    /// The lifecycle schema version.
    pub schema_version: u32,
    /// The removal plan's id (pass it to `remove` to execute).
    pub plan_id: PlanId,
    /// The tool.
    pub tool_id: ToolId,
    /// The removal steps.
    pub steps: Vec<StepView>,
    /// What stays behind (e.g. withheld keys whose original value we never kept).
    pub residual: Vec<ManagedRef>,
    /// Warnings for the user.
    pub warnings: Vec<Sentence>,
}

impl RemovalView {
    /// To the wire.
    pub fn to_wire(&self, version: ApiVersion) -> pb::RemovalView {
        pb::RemovalView {
            schema_version: self.schema_version,
            plan_id: self.plan_id.as_str().to_owned(),
            tool_id: self.tool_id.as_str().to_owned(),
            steps: self.steps.iter().map(|s| s.to_wire(version)).collect(),
            residual: strs_to_wire(&self.residual),
            warnings: strs_to_wire(&self.warnings),
        }
    }

    /// From the wire.
    pub fn from_wire(w: &pb::RemovalView, version: ApiVersion) -> Result<RemovalView, ViewError> {
        Ok(RemovalView {
            schema_version: w.schema_version,
            plan_id: id_from_wire(&w.plan_id, "removal.plan_id", PlanId::parse)?,
            tool_id: id_from_wire(&w.tool_id, "removal.tool_id", ToolId::parse)?,
            steps: views_from_wire(&w.steps, version, StepView::from_wire)?,
            residual: ids_from_wire(&w.residual, "removal.residual", ManagedRef::parse)?,
            warnings: texts_from_wire(&w.warnings),
        })
    }
}
