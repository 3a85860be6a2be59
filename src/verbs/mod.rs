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

mod call;
mod request_debug;
mod sentence;
mod tool_ref;
mod verb;
pub mod views;
mod vocab;

pub use call::{CallError, PlanArgs, ResponseError, VerbCall, VerbResult};
pub use sentence::{Sentence, SentenceRefusal, CREDENTIAL_PLACEHOLDER, SHAPE_PLACEHOLDER};
pub use tool_ref::{ToolRef, INVALID_TOOL_MARKER, TOOL_REF_MAX, TOOL_REF_MAX_HEX_RUN};
pub use verb::{MutationVerb, UnknownVerb, Verb, VerbRule, VerbSet};
pub use views::*;
pub use vocab::{
    ActionKind, AdapterCeiling, BuildIdSource, CapabilityName, Compatibility, EvidenceKind,
    ExercisedOutcome, HostAttestedOutcome, Level, OutsideVocabulary, Phase, PolicyState, Privilege,
    Profile, ReadBackOutcome, Requirement, SettingsScope, StatusState, StepOutcome, Support,
    UserInput, VerdictKind, VerificationOutcome,
};
