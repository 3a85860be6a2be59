//! Pins `proto/devint.proto` to the spec's §3 tables: every message's field set (name,
//! number, type, label) and every enum's values. Adding, removing, renaming, renumbering or
//! retyping a field fails this test (spec §3: "The field sets above are pinned by a test;
//! widening one fails the build").
//!
//! The tables below are the spec's own rows, copied verbatim (`N name (type)`, type
//! `string` when not given, `rep` = repeated).

use std::collections::BTreeMap;

use prost_types::field_descriptor_proto::{Label, Type};

const MESSAGES: &str = "
Hello | 1 client_name · 2 client_version · 3 di_api_versions (rep uint32) · 4 lifecycle_schema_versions (rep uint32)
HelloAck | 1 outcome (NegotiationOutcome) · 2 di_api_version (uint32) · 3 core_version · 4 lifecycle_schema_version (uint32) · 5 min_supported (uint32) · 6 max_supported (uint32) · 7 unavailable_verbs (rep) · 8 degraded_reason · 9 remediation · 10 provenance (RuntimeProvenance)
RuntimeProvenance | 1 core_version · 2 build_sha · 3 pid (uint32) · 4 executable_path · 5 executable_present (bool) · 6 source_path · 7 started_at_unix_secs (uint64) · 8 build_id_source
Incompatible | 1 reason · 2 remediation · 3 min_supported (uint32) · 4 max_supported (uint32)
Request | 1 request_id (uint64) · 2 verb (Verb) · 3 capability_token · 4 tool_id · 5 plan (PlanArgs) · 6 apply (ApplyArgs) · 7 remove (RemoveArgs) · 8 events (ScopedEventsArgs) · 9 approval (ApprovalRelayArgs)
PlanArgs | 1 profile · 2 requested_level · 3 settings_scope · 4 allow_privileged_host_steps (bool) · 5 policy_profile_id
ApplyArgs | 1 plan_id
RemoveArgs | 1 plan_id
ScopedEventsArgs | 1 limit (uint32) · 2 since_unix_secs (uint64)
ApprovalRelayArgs | 1 approval_id · 2 user_input
Response | 1 request_id (uint64) · 2 verb (Verb) · 3 tool_list (ToolList) · 4 plan (PlanView) · 5 apply (ApplyView) · 6 status (StatusView) · 7 verification (VerificationView) · 8 repair (RepairView) · 9 removal (RemovalView) · 10 events (ScopedEventList) · 11 approval (ApprovalRelayAck)
Denied | 1 request_id (uint64) · 2 code (DenyCode) · 3 message · 4 remediation
ToolList | 1 tools (rep ToolSummary)
ToolSummary | 1 tool_id · 2 display_name · 3 detected (bool) · 4 detected_version · 5 compatibility · 6 capabilities (rep CapabilityView) · 7 adapter_ceiling
CapabilityView | 1 capability · 2 support · 3 reason
PlanView | 1 schema_version (uint32) · 2 plan_id · 3 tool_id · 4 profile · 5 settings_scope · 6 policy_profile (PolicyProfileRefView) · 7 planned_level · 8 adapter_ceiling · 9 steps (rep StepView) · 10 unsupported (rep UnsupportedMechanismView) · 11 warnings (rep)
StepView | 1 id · 2 summary · 3 action_kind · 4 requirement · 5 privilege · 6 consent_prompt · 7 settings_scope · 8 managed_keys (rep) · 9 artifact_paths (rep) · 10 content_sha256 · 11 reversible (bool)
PolicyProfileRefView | 1 id · 2 display_name · 3 digest
UnsupportedMechanismView | 1 capability · 2 reason
ApplyView | 1 plan_id · 2 receipt_id · 3 applied_at_unix_secs (uint64) · 4 steps (rep StepOutcomeView) · 5 planned_level · 6 achieved_level · 7 outcome (ApplyOutcomeView)
StepOutcomeView | 1 step_id · 2 outcome · 3 fingerprint
ApplyOutcomeView | 1 mutation (ApplyMutation) · 2 detail
StatusView | 1 tool_id · 2 phase · 3 state · 4 achieved_level · 5 planned_level · 6 adapter_ceiling · 7 compatibility · 8 evidence (rep EvidenceView) · 9 next_level (NextLevelView) · 10 observed_at_unix_secs (uint64) · 11 drift_mismatched (rep) · 12 state_reason · 13 state_remediation · 14 policy (PolicyView)
EvidenceView | 1 mechanism · 2 kind · 3 outcome · 4 observed_at_unix_secs (uint64) · 5 detail
NextLevelView | 1 level · 2 blocked_because
PolicyView | 1 state · 2 source · 3 detail
VerificationView | 1 verified_at_unix_secs (uint64) · 2 outcome · 3 missing (rep) · 4 reason · 5 evidence (rep EvidenceView) · 6 policy (PolicyView)
RepairView | 1 tool_id · 2 repaired (rep) · 3 unrepairable (rep UnsupportedMechanismView) · 4 status (StatusView)
RemovalView | 1 schema_version (uint32) · 2 plan_id · 3 tool_id · 4 steps (rep StepView) · 5 residual (rep) · 6 warnings (rep)
ScopedEventList | 1 events (rep ScopedEvent)
ScopedEvent | 1 occurred_at_unix_secs (uint64) · 2 verdict_kind · 3 mechanism · 4 count (uint32) · 5 redaction_labels (rep)
ApprovalRelayAck | 1 approval_id · 2 relayed_input · 3 accepted_at_unix_secs (uint64)
";

const ENUMS: &str = "
NegotiationOutcome | 0 NEGOTIATION_OUTCOME_UNSPECIFIED · 1 NEGOTIATION_OUTCOME_SUPPORTED · 2 NEGOTIATION_OUTCOME_DEGRADED
Verb | 0 VERB_UNSPECIFIED · 1 VERB_LIST_TOOLS · 2 VERB_PLAN · 3 VERB_APPLY · 4 VERB_STATUS · 5 VERB_VERIFY · 6 VERB_REPAIR · 7 VERB_REMOVE · 8 VERB_SCOPED_EVENTS · 9 VERB_APPROVAL_RELAY
DenyCode | 0 DENY_CODE_UNSPECIFIED · 1 DENY_CODE_UNAUTHENTICATED · 2 DENY_CODE_TOKEN_EXPIRED · 3 DENY_CODE_OUT_OF_SCOPE · 4 DENY_CODE_UNKNOWN_VERB · 5 DENY_CODE_PROTOCOL_VIOLATION · 6 DENY_CODE_UNAVAILABLE_AT_VERSION · 7 DENY_CODE_LIFECYCLE_ERROR · 8 DENY_CODE_UNKNOWN_TOOL
ApplyMutation | 0 APPLY_MUTATION_UNSPECIFIED · 1 APPLY_MUTATION_CHANGED · 2 APPLY_MUTATION_UNCHANGED · 3 APPLY_MUTATION_FAILED · 4 APPLY_MUTATION_UNSUPPORTED
";

/// (number, name, label, type) as the spec states them.
type FieldPin = (i32, String, &'static str, String);

fn spec_fields(row: &str) -> Vec<FieldPin> {
    row.split('·')
        .map(|f| {
            let f = f.trim();
            let (head, ty) = match f.split_once(" (") {
                Some((h, t)) => (h, t.trim_end_matches(')')),
                None => (f, "string"),
            };
            let (number, name) = head.split_once(' ').expect("`N name`");
            let (label, ty) = match ty.strip_prefix("rep") {
                Some(rest) => ("repeated", rest.trim()),
                None => ("optional", ty),
            };
            let ty = if ty.is_empty() { "string" } else { ty };
            (
                number.parse().unwrap(),
                name.to_string(),
                label,
                ty.to_string(),
            )
        })
        .collect()
}

fn descriptor_type(f: &prost_types::FieldDescriptorProto) -> String {
    match f.r#type() {
        Type::String => "string".into(),
        Type::Uint32 => "uint32".into(),
        Type::Uint64 => "uint64".into(),
        Type::Bool => "bool".into(),
        Type::Message | Type::Enum => f
            .type_name()
            .rsplit('.')
            .next()
            .unwrap_or_default()
            .to_string(),
        other => format!("unexpected {other:?}"),
    }
}

fn table(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, rest) = l.split_once(" | ").unwrap();
            (name.to_string(), rest.to_string())
        })
        .collect()
}

fn compiled() -> prost_types::FileDescriptorProto {
    let root = env!("CARGO_MANIFEST_DIR");
    let fds = protox::compile(["devint.proto"], [format!("{root}/proto")]).unwrap();
    fds.file
        .into_iter()
        .find(|f| f.name() == "devint.proto")
        .unwrap()
}

#[test]
fn proto_package_is_assembly_devint_v1_with_no_service() {
    let file = compiled();
    assert_eq!(file.package(), "assembly.devint.v1");
    assert_eq!(file.syntax(), "proto3");
    assert!(
        file.service.is_empty(),
        "framed payloads, not gRPC (spec §3)"
    );
}

#[test]
fn every_message_field_set_matches_the_spec() {
    let file = compiled();
    let spec = table(MESSAGES);
    let names: Vec<String> = file
        .message_type
        .iter()
        .map(|m| m.name().to_string())
        .collect();
    let mut spec_names: Vec<String> = spec.keys().cloned().collect();
    let mut sorted = names.clone();
    sorted.sort();
    spec_names.sort();
    assert_eq!(sorted, spec_names, "message set differs from spec §3");
    for message in &file.message_type {
        let want = spec_fields(&spec[message.name()]);
        let got: Vec<FieldPin> = message
            .field
            .iter()
            .map(|f| {
                let label = if f.label() == Label::Repeated {
                    "repeated"
                } else {
                    "optional"
                };
                (f.number(), f.name().to_string(), label, descriptor_type(f))
            })
            .collect();
        assert_eq!(got, want, "message {} differs from spec §3", message.name());
        assert!(
            message.oneof_decl.is_empty(),
            "{}: no oneofs in the spec",
            message.name()
        );
    }
}

#[test]
fn every_enum_matches_the_spec() {
    let file = compiled();
    let spec = table(ENUMS);
    assert_eq!(
        file.enum_type.len(),
        spec.len(),
        "enum set differs from spec §3"
    );
    for e in &file.enum_type {
        let want: Vec<(i32, String)> = spec[e.name()]
            .split('·')
            .map(|v| {
                let (n, name) = v.trim().split_once(' ').unwrap();
                (n.parse().unwrap(), name.to_string())
            })
            .collect();
        let got: Vec<(i32, String)> = e
            .value
            .iter()
            .map(|v| (v.number(), v.name().to_string()))
            .collect();
        assert_eq!(got, want, "enum {} differs from spec §3", e.name());
    }
}

#[test]
fn the_pin_itself_would_catch_a_widened_message() {
    // Guard against a pin that cannot fail: a field set with one extra field differs.
    let mut widened = spec_fields("1 reason · 2 remediation");
    widened.push((3, "token".into(), "optional", "string".into()));
    assert_ne!(widened, spec_fields("1 reason · 2 remediation"));
    assert_eq!(
        spec_fields("3 di_api_versions (rep uint32)"),
        vec![(3, "di_api_versions".into(), "repeated", "uint32".into())]
    );
}
