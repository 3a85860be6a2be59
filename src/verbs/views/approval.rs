//! `ApprovalRelayAck`: acknowledgement that a user's input was relayed (v2+). It relays;
//! it never carries a decision (ADR 0030 forbidden design 6).

use super::{id_from_wire, ApprovalId, ViewError};
use crate::time::UnixSecs;
use crate::verbs::UserInput;
use crate::version::ApiVersion;
use crate::wire::pb;

/// The relay acknowledgement.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ApprovalRelayAck {
    /// The approval relayed to.
    pub approval_id: ApprovalId,
    /// The input relayed.
    pub relayed_input: UserInput,
    /// When the approval authority accepted it (unix seconds).
    pub accepted_at_unix_secs: UnixSecs,
}

impl ApprovalRelayAck {
    /// To the wire.
    pub fn to_wire(&self, _version: ApiVersion) -> pb::ApprovalRelayAck {
        pb::ApprovalRelayAck {
            approval_id: self.approval_id.as_str().to_owned(),
            relayed_input: self.relayed_input.token().to_owned(),
            accepted_at_unix_secs: self.accepted_at_unix_secs.get(),
        }
    }

    /// From the wire.
    pub fn from_wire(
        w: &pb::ApprovalRelayAck,
        _version: ApiVersion,
    ) -> Result<ApprovalRelayAck, ViewError> {
        Ok(ApprovalRelayAck {
            approval_id: id_from_wire(&w.approval_id, "approval.approval_id", ApprovalId::parse)?,
            relayed_input: UserInput::parse_as(&w.relayed_input, "approval.relayed_input")?,
            accepted_at_unix_secs: UnixSecs::new(w.accepted_at_unix_secs),
        })
    }
}
