//! The audit event's shape and the sinks (spec §10).

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use devint::audit::{
    AuditError, AuditEvent, AuditKind, AuditOutcome, AuditSink, AuthFailureReason, ConnectionLimit,
    EvictedStage, FanoutSink, FrameRefusal, MemoryAuditSink, MutationOutcome, NegotiationFailure,
    TracingAuditSink,
};
use devint::auth::{AuthDenial, ClientName, TokenId};
use devint::time::UnixSecs;
use devint::verbs::Verb;
use devint::verbs::{MutationVerb, ToolRef, INVALID_TOOL_MARKER};
use devint_net::audit_log::{verify, JsonLinesAuditLog, VerifyError};

fn full_event() -> AuditEvent {
    AuditEvent::new(
        UnixSecs::new(1_800_000_000),
        AuditKind::LifecycleMutation {
            verb: MutationVerb::Apply,
            outcome: MutationOutcome::Succeeded,
        },
    )
    .with_call(Verb::Apply, "codex")
    .with_token(
        TokenId::generate().unwrap(),
        ClientName::parse("ide").unwrap(),
    )
    .with_request(7)
    .with_connection(3)
    .with_peer_uid(1000)
}

fn keys(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn the_event_has_exactly_the_spec_fields_and_no_free_form_one() {
    let v: serde_json::Value = serde_json::from_str(&full_event().to_json().unwrap()).unwrap();
    let expected: BTreeSet<String> = [
        "at_unix_secs",
        "kind",
        "outcome",
        "token_id",
        "client_name",
        "verb",
        "tool",
        "request_id",
        "connection_id",
        "peer_uid",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(keys(&v), expected);
    assert_eq!(
        keys(&v["kind"]),
        ["outcome", "type", "verb"]
            .into_iter()
            .map(String::from)
            .collect()
    );
    assert_eq!(v["verb"], "apply");
    assert_eq!(v["tool"], "codex");
    assert_eq!(v["outcome"], "succeeded");
}

#[test]
fn the_refusal_summary_carries_its_type_and_a_count_and_nothing_else() {
    let kind = AuditKind::RefusalsSummarised { count: 84 };
    let v = serde_json::to_value(kind).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"type": "refusals_summarised", "count": 84})
    );
    assert_eq!(
        AuditEvent::new(UnixSecs::new(0), kind).outcome,
        AuditOutcome::Refused
    );
}

#[test]
fn every_kind_serialises_to_a_closed_tag_and_only_enum_reasons() {
    let kinds = [
        AuditKind::PeerRejected,
        AuditKind::NegotiationFailed {
            reason: NegotiationFailure::NoCommonVersion,
        },
        AuditKind::RenegotiationAttempted,
        AuditKind::FrameRefused {
            reason: FrameRefusal::Oversized,
        },
        AuditKind::AuthFailure {
            reason: AuthFailureReason::OutOfScope,
        },
        AuditKind::UnknownVerb,
        AuditKind::UnavailableAtVersion,
        AuditKind::ConnectionRefusedAtLimit {
            limit: ConnectionLimit::PerUid,
        },
        AuditKind::ConnectionEvicted {
            limit: ConnectionLimit::Total,
            stage: EvictedStage::Negotiated,
        },
        AuditKind::HandshakeTimeout,
        AuditKind::SentenceRefused,
    ];
    for kind in kinds {
        let v = serde_json::to_value(kind).unwrap();
        for (k, val) in v.as_object().unwrap() {
            // every value is a short snake_case token from an enum
            let s = val.as_str().unwrap();
            assert!(
                s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{k}={s}"
            );
        }
        assert_ne!(
            AuditEvent::new(UnixSecs::new(0), kind).outcome,
            AuditOutcome::Succeeded
        );
    }
}

#[test]
fn a_client_supplied_tool_id_is_kept_only_when_it_is_a_bounded_kebab_id() {
    assert_eq!(
        ToolRef::from_client("claude-code"),
        ToolRef::Id("claude-code".into())
    );
    for bad in [
        "Claude",
        "a--b",
        "-a",
        "a-",
        "a b",
        "a\nb",
        "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        &"a".repeat(65),
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "0123456789abcdef",
        "deadbeef-cafebabe",
    ] {
        assert_eq!(ToolRef::from_client(bad), ToolRef::Invalid, "{bad:?}");
    }
    assert_eq!(ToolRef::from_client(&"g".repeat(64)).as_str().len(), 64);
    assert_eq!(ToolRef::from_client("cafe"), ToolRef::Id("cafe".into()));
    let e =
        AuditEvent::new(UnixSecs::new(0), AuditKind::UnknownVerb).with_call(Verb::Status, "x y");
    let v: serde_json::Value = serde_json::from_str(&e.to_json().unwrap()).unwrap();
    assert_eq!(v["tool"], INVALID_TOOL_MARKER);
    assert_eq!(ToolRef::from_request(""), None);
}

#[test]
fn an_auth_failure_carries_a_token_id_only_when_a_record_was_reached() {
    let unknown = AuditEvent::auth_failure(
        UnixSecs::new(5),
        &AuthDenial::Unknown,
        Verb::Status,
        "codex",
    );
    assert_eq!(unknown.token_id, None);
    assert_eq!(unknown.client_name, None);
    assert_eq!(
        unknown.kind,
        AuditKind::AuthFailure {
            reason: AuthFailureReason::Unknown
        }
    );
    assert_eq!(unknown.outcome, AuditOutcome::Denied);
    let id = TokenId::generate().unwrap();
    let expired = AuditEvent::auth_failure(
        UnixSecs::new(5),
        &AuthDenial::Expired {
            token_id: id.clone(),
            client: ClientName::parse("ide").unwrap(),
        },
        Verb::Status,
        "codex",
    );
    assert_eq!(expired.token_id, Some(id));
    assert_eq!(
        expired.kind,
        AuditKind::AuthFailure {
            reason: AuthFailureReason::Expired
        }
    );
}

#[test]
fn lifecycle_mutations_exist_only_for_apply_repair_and_remove() {
    let mutating: Vec<Verb> = Verb::ALL
        .into_iter()
        .filter(|v| MutationVerb::from_verb(*v).is_some())
        .collect();
    assert_eq!(mutating, [Verb::Apply, Verb::Repair, Verb::Remove]);
    for v in Verb::ALL {
        assert_eq!(
            MutationVerb::from_verb(v).is_some(),
            v.rule().mutation.is_some(),
            "{v}"
        );
    }
}

#[test]
fn the_memory_and_tracing_sinks_record_every_event() {
    let mem = MemoryAuditSink::new();
    mem.record(&full_event()).unwrap();
    mem.record(&AuditEvent::new(UnixSecs::new(1), AuditKind::PeerRejected))
        .unwrap();
    assert_eq!(mem.events().len(), 2);
    TracingAuditSink.record(&full_event()).unwrap();
}

struct FailingSink;
impl AuditSink for FailingSink {
    fn record(&self, _: &AuditEvent) -> Result<(), AuditError> {
        Err(AuditError::Poisoned)
    }
}

#[test]
fn a_failing_sink_in_a_fanout_is_reported_and_the_others_still_record() {
    let mem = Arc::new(MemoryAuditSink::new());
    let fan = FanoutSink::new(vec![Arc::new(FailingSink), mem.clone()]);
    assert!(fan.record(&full_event()).is_err());
    assert_eq!(mem.events().len(), 1);
}

fn log_with(n: usize) -> (tempfile::TempDir, std::path::PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit").join("audit.jsonl");
    let log = JsonLinesAuditLog::open(&path).unwrap();
    for i in 0..n {
        log.record(&full_event().with_request(i as u64)).unwrap();
    }
    let head = log.head();
    (dir, path, head)
}

#[test]
fn an_intact_log_verifies_and_reports_the_writers_head() {
    let (_d, path, head) = log_with(5);
    let chain = verify(&path).unwrap();
    assert_eq!(chain.records, 5);
    assert_eq!(chain.head_sha256, head);
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[test]
fn reopening_a_log_continues_its_chain() {
    let (_d, path, _) = log_with(3);
    let log = JsonLinesAuditLog::open(&path).unwrap();
    log.record(&full_event()).unwrap();
    assert_eq!(verify(&path).unwrap().records, 4);
}

#[test]
fn an_edited_line_breaks_the_chain_at_the_next_line() {
    let (_d, path, _) = log_with(5);
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines[2] = lines[2].replace("\"request_id\":2", "\"request_id\":9");
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    assert!(matches!(
        verify(&path),
        Err(VerifyError::ChainBroken { line: 4, .. })
    ));
}

#[test]
fn a_removed_middle_line_or_first_line_breaks_the_chain() {
    let (_d, path, _) = log_with(5);
    let text = fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let without_middle = [&lines[..2], &lines[3..]].concat().join("\n") + "\n";
    fs::write(&path, without_middle).unwrap();
    assert!(matches!(
        verify(&path),
        Err(VerifyError::ChainBroken { line: 3, .. })
    ));
    let without_first = lines[1..].join("\n") + "\n";
    fs::write(&path, without_first).unwrap();
    assert!(matches!(
        verify(&path),
        Err(VerifyError::ChainBroken { line: 1, .. })
    ));
}

#[test]
fn a_log_cut_mid_record_breaks_the_chain_and_is_not_extended() {
    let (_d, path, _) = log_with(3);
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
    assert!(matches!(
        verify(&path),
        Err(VerifyError::ChainBroken { line: 3, .. })
    ));
    assert!(matches!(
        JsonLinesAuditLog::open(&path),
        Err(AuditError::ChainBroken { line: 3, .. })
    ));
}

#[test]
fn a_log_cut_at_a_line_boundary_is_caught_by_the_writers_head() {
    let (_d, path, head) = log_with(4);
    let text = fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    fs::write(&path, lines[..3].join("\n") + "\n").unwrap();
    let chain = verify(&path).unwrap();
    assert_eq!(chain.records, 3);
    assert_ne!(chain.head_sha256, head);
}

#[test]
fn an_audit_log_open_to_others_is_refused() {
    let (_d, path, _) = log_with(1);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    assert!(matches!(
        JsonLinesAuditLog::open(&path),
        Err(AuditError::Exposed { .. })
    ));
}
