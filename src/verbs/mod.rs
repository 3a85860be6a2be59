//! The closed verb set (spec §3 `Verb`, §6) and the one table from verb to its rules; the
//! typed calls, the data-minimised views, their vocabularies and the [`Sentence`] type.
//!
//! This module owns what a verb *is*: its wire discriminant, its snake_case token, whether
//! it is tool-scoped, privileged (spec §8) and an audited mutation (spec §10), and the first
//! DI-API version that has it; what a call to it carries ([`VerbCall`]); and what may come
//! back ([`VerbResult`] and its views), with version-gated conversion to and from the wire. It must never grow a verb that checks,
//! decides or audits (ADR 0030 forbidden design 6): the set is pinned by a test against the
//! spec. It must never grow a view field able to carry a value, a policy document or a
//! credential: free text is a [`Sentence`], everything else a vocabulary or a validated id.
//!
//! ## Views
//!
//! The data-minimised response views of spec §3 ([`StatusView`], [`PlanView`], …) live here
//! too, each with its version-gated `to_wire`/`from_wire`. A field added at DI-API version N
//! is written only at N or above (the gates are [`crate::version`]'s
//! [`POLICY_SINCE`](crate::version::POLICY_SINCE) and
//! [`APPLY_OUTCOME_SINCE`](crate::version::APPLY_OUTCOME_SINCE)); parsing drops such a field
//! below its version, so a typed view never claims more than its connection's version can
//! say. Parsing a view (the client side) refuses a token outside its vocabulary or a
//! malformed identifier with a [`ViewError`]; free text the peer sent that is not a valid
//! sentence is replaced by the fixed placeholder. The status and repair views read
//! tolerantly: an unreadable list entry or optional field becomes an [`Unrecognized`] marker
//! in the view's `unrecognized` list. Ids and digests are opaque ([`OpaqueId`]).

mod call;
mod request_debug;
mod sentence;
mod tool_ref;
mod verb;
mod views;
mod vocab;

pub use call::{CallError, PlanArgs, ResponseError, VerbCall, VerbResult};
pub use sentence::{Sentence, SentenceRefusal, CREDENTIAL_PLACEHOLDER, SHAPE_PLACEHOLDER};
pub use tool_ref::{ToolRef, INVALID_TOOL_MARKER, TOOL_REF_MAX, TOOL_REF_MAX_HEX_RUN};
pub use verb::{MutationVerb, UnknownVerb, Verb, VerbRule, VerbSet};
pub use views::*;
pub use vocab::{
    ActionKind, AdapterCeiling, CapabilityName, Compatibility, EvidenceKind, ExercisedOutcome,
    HostAttestedOutcome, Level, OutsideVocabulary, Phase, PolicyState, Privilege, Profile,
    ReadBackOutcome, Requirement, SettingsScope, StatusState, StepOutcome, Support, UserInput,
    VerdictKind, VerificationOutcome,
};

/// For the session's refused-sentence count (`session::sentences`).
pub(crate) use sentence::REFUSED_SENTENCE;
pub(crate) use views::TOKEN_HEX_LEN;
