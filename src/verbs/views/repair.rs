//! `RepairView`: what `repair` restored, what it could not, and the state after.

use super::{
    id_from_wire, ids_from_wire, strs_to_wire, views_from_wire, ManagedRef, StatusView, ToolId,
    UnsupportedMechanismView, ViewError,
};
use crate::version::ApiVersion;
use crate::wire::pb;

/// The result of a repair.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RepairView {
    /// The tool.
    pub tool_id: ToolId,
    /// The keys and artifacts restored.
    pub repaired: Vec<ManagedRef>,
    /// What could not be repaired, and why.
    pub unrepairable: Vec<UnsupportedMechanismView>,
    /// The state after the repair (its `policy` is gated like any status).
    pub status: StatusView,
}

impl RepairView {
    /// To the wire.
    pub fn to_wire(&self, version: ApiVersion) -> pb::RepairView {
        pb::RepairView {
            tool_id: self.tool_id.as_str().to_owned(),
            repaired: strs_to_wire(&self.repaired),
            unrepairable: self
                .unrepairable
                .iter()
                .map(|u| u.to_wire(version))
                .collect(),
            status: Some(self.status.to_wire(version)),
        }
    }

    /// From the wire; the embedded status is required.
    pub fn from_wire(w: &pb::RepairView, version: ApiVersion) -> Result<RepairView, ViewError> {
        Ok(RepairView {
            tool_id: id_from_wire(&w.tool_id, "repair.tool_id", ToolId::parse)?,
            repaired: ids_from_wire(&w.repaired, "repair.repaired", ManagedRef::parse)?,
            unrepairable: views_from_wire(
                &w.unrepairable,
                version,
                UnsupportedMechanismView::from_wire,
            )?,
            status: match &w.status {
                Some(s) => StatusView::from_wire(s, version)?,
                None => {
                    return Err(ViewError::MissingField {
                        field: "repair.status",
                    })
                }
            },
        })
    }
}
