//! Property test for `verbs::StatusResponse`: the `status` answer written straight from its
//! view is byte-identical to prost's encoding of the same `Response`, for any view (empty
//! and absent texts, empty and long lists, timestamps of 0 and of every width, request id 0,
//! every version, so `policy` both gated out and written), and decodes back to the same
//! view.

use devint::session::Reply;
use devint::time::UnixSecs;
use devint::verbs::{
    AbsentReason, AdapterCeiling, Compatibility, Evidence, EvidenceView, ExercisedOutcome,
    HostAttestedOutcome, Level, ManagedRef, MechanismName, NextLevelView, Phase, PolicyState,
    PolicyView, ReadBackOutcome, Sentence, StatusResponse, StatusState, StatusView, ToolId, Verb,
    VerbResult,
};
use devint::version::{ApiVersion, POLICY_SINCE};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;

use crate::direct::direct_answer_is_prost_answer;

/// Any free text, kept as a sentence (a refused one becomes its placeholder, as a backend's
/// would); the empty sentence is among them.
fn sentence() -> impl Strategy<Value = Sentence> {
    prop_oneof!["", "\\PC{0,40}"].prop_map(|t| Sentence::or_placeholder(&t).0)
}

/// A timestamp: 0 (left out on the wire) or any width of varint.
fn secs() -> impl Strategy<Value = UnixSecs> {
    prop_oneof![Just(0u64), any::<u64>()].prop_map(UnixSecs::new)
}

fn evidence() -> impl Strategy<Value = EvidenceView> {
    let outcome = prop_oneof![
        select(ReadBackOutcome::ALL).prop_map(Evidence::ReadBack),
        select(ExercisedOutcome::ALL).prop_map(Evidence::Exercised),
        select(HostAttestedOutcome::ALL).prop_map(Evidence::HostAttested),
        "[a-z][a-z_]{0,20}"
            .prop_filter_map("an absent reason", |r| AbsentReason::parse(&r).ok())
            .prop_map(Evidence::Absent),
    ];
    (
        "[a-z][a-z0-9_.-]{0,24}".prop_filter_map("a mechanism", |m| MechanismName::parse(&m).ok()),
        outcome,
        secs(),
        option::of(sentence()),
    )
        .prop_map(
            |(mechanism, evidence, observed_at_unix_secs, detail)| EvidenceView {
                mechanism,
                evidence,
                observed_at_unix_secs,
                detail,
            },
        )
}

fn managed_ref() -> impl Strategy<Value = ManagedRef> {
    prop_oneof!["[a-zA-Z][a-zA-Z0-9_.]{0,30}", "~/[a-z.]{1,20}/[a-z.]{1,20}"]
        .prop_filter_map("a key or a path", |t| ManagedRef::parse(&t).ok())
}

fn view() -> impl Strategy<Value = StatusView> {
    (
        (
            "[a-z][a-z0-9-]{0,24}".prop_filter_map("a tool id", |t| ToolId::parse(&t).ok()),
            select(Phase::ALL),
            select(StatusState::ALL),
            select(Level::ALL),
            option::of(select(Level::ALL)),
            select(AdapterCeiling::ALL),
            select(Compatibility::ALL),
        ),
        (
            vec(evidence(), 0..6),
            option::of((select(Level::ALL), option::of(sentence()))),
            secs(),
            vec(managed_ref(), 0..5),
            option::of(sentence()),
            option::of(sentence()),
            option::of((
                select(PolicyState::ALL),
                option::of(sentence()),
                option::of(sentence()),
            )),
        ),
    )
        .prop_map(
            |(
                (tool_id, phase, state, achieved_level, planned_level, adapter_ceiling, compat),
                (evidence, next, observed_at, drift, reason, remediation, policy),
            )| StatusView {
                tool_id,
                phase,
                state,
                achieved_level,
                planned_level,
                adapter_ceiling,
                compatibility: compat,
                evidence,
                next_level: next.map(|(level, blocked_because)| NextLevelView {
                    level,
                    blocked_because,
                }),
                observed_at_unix_secs: observed_at,
                drift_mismatched: drift,
                state_reason: reason,
                state_remediation: remediation,
                policy: policy.map(|(state, source, detail)| PolicyView {
                    state,
                    source,
                    detail,
                }),
                unrecognized: Vec::new(),
            },
        )
}

fn answer() -> impl Strategy<Value = StatusResponse> {
    (prop_oneof![Just(0u64), any::<u64>()], 1u32..=5, view()).prop_map(
        |(request_id, version, view)| StatusResponse {
            request_id,
            version: ApiVersion::new(version),
            view,
        },
    )
}

proptest! {
    #[test]
    fn a_direct_status_answer_is_byte_identical_to_prost(answer in answer()) {
        let mut expected = answer.view.clone();
        if !answer.version.has(POLICY_SINCE) {
            // Below the version that added it, `policy` is not on the wire.
            expected.policy = None;
        }
        direct_answer_is_prost_answer(
            Reply::Status(answer.clone()),
            answer.to_response(),
            Verb::Status,
            answer.version,
            VerbResult::Status(expected),
        )?;
    }
}
