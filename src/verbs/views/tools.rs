//! `ToolList`, `ToolSummary`, `CapabilityView`: the answer to `list_tools`.

use super::{
    id_from_wire, opt_id_from_wire, opt_text_from_wire, opt_text_to_wire, text_from_wire,
    views_from_wire, ToolId, VersionLabel, ViewError,
};
use crate::verbs::{AdapterCeiling, CapabilityName, Compatibility, Sentence, Support};
use crate::version::ApiVersion;
use crate::wire::pb;

/// The tools this runtime has adapters for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ToolList {
    /// One summary per adapter.
    pub tools: Vec<ToolSummary>,
}

/// One tool: whether it is detected and what its adapter supports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ToolSummary {
    /// The adapter's id.
    pub tool_id: ToolId,
    /// A human name (`Claude Code`).
    pub display_name: Sentence,
    /// Whether the tool was found on this host.
    pub detected: bool,
    /// The detected version, if known.
    pub detected_version: Option<VersionLabel>,
    /// Whether the detected version is compatible.
    pub compatibility: Compatibility,
    /// All twelve capabilities, in spec order.
    pub capabilities: Vec<CapabilityView>,
    /// How far the adapter can go.
    pub adapter_ceiling: AdapterCeiling,
}

/// One capability of one tool.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CapabilityView {
    /// Which capability.
    pub capability: CapabilityName,
    /// Its support.
    pub support: Support,
    /// Why (for anything but `supported`).
    pub reason: Option<Sentence>,
}

impl ToolList {
    /// To the wire.
    pub fn to_wire(&self, version: ApiVersion) -> pb::ToolList {
        pb::ToolList {
            tools: self.tools.iter().map(|t| t.to_wire(version)).collect(),
        }
    }

    /// From the wire.
    pub fn from_wire(w: &pb::ToolList, version: ApiVersion) -> Result<ToolList, ViewError> {
        Ok(ToolList {
            tools: views_from_wire(&w.tools, version, ToolSummary::from_wire)?,
        })
    }
}

impl ToolSummary {
    /// To the wire.
    pub fn to_wire(&self, version: ApiVersion) -> pb::ToolSummary {
        pb::ToolSummary {
            tool_id: self.tool_id.as_str().to_owned(),
            display_name: self.display_name.as_str().to_owned(),
            detected: self.detected,
            detected_version: self
                .detected_version
                .as_ref()
                .map(|v| v.as_str().to_owned())
                .unwrap_or_default(),
            compatibility: self.compatibility.token().to_owned(),
            capabilities: self
                .capabilities
                .iter()
                .map(|c| c.to_wire(version))
                .collect(),
            adapter_ceiling: self.adapter_ceiling.token().to_owned(),
        }
    }

    /// From the wire.
    pub fn from_wire(w: &pb::ToolSummary, version: ApiVersion) -> Result<ToolSummary, ViewError> {
        Ok(ToolSummary {
            tool_id: id_from_wire(&w.tool_id, "tool_summary.tool_id", ToolId::parse)?,
            display_name: text_from_wire(&w.display_name, "tool_summary.display_name")?,
            detected: w.detected,
            detected_version: opt_id_from_wire(
                &w.detected_version,
                "tool_summary.detected_version",
                VersionLabel::parse,
            )?,
            compatibility: Compatibility::parse_as(&w.compatibility, "tool_summary.compatibility")?,
            capabilities: views_from_wire(&w.capabilities, version, CapabilityView::from_wire)?,
            adapter_ceiling: AdapterCeiling::parse_as(
                &w.adapter_ceiling,
                "tool_summary.adapter_ceiling",
            )?,
        })
    }
}

impl CapabilityView {
    /// To the wire.
    pub fn to_wire(&self, _version: ApiVersion) -> pb::CapabilityView {
        pb::CapabilityView {
            capability: self.capability.token().to_owned(),
            support: self.support.token().to_owned(),
            reason: opt_text_to_wire(&self.reason),
        }
    }

    /// From the wire.
    pub fn from_wire(
        w: &pb::CapabilityView,
        _version: ApiVersion,
    ) -> Result<CapabilityView, ViewError> {
        Ok(CapabilityView {
            capability: CapabilityName::parse_as(&w.capability, "capability_view.capability")?,
            support: Support::parse_as(&w.support, "capability_view.support")?,
            reason: opt_text_from_wire(&w.reason),
        })
    }
}
