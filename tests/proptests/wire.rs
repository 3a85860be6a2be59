//! Property tests for `wire`: every frame kind of both directions round-trips through the
//! encoder and the incremental decoder; the decoder never panics on arbitrary bytes, never
//! holds more than its bound, and gives the same answer however the input is split.

use devint::wire::fuzz_harness::{check_round_trip, decode_both, decode_chunks, Transcript};
use devint::wire::{
    encode, pb, ClientFrame, ClientToServer, Decoder, ServerFrame, ServerToClient, MAX_PAYLOAD,
};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::Index;

// ---- strategies for the pb messages ----

/// Short free text, including non-ASCII, so UTF-8 validation is exercised.
fn text() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}

fn texts() -> impl Strategy<Value = Vec<String>> {
    vec(text(), 0..3)
}

/// Any i32, not only the declared enum values: prost keeps unknown values, and negative
/// ones take ten bytes on the wire.
fn enum_value() -> impl Strategy<Value = i32> {
    prop_oneof![0..10i32, any::<i32>()]
}

prop_compose! {
    fn hello()(
        client_name in text(),
        client_version in text(),
        di_api_versions in vec(any::<u32>(), 0..6),
        lifecycle_schema_versions in vec(any::<u32>(), 0..4),
    ) -> pb::Hello {
        pb::Hello { client_name, client_version, di_api_versions, lifecycle_schema_versions }
    }
}

prop_compose! {
    fn provenance()(
        (core_version, build_sha, pid, executable_path) in (text(), "[0-9a-f]{0,40}", any::<u32>(), text()),
        (executable_present, source_path, started_at_unix_secs, build_id_source)
            in (any::<bool>(), text(), any::<u64>(), text()),
    ) -> pb::RuntimeProvenance {
        pb::RuntimeProvenance {
            core_version, build_sha, pid, executable_path, executable_present, source_path,
            started_at_unix_secs, build_id_source,
        }
    }
}

prop_compose! {
    fn hello_ack()(
        (outcome, di_api_version, core_version, lifecycle_schema_version)
            in (enum_value(), any::<u32>(), text(), any::<u32>()),
        (min_supported, max_supported, unavailable_verbs) in (any::<u32>(), any::<u32>(), texts()),
        (degraded_reason, remediation, provenance) in (text(), text(), option::of(provenance())),
    ) -> pb::HelloAck {
        pb::HelloAck {
            outcome, di_api_version, core_version, lifecycle_schema_version, min_supported,
            max_supported, unavailable_verbs, degraded_reason, remediation, provenance,
        }
    }
}

prop_compose! {
    fn incompatible()(
        reason in text(), remediation in text(), min_supported in any::<u32>(),
        max_supported in any::<u32>(),
    ) -> pb::Incompatible {
        pb::Incompatible { reason, remediation, min_supported, max_supported }
    }
}

prop_compose! {
    fn denied()(
        request_id in any::<u64>(), code in enum_value(), message in text(), remediation in text(),
    ) -> pb::Denied {
        pb::Denied { request_id, code, message, remediation }
    }
}

prop_compose! {
    fn plan_args()(
        profile in text(), requested_level in text(), settings_scope in text(),
        allow_privileged_host_steps in any::<bool>(), policy_profile_id in text(),
    ) -> pb::PlanArgs {
        pb::PlanArgs {
            profile, requested_level, settings_scope, allow_privileged_host_steps,
            policy_profile_id,
        }
    }
}

prop_compose! {
    fn request()(
        (request_id, verb, capability_token, tool_id)
            in (any::<u64>(), enum_value(), "[0-9a-f]{64}|\\PC{0,8}", text()),
        plan in option::of(plan_args()),
        apply in option::of(text().prop_map(|plan_id| pb::ApplyArgs { plan_id })),
        remove in option::of(text().prop_map(|plan_id| pb::RemoveArgs { plan_id })),
        events in option::of((any::<u32>(), any::<u64>()).prop_map(|(limit, since_unix_secs)| {
            pb::ScopedEventsArgs { limit, since_unix_secs }
        })),
        approval in option::of((text(), text()).prop_map(|(approval_id, user_input)| {
            pb::ApprovalRelayArgs { approval_id, user_input }
        })),
    ) -> pb::Request {
        pb::Request {
            request_id, verb, capability_token, tool_id, plan, apply, remove, events, approval,
        }
    }
}

prop_compose! {
    fn capability()(capability in text(), support in text(), reason in text()) -> pb::CapabilityView {
        pb::CapabilityView { capability, support, reason }
    }
}

prop_compose! {
    fn tool_summary()(
        (tool_id, display_name, detected, detected_version) in (text(), text(), any::<bool>(), text()),
        compatibility in text(),
        capabilities in vec(capability(), 0..3),
        adapter_ceiling in text(),
    ) -> pb::ToolSummary {
        pb::ToolSummary {
            tool_id, display_name, detected, detected_version, compatibility, capabilities,
            adapter_ceiling,
        }
    }
}

prop_compose! {
    fn step()(
        (id, summary, action_kind, requirement) in (text(), text(), text(), text()),
        (privilege, consent_prompt, settings_scope) in (text(), text(), text()),
        (managed_keys, artifact_paths, content_sha256, reversible)
            in (texts(), texts(), "[0-9a-f]{0,64}", any::<bool>()),
    ) -> pb::StepView {
        pb::StepView {
            id, summary, action_kind, requirement, privilege, consent_prompt, settings_scope,
            managed_keys, artifact_paths, content_sha256, reversible,
        }
    }
}

prop_compose! {
    fn unsupported()(capability in text(), reason in text()) -> pb::UnsupportedMechanismView {
        pb::UnsupportedMechanismView { capability, reason }
    }
}

prop_compose! {
    fn plan_view()(
        (schema_version, plan_id, tool_id, profile) in (any::<u32>(), text(), text(), text()),
        settings_scope in text(),
        policy_profile in option::of((text(), text(), text()).prop_map(|(id, display_name, digest)| {
            pb::PolicyProfileRefView { id, display_name, digest }
        })),
        (planned_level, adapter_ceiling) in (text(), text()),
        steps in vec(step(), 0..3),
        unsupported in vec(unsupported(), 0..2),
        warnings in texts(),
    ) -> pb::PlanView {
        pb::PlanView {
            schema_version, plan_id, tool_id, profile, settings_scope, policy_profile,
            planned_level, adapter_ceiling, steps, unsupported, warnings,
        }
    }
}

prop_compose! {
    fn apply_view()(
        (plan_id, receipt_id, applied_at_unix_secs) in (text(), text(), any::<u64>()),
        steps in vec((text(), text(), text()).prop_map(|(step_id, outcome, fingerprint)| {
            pb::StepOutcomeView { step_id, outcome, fingerprint }
        }), 0..3),
        (planned_level, achieved_level) in (text(), text()),
        outcome in option::of((enum_value(), text()).prop_map(|(mutation, detail)| {
            pb::ApplyOutcomeView { mutation, detail }
        })),
    ) -> pb::ApplyView {
        pb::ApplyView {
            plan_id, receipt_id, applied_at_unix_secs, steps, planned_level, achieved_level,
            outcome,
        }
    }
}

prop_compose! {
    fn evidence()(
        mechanism in text(), kind in text(), outcome in text(),
        observed_at_unix_secs in any::<u64>(), detail in text(),
    ) -> pb::EvidenceView {
        pb::EvidenceView { mechanism, kind, outcome, observed_at_unix_secs, detail }
    }
}

prop_compose! {
    fn policy()(state in text(), source in text(), detail in text()) -> pb::PolicyView {
        pb::PolicyView { state, source, detail }
    }
}

prop_compose! {
    fn status_view()(
        (tool_id, phase, state, achieved_level) in (text(), text(), text(), text()),
        (planned_level, adapter_ceiling, compatibility) in (text(), text(), text()),
        evidence in vec(evidence(), 0..3),
        next_level in option::of((text(), text()).prop_map(|(level, blocked_because)| {
            pb::NextLevelView { level, blocked_because }
        })),
        (observed_at_unix_secs, drift_mismatched) in (any::<u64>(), texts()),
        (state_reason, state_remediation, policy) in (text(), text(), option::of(policy())),
    ) -> pb::StatusView {
        pb::StatusView {
            tool_id, phase, state, achieved_level, planned_level, adapter_ceiling, compatibility,
            evidence, next_level, observed_at_unix_secs, drift_mismatched, state_reason,
            state_remediation, policy,
        }
    }
}

prop_compose! {
    fn verification_view()(
        verified_at_unix_secs in any::<u64>(), outcome in text(), missing in texts(),
        reason in text(), evidence in vec(evidence(), 0..3), policy in option::of(policy()),
    ) -> pb::VerificationView {
        pb::VerificationView { verified_at_unix_secs, outcome, missing, reason, evidence, policy }
    }
}

prop_compose! {
    fn repair_view()(
        tool_id in text(), repaired in texts(), unrepairable in vec(unsupported(), 0..2),
        status in option::of(status_view()),
    ) -> pb::RepairView {
        pb::RepairView { tool_id, repaired, unrepairable, status }
    }
}

prop_compose! {
    fn removal_view()(
        schema_version in any::<u32>(), plan_id in text(), tool_id in text(),
        steps in vec(step(), 0..2), residual in texts(), warnings in texts(),
    ) -> pb::RemovalView {
        pb::RemovalView { schema_version, plan_id, tool_id, steps, residual, warnings }
    }
}

prop_compose! {
    fn scoped_event()(
        occurred_at_unix_secs in any::<u64>(), verdict_kind in text(), mechanism in text(),
        count in any::<u32>(), redaction_labels in texts(),
    ) -> pb::ScopedEvent {
        pb::ScopedEvent { occurred_at_unix_secs, verdict_kind, mechanism, count, redaction_labels }
    }
}

prop_compose! {
    fn response()(
        (request_id, verb) in (any::<u64>(), enum_value()),
        tool_list in option::of(vec(tool_summary(), 0..3).prop_map(|tools| pb::ToolList { tools })),
        plan in option::of(plan_view()),
        apply in option::of(apply_view()),
        status in option::of(status_view()),
        verification in option::of(verification_view()),
        repair in option::of(repair_view()),
        removal in option::of(removal_view()),
        events in option::of(vec(scoped_event(), 0..3).prop_map(|events| pb::ScopedEventList { events })),
        approval in option::of((text(), text(), any::<u64>()).prop_map(
            |(approval_id, relayed_input, accepted_at_unix_secs)| pb::ApprovalRelayAck {
                approval_id, relayed_input, accepted_at_unix_secs,
            },
        )),
    ) -> pb::Response {
        pb::Response {
            request_id, verb, tool_list,
            plan: plan.map(Box::new), apply: apply.map(Box::new), status: status.map(Box::new),
            verification: verification.map(Box::new), repair: repair.map(Box::new),
            removal: removal.map(Box::new), events, approval,
        }
    }
}

fn client_frame() -> impl Strategy<Value = ClientFrame> {
    prop_oneof![
        hello().prop_map(ClientFrame::Hello),
        request().prop_map(ClientFrame::Request),
    ]
}

fn server_frame() -> impl Strategy<Value = ServerFrame> {
    prop_oneof![
        hello_ack().prop_map(ServerFrame::HelloAck),
        incompatible().prop_map(ServerFrame::Incompatible),
        response().prop_map(ServerFrame::Response),
        denied().prop_map(ServerFrame::Denied),
    ]
}

/// Byte streams a hostile or broken peer might send: valid frames of either direction, frame
/// headers with arbitrary tags and lengths, raw garbage, and single-byte corruptions.
fn hostile_stream() -> impl Strategy<Value = Vec<u8>> {
    let segment = prop_oneof![
        3 => client_frame().prop_map(|f| encode(&f).unwrap()),
        3 => server_frame().prop_map(|f| encode(&f).unwrap()),
        2 => (0u8..6, 0u64..=(MAX_PAYLOAD as u64 + 2), vec(any::<u8>(), 0..64)).prop_map(
            |(tag, len, body)| {
                let mut out = vec![tag];
                prost::encoding::encode_varint(len, &mut out);
                out.extend(body);
                out
            }
        ),
        1 => vec(any::<u8>(), 0..32),
    ];
    (
        vec(segment, 0..5),
        option::of((any::<Index>(), any::<u8>())),
    )
        .prop_map(|(segments, flip)| {
            let mut stream = segments.concat();
            if let (Some((at, byte)), false) = (flip, stream.is_empty()) {
                let i = at.index(stream.len());
                stream[i] ^= byte;
            }
            stream
        })
}

/// Splits `data` at the given points (in any order, duplicates allowed).
fn split_at_points<'a>(data: &'a [u8], points: &[Index]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = points.iter().map(|p| p.index(data.len() + 1)).collect();
    cuts.sort_unstable();
    let mut chunks = Vec::new();
    let mut start = 0;
    for cut in cuts {
        chunks.push(&data[start..cut]);
        start = cut;
    }
    chunks.push(&data[start..]);
    chunks
}

fn assert_same_outcome<F: PartialEq + std::fmt::Debug>(a: &Transcript<F>, b: &Transcript<F>) {
    assert_eq!(a.frames, b.frames);
    assert_eq!(a.error, b.error);
    assert_eq!(a.consumed, b.consumed);
    assert_eq!(a.at_frame_boundary, b.at_frame_boundary);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_client_frame_round_trips(frame in client_frame()) {
        let bytes = encode(&frame).unwrap();
        let whole = decode_chunks::<ClientToServer>([bytes.as_slice()]);
        prop_assert_eq!(&whole.frames, &vec![frame.clone()]);
        let bytewise = decode_chunks::<ClientToServer>(bytes.chunks(1));
        prop_assert_eq!(&bytewise.frames, &vec![frame.clone()]);
        check_round_trip::<ClientToServer>(&frame);
    }

    #[test]
    fn every_server_frame_round_trips(frame in server_frame()) {
        let bytes = encode(&frame).unwrap();
        let whole = decode_chunks::<ServerToClient>([bytes.as_slice()]);
        prop_assert_eq!(&whole.frames, &vec![frame.clone()]);
        let bytewise = decode_chunks::<ServerToClient>(bytes.chunks(1));
        prop_assert_eq!(&bytewise.frames, &vec![frame.clone()]);
        check_round_trip::<ServerToClient>(&frame);
    }

    #[test]
    fn a_stream_of_frames_decodes_in_order(frames in vec(server_frame(), 0..6)) {
        let stream: Vec<u8> = frames.iter().flat_map(|f| encode(f).unwrap()).collect();
        let t = decode_chunks::<ServerToClient>([stream.as_slice()]);
        prop_assert_eq!(t.frames, frames);
        prop_assert_eq!(t.error, None);
        prop_assert!(t.at_frame_boundary);
    }

    #[test]
    fn the_decoders_never_panic_on_arbitrary_bytes(data in vec(any::<u8>(), 0..512)) {
        decode_both(&data);
    }

    #[test]
    fn the_decoders_never_panic_on_hostile_streams(data in hostile_stream()) {
        decode_both(&data);
    }

    #[test]
    fn chunking_never_changes_the_outcome(
        data in hostile_stream(),
        points in vec(any::<Index>(), 0..8),
    ) {
        let chunks = split_at_points(&data, &points);
        let whole = decode_chunks::<ClientToServer>([data.as_slice()]);
        let split = decode_chunks::<ClientToServer>(chunks.iter().copied());
        assert_same_outcome(&whole, &split);
        let whole = decode_chunks::<ServerToClient>([data.as_slice()]);
        let split = decode_chunks::<ServerToClient>(chunks.iter().copied());
        assert_same_outcome(&whole, &split);
    }

    #[test]
    fn a_decoder_holds_no_more_than_the_frame_it_is_reading(
        len in 0usize..=MAX_PAYLOAD,
        fed in 0usize..200_000,
        chunk in 1usize..40_000,
    ) {
        // A frame header declaring `len` bytes, then up to `fed` payload bytes in chunks.
        let mut stream = vec![1u8];
        prost::encoding::encode_varint(len as u64, &mut stream);
        stream.resize(stream.len() + fed.min(len.saturating_sub(1)), 0);
        let mut decoder = Decoder::<ClientToServer>::new();
        for piece in stream.chunks(chunk) {
            let mut input = piece;
            let _ = decoder.decode(&mut input);
            let held = decoder.held_capacity();
            prop_assert!(held <= len.max(16 * 1024) && held <= MAX_PAYLOAD, "held {held} for len {len}");
            prop_assert!(held <= (2 * decoder.buffered_len()).max(16 * 1024), "held {held}");
        }
    }
}

/// The bound the brief pins: whatever a caller feeds at once, a decoder never holds more than
/// one payload.
#[test]
fn ten_mib_of_hostile_bytes_at_once_stay_within_the_bound() {
    let frame = ClientFrame::Hello(pb::Hello {
        client_name: "n".repeat(MAX_PAYLOAD - 4),
        ..Default::default()
    });
    let mut stream = Vec::new();
    for _ in 0..10 {
        stream.extend(encode(&frame).unwrap());
    }
    stream.extend([0x01, 0xff, 0xff, 0x3f]); // a declared 1 MiB - 1 payload, then nothing
    for chunk_len in [stream.len(), 1 << 16, 4097] {
        let t = decode_chunks::<ClientToServer>(stream.chunks(chunk_len));
        assert_eq!(t.frames.len(), 10);
        assert!(
            t.max_held_capacity <= MAX_PAYLOAD,
            "held {}",
            t.max_held_capacity
        );
        assert!(!t.at_frame_boundary);
    }
}
