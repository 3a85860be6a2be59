//! `ScopedEventList`, `ScopedEvent`: already-redacted verdict records for one tool (v2+).
//! Counts and labels only: never the content that was judged.

use super::{
    id_from_wire, ids_from_wire, strs_to_wire, views_from_wire, MechanismName, RedactionLabel,
    ViewError,
};
use crate::time::UnixSecs;
use crate::verbs::VerdictKind;
use crate::version::ApiVersion;
use crate::wire::pb;

/// Verdict records for one tool.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ScopedEventList {
    /// The records, oldest first.
    pub events: Vec<ScopedEvent>,
}

/// One aggregated verdict record.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ScopedEvent {
    /// When (unix seconds).
    pub occurred_at_unix_secs: UnixSecs,
    /// The verdict.
    pub verdict_kind: VerdictKind,
    /// The mechanism that produced it.
    pub mechanism: MechanismName,
    /// How many verdicts the record aggregates.
    pub count: u32,
    /// The labels of what was redacted.
    pub redaction_labels: Vec<RedactionLabel>,
}

impl ScopedEventList {
    /// To the wire.
    pub fn to_wire(&self, version: ApiVersion) -> pb::ScopedEventList {
        pb::ScopedEventList {
            events: self.events.iter().map(|e| e.to_wire(version)).collect(),
        }
    }

    /// From the wire.
    pub fn from_wire(
        w: &pb::ScopedEventList,
        version: ApiVersion,
    ) -> Result<ScopedEventList, ViewError> {
        Ok(ScopedEventList {
            events: views_from_wire(&w.events, version, ScopedEvent::from_wire)?,
        })
    }
}

impl ScopedEvent {
    /// To the wire.
    pub fn to_wire(&self, _version: ApiVersion) -> pb::ScopedEvent {
        pb::ScopedEvent {
            occurred_at_unix_secs: self.occurred_at_unix_secs.get(),
            verdict_kind: self.verdict_kind.token().to_owned(),
            mechanism: self.mechanism.as_str().to_owned(),
            count: self.count,
            redaction_labels: strs_to_wire(&self.redaction_labels),
        }
    }

    /// From the wire.
    pub fn from_wire(w: &pb::ScopedEvent, _version: ApiVersion) -> Result<ScopedEvent, ViewError> {
        Ok(ScopedEvent {
            occurred_at_unix_secs: UnixSecs::new(w.occurred_at_unix_secs),
            verdict_kind: VerdictKind::parse_as(&w.verdict_kind, "event.verdict_kind")?,
            mechanism: id_from_wire(&w.mechanism, "event.mechanism", MechanismName::parse)?,
            count: w.count,
            redaction_labels: ids_from_wire(
                &w.redaction_labels,
                "event.redaction_labels",
                RedactionLabel::parse,
            )?,
        })
    }
}
