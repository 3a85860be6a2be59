//! The data-minimised response views of spec §3, as the crate's own types.
//!
//! This folder owns one file per view family and the version-gated conversion of each view
//! to and from its `pb` message. Every field is typed: a vocabulary enum, a validated
//! identifier ([`ToolId`], [`KeyName`], …), a [`Sentence`] for free text, a time
//! ([`UnixSecs`](crate::time::UnixSecs)), a number or a bool. No field can carry a value, a
//! policy document or a credential (ADR 0030 §5.5), and none may be added that could. A
//! field added at DI-API version N is written only at N or above (the gates are
//! [`crate::version`]'s [`POLICY_SINCE`](crate::version::POLICY_SINCE) and
//! [`APPLY_OUTCOME_SINCE`](crate::version::APPLY_OUTCOME_SINCE)); parsing drops such a field
//! below its version, so a typed view never claims more than its connection's version can
//! say.
//!
//! Parsing a view (the client side) refuses a token outside its vocabulary or a malformed
//! identifier with a [`ViewError`]; free text the peer sent that is not a valid sentence is
//! replaced by the fixed placeholder (it is never shown, and the rest of the view stays
//! usable). The status and repair views read tolerantly: an unreadable list
//! entry or optional field becomes an [`Unrecognized`] marker in the view's `unrecognized`
//! list, every one of them reported. Ids and digests are opaque ([`OpaqueId`]).

mod apply;
mod approval;
mod direct_wire;
mod events;
mod ids;
mod opaque;
mod plan;
mod removal;
mod repair;
mod status;
mod status_response;
mod tolerant;
mod tools;
mod tools_response;
mod verification;

pub use apply::{ApplyMutation, ApplyOutcomeView, ApplyView, StepOutcomeView};
pub use approval::ApprovalRelayAck;
pub use events::{ScopedEvent, ScopedEventList};
pub use ids::{
    AbsentReason, ArtifactPath, IdDefect, IdRefusal, KeyName, ManagedRef, MechanismName,
    PolicyProfileId, RedactionLabel, StepId, ToolId, VersionLabel,
};
pub(crate) use opaque::TOKEN_HEX_LEN;
pub use opaque::{ApprovalId, Digest, OpaqueId, PlanId, ReceiptId};
pub use plan::{PlanView, PolicyProfileRefView, StepView, UnsupportedMechanismView};
pub use removal::RemovalView;
pub use repair::RepairView;
pub use status::{Evidence, EvidenceView, NextLevelView, PolicyView, StatusView};
pub use status_response::StatusResponse;
pub use tolerant::{FieldPath, Unrecognized};
pub use tools::{CapabilityView, ToolList, ToolSummary};
pub use tools_response::ToolListResponse;
pub use verification::VerificationView;

use crate::verbs::{OutsideVocabulary, Sentence};
use crate::version::ApiVersion;

/// A wire view that could not be read as the crate's typed view. Messages never echo the
/// refused text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ViewError {
    /// A token outside its vocabulary.
    #[error(transparent)]
    OutsideVocabulary(#[from] OutsideVocabulary),
    /// An identifier field without its shape.
    #[error("{field}: {refusal}")]
    MalformedField {
        /// The field.
        field: &'static str,
        /// Why it was refused.
        refusal: IdRefusal,
    },
    /// A field the view requires was empty or absent.
    #[error("{field} is missing; the runtime must set it")]
    MissingField {
        /// The field.
        field: &'static str,
    },
    /// A wire enum number outside its enum (or its `UNSPECIFIED` value).
    #[error("{field} has no meaning for value {value}; the runtime must set a specified value")]
    UnknownEnumValue {
        /// The field.
        field: &'static str,
        /// The number received.
        value: i32,
    },
}

/// Required free text: empty is a missing field; anything not a sentence becomes the
/// placeholder.
pub(crate) fn text_from_wire(text: &str, field: &'static str) -> Result<Sentence, ViewError> {
    if text.is_empty() {
        Err(ViewError::MissingField { field })
    } else {
        Ok(Sentence::or_placeholder(text).0)
    }
}

/// Optional free text: empty is `None`.
pub(crate) fn opt_text_from_wire(text: &str) -> Option<Sentence> {
    (!text.is_empty()).then(|| Sentence::or_placeholder(text).0)
}

/// Optional free text as the wire has it: `None` is the empty string.
pub(crate) fn opt_text(text: &Option<Sentence>) -> &str {
    text.as_ref().map_or("", Sentence::as_str)
}

/// Optional free text to the wire: `None` is the empty string.
pub(crate) fn opt_text_to_wire(text: &Option<Sentence>) -> String {
    opt_text(text).to_owned()
}

/// A required identifier.
pub(crate) fn id_from_wire<T>(
    text: &str,
    field: &'static str,
    parse: fn(&str) -> Result<T, IdRefusal>,
) -> Result<T, ViewError> {
    if text.is_empty() {
        return Err(ViewError::MissingField { field });
    }
    parse(text).map_err(|refusal| ViewError::MalformedField { field, refusal })
}

/// An optional identifier: empty is `None`.
pub(crate) fn opt_id_from_wire<T>(
    text: &str,
    field: &'static str,
    parse: fn(&str) -> Result<T, IdRefusal>,
) -> Result<Option<T>, ViewError> {
    if text.is_empty() {
        Ok(None)
    } else {
        id_from_wire(text, field, parse).map(Some)
    }
}

/// A list of identifiers.
pub(crate) fn ids_from_wire<T>(
    texts: &[String],
    field: &'static str,
    parse: fn(&str) -> Result<T, IdRefusal>,
) -> Result<Vec<T>, ViewError> {
    texts
        .iter()
        .map(|t| id_from_wire(t, field, parse))
        .collect()
}

/// A list of free-text lines; empty entries are dropped.
pub(crate) fn texts_from_wire(texts: &[String]) -> Vec<Sentence> {
    texts.iter().filter_map(|t| opt_text_from_wire(t)).collect()
}

/// Any list of strings to the wire.
pub(crate) fn strs_to_wire<T: AsRef<str>>(items: &[T]) -> Vec<String> {
    items.iter().map(|i| i.as_ref().to_owned()).collect()
}

/// A list of sub-views from the wire.
pub(crate) fn views_from_wire<W, T>(
    items: &[W],
    version: ApiVersion,
    parse: fn(&W, ApiVersion) -> Result<T, ViewError>,
) -> Result<Vec<T>, ViewError> {
    items.iter().map(|w| parse(w, version)).collect()
}
