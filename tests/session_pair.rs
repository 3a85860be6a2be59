//! Pair tests (quinn's pattern): a client core and a server `AnyConnection` wired back to
//! back in memory. Every frame is encoded with `devint::wire::encode` and read back through
//! a `Decoder`, so the bytes are real; the clock is a virtual `now`. Covers every rule of
//! spec §5 (negotiation) and §6 (requests and denials), and proves with `CountingBackend`
//! that no denied request reaches the backend.
#![cfg(feature = "test-support")]

use std::time::Duration;

use devint::audit::{AuditEvent, AuditKind, AuthFailureReason, NegotiationFailure};
use devint::auth::{ClientName, LiveBook, Scope, TokenId, TokenSecret, ToolScope};
use devint::peer::PeerVerified;
use devint::session::client::{Client, ClientError};
use devint::session::{AnyConnection, Connection, ServerEnv, Step};
use devint::testing::CountingBackend;
use devint::time::UnixSecs;
use devint::verbs::{ResponseError, ToolId, Verb, VerbResult};
use devint::version::{ApiVersion, MAX_SUPPORTED};
use devint::wire::{encode, pb, ClientFrame, ClientToServer, Decoder, ServerFrame, ServerToClient};
use pb::DenyCode;

const T0: UnixSecs = UnixSecs::new(1_700_000_000);
const HOUR: u64 = 3600;

/// The server half, its book and backend, the two decoders, the virtual clock and
/// everything the server audited.
struct Pair {
    server: AnyConnection,
    backend: CountingBackend,
    book: LiveBook,
    now: UnixSecs,
    audit: Vec<AuditEvent>,
    closed: bool,
    to_server: Decoder<ClientToServer>,
    to_client: Decoder<ServerToClient>,
}

impl Pair {
    fn new() -> Pair {
        Pair {
            server: AnyConnection::new(Connection::new(PeerVerified::for_tests(1000), 7)),
            backend: CountingBackend::default(),
            book: LiveBook::default(),
            now: T0,
            audit: Vec::new(),
            closed: false,
            to_server: Decoder::new(),
            to_client: Decoder::new(),
        }
    }

    /// A pair negotiated at exactly `version`.
    fn negotiated(version: u32) -> Pair {
        let mut pair = Pair::new();
        let ack = pair.hello(&[version], &[1]);
        assert!(matches!(ack, ServerFrame::HelloAck(ref a) if a.di_api_version == version));
        pair
    }

    /// Enrol a token; returns its id and its 64-hex text.
    fn enrol(&self, scope: Scope, ttl: u64) -> (TokenId, String) {
        let (id, secret) = self
            .book
            .issue(
                ClientName::parse("pair-ide").unwrap(),
                scope,
                Duration::from_secs(ttl),
                self.now,
            )
            .unwrap();
        (id, secret.expose_secret_hex().to_string())
    }

    fn full_token(&self) -> String {
        self.enrol(Scope::full_lifecycle(ToolScope::All), HOUR).1
    }

    /// One client frame through the real codec into the server; at most one frame back,
    /// through the real codec.
    fn send(&mut self, frame: ClientFrame) -> Option<ServerFrame> {
        let bytes = encode(&frame).unwrap();
        let mut input = bytes.as_slice();
        let decoded = self.to_server.decode(&mut input).unwrap().unwrap();
        assert!(input.is_empty());
        let provenance = || pb::RuntimeProvenance {
            core_version: "0.1.0".into(),
            build_id_source: "absent".into(),
            ..Default::default()
        };
        let env = ServerEnv {
            resolver: &self.book,
            backend: &self.backend,
            core_version: "0.1.0",
            provenance: &provenance,
        };
        let out = match self.server.handle(decoded, &env, self.now) {
            Step::Reply {
                frame,
                audit,
                close,
            } => {
                self.audit.extend(audit);
                self.closed |= close;
                frame
            }
            Step::Dispatch(dispatch) => {
                let answer = dispatch.run(&self.backend, self.now);
                self.audit.extend(answer.audit);
                Some(answer.frame.into_frame())
            }
        };
        assert_eq!(self.closed, self.server.is_closed());
        out.map(|frame| {
            let bytes = encode(&frame).unwrap();
            let mut input = bytes.as_slice();
            let back = self.to_client.decode(&mut input).unwrap().unwrap();
            assert_eq!(back, frame);
            back
        })
    }

    fn hello(&mut self, versions: &[u32], schemas: &[u32]) -> ServerFrame {
        self.send(ClientFrame::Hello(pb::Hello {
            client_name: "pair".into(),
            client_version: "1".into(),
            di_api_versions: versions.to_vec(),
            lifecycle_schema_versions: schemas.to_vec(),
        }))
        .expect("Hello is always answered")
    }

    fn request(&mut self, id: u64, verb: i32, token: &str, tool: &str) -> ServerFrame {
        self.send(ClientFrame::Request(request(id, verb, token, tool)))
            .expect("a request on an open connection is answered")
    }

    fn last_audit(&self) -> &AuditEvent {
        self.audit.last().expect("an audit record")
    }
}

/// A request whose arguments fit `verb`, so only the spec §6 checks decide.
fn request(id: u64, verb: i32, token: &str, tool: &str) -> pb::Request {
    pb::Request {
        request_id: id,
        verb,
        capability_token: token.to_owned(),
        tool_id: tool.to_owned(),
        plan: Some(pb::PlanArgs {
            profile: "recommended".into(),
            settings_scope: "user".into(),
            ..Default::default()
        }),
        apply: Some(pb::ApplyArgs {
            plan_id: "0123456789abcdef0123456789abcdef".into(),
        }),
        remove: Some(pb::RemoveArgs {
            plan_id: "0123456789abcdef0123456789abcdef".into(),
        }),
        events: Some(pb::ScopedEventsArgs {
            limit: 5,
            since_unix_secs: 0,
        }),
        approval: Some(pb::ApprovalRelayArgs {
            approval_id: "fedcba9876543210fedcba9876543210".into(),
            user_input: "approve".into(),
        }),
    }
}

fn w(verb: Verb) -> i32 {
    verb.to_wire() as i32
}

fn denied(frame: ServerFrame) -> pb::Denied {
    match frame {
        ServerFrame::Denied(d) => d,
        other => panic!("expected Denied, got {other:?}"),
    }
}

fn response(frame: ServerFrame) -> pb::Response {
    match frame {
        ServerFrame::Response(r) => r,
        other => panic!("expected Response, got {other:?}"),
    }
}

fn incompatible(frame: ServerFrame) -> pb::Incompatible {
    match frame {
        ServerFrame::Incompatible(i) => i,
        other => panic!("expected Incompatible, got {other:?}"),
    }
}

fn ack(frame: ServerFrame) -> pb::HelloAck {
    match frame {
        ServerFrame::HelloAck(a) => a,
        other => panic!("expected HelloAck, got {other:?}"),
    }
}

fn assert_denied(d: &pb::Denied, id: u64, code: DenyCode) {
    assert_eq!(d.request_id, id, "{d:?}");
    assert_eq!(d.code, code as i32, "{d:?}");
    assert!(
        !d.remediation.is_empty(),
        "remediation is never empty: {d:?}"
    );
}

fn auth_reason(e: &AuditEvent) -> Option<AuthFailureReason> {
    match e.kind {
        AuditKind::AuthFailure { reason } => Some(reason),
        _ => None,
    }
}

// ---- spec §5: negotiation ----

#[test]
fn a_client_offering_the_whole_window_negotiates_v5_supported() {
    let mut pair = Pair::new();
    let (client, hello) = Client::new("ide", "1").hello();
    assert_eq!(hello.di_api_versions, vec![1, 2, 3, 4, 5]);
    let frame = pair.send(ClientFrame::Hello(hello)).unwrap();
    let client = client.on_frame(frame).unwrap();
    assert_eq!(client.version(), MAX_SUPPORTED);
    assert!(!client.is_degraded());
    assert!(client.ack().unavailable_verbs.is_empty());
    assert_eq!(client.ack().min_supported, 1);
    assert_eq!(client.ack().max_supported, 5);
    assert!(client.provenance().is_some());
    assert!(!pair.closed);
}

#[test]
fn v2_to_v5_are_supported_and_v1_is_degraded() {
    for version in 1..=5 {
        let mut pair = Pair::new();
        let a = ack(pair.hello(&[version], &[1]));
        let expected = if version == 1 {
            pb::NegotiationOutcome::Degraded
        } else {
            pb::NegotiationOutcome::Supported
        };
        assert_eq!(a.outcome, expected as i32, "version {version}");
        assert_eq!(a.lifecycle_schema_version, 1);
    }
}

#[test]
fn v1_is_degraded_listing_both_v2_verbs_with_a_reason_and_remediation() {
    let mut pair = Pair::new();
    let (client, hello) = Client::with_versions("old-ide", "1", [1]).hello();
    let client = client
        .on_frame(pair.send(ClientFrame::Hello(hello)).unwrap())
        .unwrap();
    assert!(client.is_degraded());
    let a = client.ack();
    assert_eq!(a.unavailable_verbs, vec!["scoped_events", "approval_relay"]);
    assert!(!a.degraded_reason.is_empty());
    assert!(
        a.remediation.contains('2'),
        "names version 2: {}",
        a.remediation
    );
}

#[test]
fn provenance_is_present_iff_the_version_is_at_least_4() {
    for version in 1..=5 {
        let mut pair = Pair::new();
        let a = ack(pair.hello(&[version], &[1]));
        assert_eq!(a.provenance.is_some(), version >= 4, "version {version}");
    }
}

#[test]
fn the_offer_is_a_set_and_the_highest_common_version_wins() {
    let mut pair = Pair::new();
    assert_eq!(ack(pair.hello(&[3, 1, 3], &[1])).di_api_version, 3);
    let mut pair = Pair::new();
    // Not a range: 1 and 9 do not imply 2..8.
    assert_eq!(ack(pair.hello(&[9, 1], &[1])).di_api_version, 1);
}

fn assert_incompatible(versions: &[u32], schemas: &[u32], reason_has: &str, remedy_has: &str) {
    let mut pair = Pair::new();
    let i = incompatible(pair.hello(versions, schemas));
    assert!(i.reason.contains(reason_has), "{versions:?}: {}", i.reason);
    assert!(
        i.remediation.contains(remedy_has),
        "{versions:?}: {}",
        i.remediation
    );
    assert_eq!((i.min_supported, i.max_supported), (1, 5));
    // spec §5 rule 6: after Incompatible the server closes.
    assert!(pair.closed);
    assert!(matches!(
        pair.last_audit().kind,
        AuditKind::NegotiationFailed { .. }
    ));
    // Nothing more is answered.
    assert!(pair
        .send(ClientFrame::Request(request(1, 1, "", "")))
        .is_none());
    assert_eq!(pair.backend.total_calls(), 0);
}

#[test]
fn no_version_offered_is_incompatible() {
    assert_incompatible(&[], &[1], "no DI-API version", "di_api_versions");
}

#[test]
fn a_client_too_old_is_incompatible_naming_version_1() {
    assert_incompatible(&[0], &[1], "too old", "version 1");
}

#[test]
fn a_client_too_new_is_incompatible_naming_its_lowest_version() {
    assert_incompatible(&[6, 7], &[1], "too new", "version 6");
}

#[test]
fn offers_on_both_sides_of_the_window_are_incompatible_as_no_overlap() {
    assert_incompatible(
        &[0, 6],
        &[1],
        "no DI-API version offered",
        "between 1 and 5",
    );
}

#[test]
fn a_schema_mismatch_is_incompatible() {
    assert_incompatible(&[5], &[2], "schema", "schema version 1");
    assert_incompatible(&[5], &[], "schema", "schema version 1");
}

#[test]
fn the_client_reads_incompatible_as_an_error() {
    let mut pair = Pair::new();
    let (client, hello) = Client::with_versions("future-ide", "9", [7, 8]).hello();
    let err = client
        .on_frame(pair.send(ClientFrame::Hello(hello)).unwrap())
        .err()
        .unwrap();
    assert!(matches!(
        err,
        ClientError::Incompatible {
            min_supported: 1,
            max_supported: 5,
            ..
        }
    ));
}

#[test]
fn second_hello_is_a_protocol_violation_audited_as_renegotiation_and_closes() {
    let mut pair = Pair::negotiated(5);
    let d = denied(pair.hello(&[1], &[1]));
    assert_denied(&d, 0, DenyCode::ProtocolViolation);
    assert!(matches!(
        pair.last_audit().kind,
        AuditKind::RenegotiationAttempted
    ));
    assert!(pair.closed);
    let token = pair.full_token();
    assert!(pair
        .send(ClientFrame::Request(request(
            2,
            w(Verb::ListTools),
            &token,
            ""
        )))
        .is_none());
    assert_eq!(pair.backend.total_calls(), 0);
}

#[test]
fn a_request_before_hello_is_a_protocol_violation_and_closes() {
    let mut pair = Pair::new();
    let token = pair.full_token();
    let d = denied(pair.request(9, w(Verb::ListTools), &token, ""));
    assert_denied(&d, 0, DenyCode::ProtocolViolation);
    assert_eq!(d.message, "the first frame must be Hello");
    assert!(pair.closed);
    assert!(matches!(
        pair.last_audit().kind,
        AuditKind::NegotiationFailed {
            reason: NegotiationFailure::HelloExpected
        }
    ));
    assert_eq!(pair.backend.total_calls(), 0);
}

// ---- spec §6: requests and denials ----

#[test]
fn unknown_verbs_are_denied_first_even_with_a_good_token() {
    let mut pair = Pair::negotiated(5);
    let token = pair.full_token();
    for (i, verb) in [0, 42, 99, 1_000_000, -1].into_iter().enumerate() {
        let id = 100 + i as u64;
        let d = denied(pair.request(id, verb, &token, "claude-code"));
        assert_denied(&d, id, DenyCode::UnknownVerb);
        assert!(matches!(pair.last_audit().kind, AuditKind::UnknownVerb));
        // The verb is checked before the token.
        let d = denied(pair.request(id, verb, "", "claude-code"));
        assert_denied(&d, id, DenyCode::UnknownVerb);
    }
    assert!(!pair.closed, "a denial leaves the connection open");
    assert_eq!(pair.backend.total_calls(), 0);
}

/// Deny `token` for `status` on claude-code; check the code, the audit's finer reason and
/// that the backend was not reached.
fn assert_token_denied(pair: &mut Pair, token: &str, code: DenyCode, reason: AuthFailureReason) {
    let calls = pair.backend.total_calls();
    let d = denied(pair.request(5, w(Verb::Status), token, "claude-code"));
    assert_denied(&d, 5, code);
    assert_eq!(auth_reason(pair.last_audit()), Some(reason));
    assert_eq!(pair.last_audit().request_id, Some(5));
    assert_eq!(
        pair.backend.total_calls(),
        calls,
        "a denied request reached the backend"
    );
    assert!(!pair.closed);
}

#[test]
fn an_absent_token_is_unauthenticated_and_audited_as_absent() {
    let mut pair = Pair::negotiated(5);
    assert_token_denied(
        &mut pair,
        "",
        DenyCode::Unauthenticated,
        AuthFailureReason::Absent,
    );
}

#[test]
fn a_malformed_token_is_unauthenticated_and_audited_as_malformed() {
    let mut pair = Pair::negotiated(5);
    for bad in ["xyz", &"a".repeat(63), &"a".repeat(65), &"g".repeat(64)] {
        assert_token_denied(
            &mut pair,
            bad,
            DenyCode::Unauthenticated,
            AuthFailureReason::Malformed,
        );
    }
}

#[test]
fn an_uppercase_token_is_malformed_even_when_its_lowercase_form_is_enrolled() {
    let mut pair = Pair::negotiated(5);
    let token = pair.full_token();
    let upper = token.to_uppercase();
    assert_token_denied(
        &mut pair,
        &upper,
        DenyCode::Unauthenticated,
        AuthFailureReason::Malformed,
    );
}

#[test]
fn an_unknown_token_is_unauthenticated_and_audited_as_unknown_without_a_token_id() {
    let mut pair = Pair::negotiated(5);
    let _enrolled = pair.full_token();
    let stranger = TokenSecret::generate()
        .unwrap()
        .expose_secret_hex()
        .to_string();
    assert_token_denied(
        &mut pair,
        &stranger,
        DenyCode::Unauthenticated,
        AuthFailureReason::Unknown,
    );
    assert!(pair.last_audit().token_id.is_none());
}

#[test]
fn an_expired_token_is_token_expired_and_the_audit_names_its_id() {
    let mut pair = Pair::negotiated(5);
    let (id, token) = pair.enrol(Scope::full_lifecycle(ToolScope::All), 60);
    pair.now = pair.now.saturating_add(Duration::from_secs(HOUR));
    assert_token_denied(
        &mut pair,
        &token,
        DenyCode::TokenExpired,
        AuthFailureReason::Expired,
    );
    assert_eq!(pair.last_audit().token_id.as_ref(), Some(&id));
}

#[test]
fn a_token_revoked_mid_connection_is_refused_on_the_next_request() {
    let mut pair = Pair::negotiated(5);
    let (id, token) = pair.enrol(Scope::full_lifecycle(ToolScope::All), HOUR);
    response(pair.request(1, w(Verb::Status), &token, "claude-code"));
    assert_eq!(pair.backend.calls(Verb::Status), 1);
    pair.book.revoke(&id).unwrap();
    assert_token_denied(
        &mut pair,
        &token,
        DenyCode::Unauthenticated,
        AuthFailureReason::Unknown,
    );
    assert_eq!(pair.backend.calls(Verb::Status), 1);
}

#[test]
fn a_read_only_token_attempting_apply_repair_or_remove_is_out_of_scope() {
    let mut pair = Pair::negotiated(5);
    let (id, token) = pair.enrol(Scope::read_only(ToolScope::All), HOUR);
    for verb in [
        Verb::Apply,
        Verb::Repair,
        Verb::Remove,
        Verb::Plan,
        Verb::ApprovalRelay,
    ] {
        let d = denied(pair.request(3, w(verb), &token, "claude-code"));
        assert_denied(&d, 3, DenyCode::OutOfScope);
        assert_eq!(
            auth_reason(pair.last_audit()),
            Some(AuthFailureReason::OutOfScope)
        );
        assert_eq!(pair.last_audit().token_id.as_ref(), Some(&id));
    }
    assert_eq!(pair.backend.total_calls(), 0);
    // What the scope does cover is answered.
    for verb in [
        Verb::ListTools,
        Verb::Status,
        Verb::Verify,
        Verb::ScopedEvents,
    ] {
        response(pair.request(4, w(verb), &token, "claude-code"));
    }
    assert_eq!(pair.backend.total_calls(), 4);
}

#[test]
fn a_token_scoped_to_one_tool_is_out_of_scope_on_another() {
    let mut pair = Pair::negotiated(5);
    let (_, token) = pair.enrol(
        Scope::full_lifecycle(ToolScope::only(["claude-code"])),
        HOUR,
    );
    let d = denied(pair.request(8, w(Verb::Status), &token, "codex"));
    assert_denied(&d, 8, DenyCode::OutOfScope);
    assert_eq!(
        auth_reason(pair.last_audit()),
        Some(AuthFailureReason::OutOfScope)
    );
    assert_eq!(pair.backend.total_calls(), 0);
    response(pair.request(9, w(Verb::Status), &token, "claude-code"));
    // list_tools is the one verb exempt from the tool check.
    response(pair.request(10, w(Verb::ListTools), &token, ""));
    assert_eq!(pair.backend.total_calls(), 2);
}

#[test]
fn a_v2_verb_at_v1_is_unavailable_only_after_a_good_token() {
    let mut pair = Pair::negotiated(1);
    let token = pair.full_token();
    for verb in [Verb::ScopedEvents, Verb::ApprovalRelay] {
        let d = denied(pair.request(11, w(verb), &token, "claude-code"));
        assert_denied(&d, 11, DenyCode::UnavailableAtVersion);
        assert!(
            d.remediation.contains('2'),
            "names version 2: {}",
            d.remediation
        );
        assert!(matches!(
            pair.last_audit().kind,
            AuditKind::UnavailableAtVersion
        ));
        // An unauthenticated caller learns nothing about the verb space.
        let d = denied(pair.request(12, w(verb), "", "claude-code"));
        assert_denied(&d, 12, DenyCode::Unauthenticated);
        let d = denied(pair.request(13, w(verb), &"0".repeat(64), "claude-code"));
        assert_denied(&d, 13, DenyCode::Unauthenticated);
    }
    assert_eq!(pair.backend.total_calls(), 0);
    // At v2 the same request is answered.
    let mut pair = Pair::negotiated(2);
    let token = pair.full_token();
    response(pair.request(14, w(Verb::ScopedEvents), &token, "claude-code"));
    assert_eq!(pair.backend.calls(Verb::ScopedEvents), 1);
}

#[test]
fn an_unknown_tool_is_denied_after_the_token_and_version_checks() {
    let mut pair = Pair::negotiated(5);
    let token = pair.full_token();
    for tool in ["windsurf-cascade", "Not A Tool", ""] {
        let d = denied(pair.request(15, w(Verb::Status), &token, tool));
        assert_denied(&d, 15, DenyCode::UnknownTool);
    }
    // Out of scope outranks unknown tool.
    let (_, narrow) = pair.enrol(Scope::full_lifecycle(ToolScope::only(["codex"])), HOUR);
    let d = denied(pair.request(16, w(Verb::Status), &narrow, "windsurf-cascade"));
    assert_denied(&d, 16, DenyCode::OutOfScope);
    assert_eq!(pair.backend.total_calls(), 0);
}

#[test]
fn responses_and_denials_echo_the_request_id() {
    let mut pair = Pair::negotiated(5);
    let token = pair.full_token();
    for id in [0, 1, 77, u64::MAX] {
        let r = response(pair.request(id, w(Verb::ListTools), &token, ""));
        assert_eq!(r.request_id, id);
        let d = denied(pair.request(id, w(Verb::Status), "", "claude-code"));
        assert_eq!(d.request_id, id);
    }
}

#[test]
fn every_verb_is_answered_with_exactly_its_own_view() {
    let mut pair = Pair::negotiated(5);
    let token = pair.full_token();
    for (i, verb) in Verb::ALL.into_iter().enumerate() {
        let frame = pair.request(i as u64 + 1, w(verb), &token, "claude-code");
        let r = match frame {
            ServerFrame::Response(r) => r,
            // The test backend keeps no approvals and refuses some; still one frame.
            ServerFrame::Denied(d) => panic!("{verb}: {d:?}"),
            other => panic!("{verb}: {other:?}"),
        };
        assert_eq!(r.request_id, i as u64 + 1);
        assert_eq!(r.verb, w(verb));
        // spec §6: exactly one view, the verb's own; the client's parser checks both.
        let result = VerbResult::from_response(verb, &r, MAX_SUPPORTED)
            .unwrap_or_else(|e| panic!("{verb}: {e}"));
        assert_eq!(result.verb(), verb);
        assert_eq!(pair.backend.calls(verb), 1);
    }
}

#[test]
fn no_denial_ever_contains_the_presented_token() {
    let mut pair = Pair::negotiated(1);
    let (id, token) = pair.enrol(Scope::read_only(ToolScope::only(["claude-code"])), 60);
    let upper = token.to_uppercase();
    let mut denials = vec![
        denied(pair.request(1, 42, &token, "claude-code")),
        denied(pair.request(2, w(Verb::Apply), &token, "claude-code")),
        denied(pair.request(3, w(Verb::Status), &token, "codex")),
        denied(pair.request(4, w(Verb::ScopedEvents), &token, "claude-code")),
        denied(pair.request(5, w(Verb::Status), &upper, "claude-code")),
        denied(pair.request(6, w(Verb::Status), &token[..63], "claude-code")),
    ];
    pair.now = pair.now.saturating_add(Duration::from_secs(HOUR));
    denials.push(denied(pair.request(
        7,
        w(Verb::Status),
        &token,
        "claude-code",
    )));
    pair.book.revoke(&id).unwrap();
    denials.push(denied(pair.request(
        8,
        w(Verb::Status),
        &token,
        "claude-code",
    )));
    denials.push(denied(pair.hello(&[1], &[1])));
    for d in &denials {
        for text in [&d.message, &d.remediation] {
            assert!(!text.contains(&token[..16]), "token echoed: {d:?}");
            assert!(
                !text.to_lowercase().contains(&token[..16]),
                "token echoed: {d:?}"
            );
        }
    }
    // Nor any audit record.
    for e in &pair.audit {
        let json = e.to_json().unwrap();
        assert!(
            !json.to_lowercase().contains(&token[..16]),
            "token in audit: {json}"
        );
    }
    assert_eq!(pair.backend.total_calls(), 0);
}

#[test]
fn a_denial_leaves_the_connection_usable_for_the_next_request() {
    let mut pair = Pair::negotiated(5);
    let token = pair.full_token();
    denied(pair.request(1, w(Verb::Status), "", "claude-code"));
    denied(pair.request(2, 0, &token, "claude-code"));
    response(pair.request(3, w(Verb::Status), &token, "claude-code"));
    assert_eq!(pair.backend.total_calls(), 1);
}

// ---- the client core ----

fn client_pair(versions: &[u32]) -> (Pair, Client<devint::session::client::Authorized>) {
    let mut pair = Pair::new();
    let token = pair.full_token();
    let (client, hello) = Client::with_versions("ide", "1", versions.iter().copied()).hello();
    let client = client
        .on_frame(pair.send(ClientFrame::Hello(hello)).unwrap())
        .unwrap();
    (pair, client.authorize(TokenSecret::parse(&token).unwrap()))
}

#[test]
fn a_client_round_trip_lists_tools() {
    let (mut pair, mut client) = client_pair(&[1, 2, 3, 4, 5]);
    let (pending, req) = client.list_tools().unwrap();
    assert_eq!(pending.request_id, 1);
    let frame = pair.send(req.frame().clone()).unwrap();
    let result = client.on_frame(pending, frame).unwrap();
    assert!(matches!(result, VerbResult::ListTools(ref l) if l.tools.len() == 2));
    let (pending, req) = client.status(ToolId::parse("codex").unwrap()).unwrap();
    assert_eq!(pending.request_id, 2);
    let frame = pair.send(req.frame().clone()).unwrap();
    assert!(matches!(
        client.on_frame(pending, frame).unwrap(),
        VerbResult::Status(_)
    ));
}

#[test]
fn a_verb_unavailable_at_v1_fails_locally_without_writing_a_frame() {
    let (_pair, mut client) = client_pair(&[1]);
    let tool = ToolId::parse("claude-code").unwrap();
    let err = client
        .scoped_events(tool.clone(), 1, UnixSecs::EPOCH)
        .unwrap_err();
    assert_eq!(
        err,
        ClientError::UnavailableLocally {
            verb: Verb::ScopedEvents,
            version: ApiVersion::new(1),
            first: ApiVersion::new(2)
        }
    );
    let approval = devint::verbs::ApprovalId::parse("fedcba9876543210fedcba9876543210").unwrap();
    assert!(matches!(
        client.approval_relay(tool, approval, devint::verbs::UserInput::Approve),
        Err(ClientError::UnavailableLocally { .. })
    ));
    // No request was written: the next one still gets the first request id.
    let (pending, _) = client.list_tools().unwrap();
    assert_eq!(pending.request_id, 1);
}

#[test]
fn a_response_to_another_request_id_is_a_protocol_error() {
    let (mut pair, mut client) = client_pair(&[5]);
    let (pending, req) = client.list_tools().unwrap();
    let mut r = response(pair.send(req.frame().clone()).unwrap());
    r.request_id += 1;
    assert!(matches!(
        client.on_frame(pending, ServerFrame::Response(r)),
        Err(ClientError::Protocol(_))
    ));
}

#[test]
fn a_response_for_another_verb_is_a_protocol_error() {
    let (mut pair, mut client) = client_pair(&[5]);
    let (pending, req) = client.list_tools().unwrap();
    let mut r = response(pair.send(req.frame().clone()).unwrap());
    r.verb = w(Verb::Status);
    assert!(matches!(
        client.on_frame(pending, ServerFrame::Response(r)),
        Err(ClientError::Response(ResponseError::VerbMismatch {
            expected: Verb::ListTools,
            ..
        }))
    ));
}

#[test]
fn a_hello_ack_naming_a_version_the_client_did_not_offer_is_refused() {
    let mut pair = Pair::new();
    let a = pair.hello(&[5], &[1]);
    let (client, _) = Client::with_versions("ide", "1", [1, 2]).hello();
    assert!(matches!(client.on_frame(a), Err(ClientError::Protocol(_))));
}

#[test]
fn a_denial_reaches_the_client_as_denied_with_its_code() {
    let (mut pair, mut client) = client_pair(&[5]);
    let (pending, req) = client
        .status(ToolId::parse("windsurf-cascade").unwrap())
        .unwrap();
    let frame = pair.send(req.frame().clone()).unwrap();
    assert!(matches!(
        client.on_frame(pending, frame),
        Err(ClientError::Denied {
            code: DenyCode::UnknownTool,
            request_id: 1,
            ..
        })
    ));
    assert_eq!(pair.backend.total_calls(), 0);
}

#[test]
fn an_unreadable_frame_is_a_protocol_violation_and_nothing_follows_the_close() {
    let mut pair = Pair::negotiated(5);
    let mut input: &[u8] = &[9, 0];
    let error = Decoder::<ClientToServer>::new()
        .decode(&mut input)
        .unwrap_err();
    let Step::Reply {
        frame,
        audit,
        close,
    } = pair.server.handle_frame_error(&error, pair.now)
    else {
        panic!("a frame error is answered, not dispatched");
    };
    assert!(close);
    assert_denied(&denied(frame.unwrap()), 0, DenyCode::ProtocolViolation);
    assert!(matches!(audit[0].kind, AuditKind::FrameRefused { .. }));
    // A second error on the closed connection writes and audits nothing.
    let Step::Reply {
        frame,
        audit,
        close,
    } = pair.server.handle_frame_error(&error, pair.now)
    else {
        panic!("a closed connection dispatches nothing");
    };
    assert!(close && frame.is_none() && audit.is_empty());
    assert_eq!(pair.backend.total_calls(), 0);
}

/// A sentence the backend refused goes out as its placeholder and is audited once, from the
/// refusal the sentence carries; text that merely reads like the placeholder is not a
/// refusal (the server no longer searches the encoded response for the words).
#[test]
fn a_sentence_the_backend_refused_is_audited_and_never_sent() {
    let refusals = |pair: &Pair| {
        pair.audit
            .iter()
            .filter(|e| matches!(e.kind, AuditKind::SentenceRefused))
            .map(|e| e.request_id)
            .collect::<Vec<_>>()
    };
    let mut pair = Pair::negotiated(5);
    let token = pair.full_token();
    response(pair.request(1, w(Verb::ListTools), &token, ""));
    assert!(refusals(&pair).is_empty());

    let key = "sk-ant-api03-Zq8xV2mN4pL7rT1wY6bK3hJ9cF5dG0sA";
    pair.backend.set_display_name(key);
    let r = response(pair.request(2, w(Verb::ListTools), &token, ""));
    let names: Vec<&str> = r
        .tool_list
        .as_ref()
        .unwrap()
        .tools
        .iter()
        .map(|t| t.display_name.as_str())
        .collect();
    assert!(!names.is_empty());
    assert!(
        names
            .iter()
            .all(|n| *n == devint::verbs::CREDENTIAL_PLACEHOLDER),
        "{names:?}"
    );
    let bytes = encode(&ServerFrame::Response(r)).unwrap();
    assert!(
        !bytes.windows(key.len()).any(|w| w == key.as_bytes()),
        "the key reached the wire"
    );
    assert_eq!(
        refusals(&pair),
        [Some(2)],
        "one audit record for the refusing response"
    );
    let event = pair
        .audit
        .iter()
        .find(|e| matches!(e.kind, AuditKind::SentenceRefused))
        .unwrap();
    assert_eq!(event.verb, Some(Verb::ListTools));
    assert!(event.token_id.is_some());

    pair.backend
        .set_display_name(devint::verbs::CREDENTIAL_PLACEHOLDER);
    response(pair.request(3, w(Verb::ListTools), &token, ""));
    assert_eq!(
        refusals(&pair),
        [Some(2)],
        "the placeholder's words alone are no refusal"
    );
}
