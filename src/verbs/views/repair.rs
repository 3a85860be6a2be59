//! `RepairView`: what `repair` restored, what it could not, and the state after.

use super::tolerant::{Tolerant, Unrecognized};
use super::{
    id_from_wire, strs_to_wire, ManagedRef, StatusView, ToolId, UnsupportedMechanismView, ViewError,
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
    /// The state after the repair (its `policy` is gated like any status; its own
    /// unreadable fields are in its [`StatusView::unrecognized`]).
    pub status: StatusView,
    /// The repair's own fields the client could not read: an unreadable `repaired` or
    /// `unrepairable` entry is left out of its list and named here. Never on the wire.
    pub unrecognized: Vec<Unrecognized>,
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

    /// From the wire; the embedded status is required. Tolerant like
    /// [`StatusView::from_wire`]: unreadable `repaired` and `unrepairable` entries are left
    /// out and named in [`RepairView::unrecognized`].
    pub fn from_wire(w: &pb::RepairView, version: ApiVersion) -> Result<RepairView, ViewError> {
        let mut t = Tolerant::default();
        let repaired = t.list(
            "repaired",
            &w.repaired,
            |r| id_from_wire(r, "repair.repaired", ManagedRef::parse),
            false,
        );
        let unrepairable = t.list(
            "unrepairable",
            &w.unrepairable,
            |u| UnsupportedMechanismView::from_wire(u, version),
            true,
        );
        Ok(RepairView {
            tool_id: id_from_wire(&w.tool_id, "repair.tool_id", ToolId::parse)?,
            repaired,
            unrepairable,
            status: match &w.status {
                Some(s) => StatusView::from_wire(s, version)?,
                None => {
                    return Err(ViewError::MissingField {
                        field: "repair.status",
                    })
                }
            },
            unrecognized: t.finish(),
        })
    }
}
