//! Property tests for `session`: for any sequence of client actions (Hellos of any offer,
//! requests with every kind of token × verb × tool, second Hellos), the server's observable
//! behaviour — frame kind, deny code, request id, closed or not — matches a small reference
//! model of spec §5–§6 written here, and the backend is called once per `Response` and
//! never otherwise. Needs the `test-support` feature (`cargo test --all-features`).
#![cfg(feature = "test-support")]

use std::time::Duration;

use devint::auth::{ClientName, LiveBook, Scope, ToolScope};
use devint::peer::PeerVerified;
use devint::session::{AnyConnection, Connection, ServerEnv, Step};
use devint::testing::CountingBackend;
use devint::time::UnixSecs;
use devint::wire::{encode, pb, ClientFrame, ClientToServer, Decoder, ServerFrame};
use proptest::prelude::*;

const NOW: UnixSecs = UnixSecs::new(1_700_000_000);
const TOOLS: [&str; 3] = ["claude-code", "codex", "windsurf-cascade"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenKind {
    Full,
    ReadOnlyClaude,
    Absent,
    Malformed,
    Uppercase,
    Unknown,
    Expired,
    Revoked,
}

#[derive(Debug, Clone)]
enum Action {
    Hello {
        versions: Vec<u32>,
        schema_ok: bool,
    },
    Request {
        id: u64,
        verb: i32,
        token: TokenKind,
        tool: usize,
    },
}

fn token_kind() -> impl Strategy<Value = TokenKind> {
    prop_oneof![
        4 => Just(TokenKind::Full),
        2 => Just(TokenKind::ReadOnlyClaude),
        1 => Just(TokenKind::Absent),
        1 => Just(TokenKind::Malformed),
        1 => Just(TokenKind::Uppercase),
        1 => Just(TokenKind::Unknown),
        1 => Just(TokenKind::Expired),
        1 => Just(TokenKind::Revoked),
    ]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        1 => (prop::collection::vec(0u32..8, 0..4), prop::bool::weighted(0.9))
            .prop_map(|(versions, schema_ok)| Action::Hello { versions, schema_ok }),
        4 => (any::<u64>(), prop_oneof![1 => Just(0), 8 => 1i32..=9, 1 => Just(42), 1 => Just(1_000_000)], token_kind(), 0..TOOLS.len())
            .prop_map(|(id, verb, token, tool)| Action::Request { id, verb, token, tool }),
    ]
}

/// What an observer of the socket sees after one action.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    Nothing,
    HelloAck { version: u32 },
    Incompatible,
    Response { id: u64, verb: i32 },
    Denied { id: u64, code: pb::DenyCode },
}

/// The reference model: spec §5 and §6, nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Model {
    Unauthenticated,
    Negotiated(u32),
    Closed,
}

impl Model {
    fn step(&mut self, action: &Action) -> Seen {
        use pb::DenyCode::*;
        match (*self, action) {
            (Model::Closed, _) => Seen::Nothing,
            (
                Model::Unauthenticated,
                Action::Hello {
                    versions,
                    schema_ok,
                },
            ) => {
                // Rules 2–4: an empty offer, an empty intersection or a schema mismatch.
                match versions
                    .iter()
                    .copied()
                    .filter(|v| (1..=5).contains(v))
                    .max()
                {
                    Some(version) if *schema_ok => {
                        *self = Model::Negotiated(version);
                        Seen::HelloAck { version }
                    }
                    _ => {
                        *self = Model::Closed;
                        Seen::Incompatible
                    }
                }
            }
            // Rule 1 and rule 7: protocol violations, request id 0, then close.
            (Model::Unauthenticated, Action::Request { .. })
            | (Model::Negotiated(_), Action::Hello { .. }) => {
                *self = Model::Closed;
                Seen::Denied {
                    id: 0,
                    code: ProtocolViolation,
                }
            }
            (
                Model::Negotiated(version),
                Action::Request {
                    id,
                    verb,
                    token,
                    tool,
                },
            ) => {
                let id = *id;
                let deny = |code| Seen::Denied { id, code };
                if !(1..=9).contains(verb) {
                    return deny(UnknownVerb);
                }
                let tool = TOOLS[*tool];
                match token {
                    TokenKind::Absent
                    | TokenKind::Malformed
                    | TokenKind::Uppercase
                    | TokenKind::Unknown
                    | TokenKind::Revoked => return deny(Unauthenticated),
                    TokenKind::Expired => return deny(TokenExpired),
                    TokenKind::Full => {}
                    TokenKind::ReadOnlyClaude => {
                        // read_only = {list_tools, status, verify, scoped_events}.
                        let verb_ok = matches!(verb, 1 | 4 | 5 | 8);
                        let tool_ok = *verb == 1 || tool == "claude-code";
                        if !(verb_ok && tool_ok) {
                            return deny(OutOfScope);
                        }
                    }
                }
                if *verb >= 8 && version < 2 {
                    return deny(UnavailableAtVersion);
                }
                if *verb != 1 && !["claude-code", "codex"].contains(&tool) {
                    return deny(UnknownTool);
                }
                Seen::Response { id, verb: *verb }
            }
        }
    }
}

struct Server {
    conn: AnyConnection,
    decoder: Decoder<ClientToServer>,
    backend: CountingBackend,
    book: LiveBook,
    tokens: Tokens,
}

struct Tokens {
    full: String,
    read_only: String,
    expired: String,
    revoked: String,
}

impl Server {
    fn new() -> Server {
        let book = LiveBook::default();
        let name = || ClientName::parse("prop-ide").unwrap();
        let hour = Duration::from_secs(3600);
        let issue = |scope, ttl, at| {
            let (id, secret) = book.issue(name(), scope, ttl, at).unwrap();
            (id, secret.expose_secret_hex().to_string())
        };
        let (_, full) = issue(Scope::full_lifecycle(ToolScope::All), hour, NOW);
        let (_, read_only) = issue(
            Scope::read_only(ToolScope::only(["claude-code"])),
            hour,
            NOW,
        );
        let (_, expired) = issue(
            Scope::full_lifecycle(ToolScope::All),
            Duration::from_secs(10),
            NOW.saturating_sub(Duration::from_secs(100)),
        );
        let (revoked_id, revoked) = issue(Scope::full_lifecycle(ToolScope::All), hour, NOW);
        book.revoke(&revoked_id).unwrap();
        Server {
            conn: AnyConnection::new(Connection::new(PeerVerified::for_tests(1000), 1)),
            decoder: Decoder::new(),
            backend: CountingBackend::default(),
            book,
            tokens: Tokens {
                full,
                read_only,
                expired,
                revoked,
            },
        }
    }

    fn token(&self, kind: TokenKind) -> String {
        match kind {
            TokenKind::Full => self.tokens.full.clone(),
            TokenKind::ReadOnlyClaude => self.tokens.read_only.clone(),
            TokenKind::Absent => String::new(),
            TokenKind::Malformed => "nope".into(),
            TokenKind::Uppercase => self.tokens.full.to_uppercase(),
            TokenKind::Unknown => "ab".repeat(32),
            TokenKind::Expired => self.tokens.expired.clone(),
            TokenKind::Revoked => self.tokens.revoked.clone(),
        }
    }

    fn frame(&self, action: &Action) -> ClientFrame {
        match action {
            Action::Hello {
                versions,
                schema_ok,
            } => ClientFrame::Hello(pb::Hello {
                client_name: "prop".into(),
                client_version: "1".into(),
                di_api_versions: versions.clone(),
                lifecycle_schema_versions: if *schema_ok { vec![1] } else { vec![2] },
            }),
            Action::Request {
                id,
                verb,
                token,
                tool,
            } => ClientFrame::Request(pb::Request {
                request_id: *id,
                verb: *verb,
                capability_token: self.token(*token),
                tool_id: TOOLS[*tool].into(),
                plan: Some(pb::PlanArgs {
                    profile: "recommended".into(),
                    settings_scope: "user".into(),
                    ..Default::default()
                }),
                apply: Some(pb::ApplyArgs {
                    plan_id: "0123456789abcdef0123456789abcdef".into(),
                }),
                remove: None,
                events: None,
                approval: Some(pb::ApprovalRelayArgs {
                    approval_id: "fedcba9876543210fedcba9876543210".into(),
                    user_input: "defer".into(),
                }),
            }),
        }
    }

    /// One action through the real codec; what the socket would carry, and whether closed.
    fn step(&mut self, action: &Action) -> Seen {
        let bytes = encode(&self.frame(action)).unwrap();
        let mut input = bytes.as_slice();
        let frame = self.decoder.decode(&mut input).unwrap().unwrap();
        let provenance = pb::RuntimeProvenance::default;
        let env = ServerEnv {
            resolver: &self.book,
            backend: &self.backend,
            core_version: "0.1.0",
            provenance: &provenance,
        };
        let out = match self.conn.handle(frame, &env, NOW) {
            Step::Reply { frame, .. } => frame,
            Step::Dispatch(d) => Some(d.run(&self.backend, NOW).frame.into_frame()),
        };
        match out {
            None => Seen::Nothing,
            Some(ServerFrame::HelloAck(a)) => Seen::HelloAck {
                version: a.di_api_version,
            },
            Some(ServerFrame::Incompatible(_)) => Seen::Incompatible,
            Some(ServerFrame::Response(r)) => Seen::Response {
                id: r.request_id,
                verb: r.verb,
            },
            Some(ServerFrame::Denied(d)) => Seen::Denied {
                id: d.request_id,
                code: pb::DenyCode::try_from(d.code).expect("a known deny code"),
            },
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_server_behaves_like_the_reference_model_of_spec_5_and_6(
        actions in prop::collection::vec(action(), 1..24),
        negotiate_first in prop_oneof![1 => Just(None), 4 => (1u32..=5).prop_map(Some)],
    ) {
        let mut server = Server::new();
        let mut model = Model::Unauthenticated;
        let mut responses = 0;
        let opening = negotiate_first.map(|v| Action::Hello { versions: vec![v], schema_ok: true });
        for action in opening.iter().chain(actions.iter()) {
            let expected = model.step(action);
            let seen = server.step(action);
            prop_assert_eq!(&seen, &expected, "action {:?}", action);
            prop_assert_eq!(server.conn.is_closed(), model == Model::Closed);
            if matches!(seen, Seen::Response { .. }) {
                responses += 1;
            }
            prop_assert_eq!(server.backend.total_calls(), responses);
        }
    }
}
