//! Invariant checks over the session core, shared by the cargo-fuzz targets
//! `session_server` and `session_client` in `fuzz/` and the corpus replay in
//! `tests/fuzz_replay.rs`. Compiled only under `cfg(test)` or the `test-support` feature.
//!
//! This module owns what "a connection keeps its rules on arbitrary input" means, stated as
//! code that panics on a violation. It must never be called on a live connection.
//!
//! Invariants checked after every step of [`server_sequence`]:
//! - nothing panics;
//! - the backend is called exactly once per admitted request and never otherwise
//!   (dispatches counted against the [`CountingBackend`]'s calls), and an admitted request
//!   carried an enrolled, unrevoked, unexpired token whose scope covers it;
//! - at most one `HelloAck` or `Incompatible` per connection;
//! - every `Denied` has a code in 1..=8, a non-empty remediation, `request_id` 0 for a
//!   protocol violation (the request's id otherwise), and never contains a presented
//!   secret-shaped token;
//! - every `Response` echoes its request's id and verb and sets exactly one view;
//! - no frame after the connection closed;
//! - every frame the server writes encodes and decodes back to itself.

use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};

use crate::auth::{ClientName, EnrolmentRecord, LiveBook, Scope, TokenSecret, ToolScope};
use crate::peer::PeerVerified;
use crate::session::client::Client;
use crate::session::{AnyConnection, Connection, ServerEnv, Step};
use crate::testing::CountingBackend;
use crate::time::UnixSecs;
use crate::verbs::{ToolId, Verb, VerbCall, VerbResult};
use crate::wire::{encode, pb, ClientFrame, ClientToServer, Decoder, ServerFrame, ServerToClient};

/// The clock the fuzzed connection starts at.
const START: UnixSecs = UnixSecs::new(1_700_000_000);
/// The known tokens' lifetime.
const TTL: u64 = 600;
/// Tool ids the actions pick from: two the backend knows, one it does not, one malformed.
const TOOLS: [&str; 5] = ["claude-code", "codex", "windsurf-cascade", "Not A Tool", ""];

/// Which token a request presents.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum TokenPick {
    /// The full-lifecycle token on every tool.
    Full,
    /// The read-only token on `claude-code` only.
    ReadOnly,
    /// No token.
    Absent,
    /// The full token in uppercase (malformed).
    Uppercase,
    /// Not hex.
    Garbage,
    /// 64 hex characters never enrolled.
    Unknown([u8; 32]),
}

/// One thing a client (or the network) does to the server.
#[derive(Debug, Arbitrary)]
enum Action {
    /// A `Hello` offering small versions (the interesting range).
    Hello { versions: Vec<u8>, schemas: Vec<u8> },
    /// A `Hello` offering any versions.
    HelloWide {
        versions: Vec<u32>,
        schemas: Vec<u32>,
    },
    /// A request with well-formed arguments for a valid verb.
    Request {
        verb: u8,
        token: TokenPick,
        tool: u8,
        id: u64,
    },
    /// A request with an arbitrary verb number and tool text.
    WildRequest {
        verb: i32,
        token: TokenPick,
        tool: String,
        id: u64,
    },
    /// Raw bytes straight into the server's decoder.
    Raw(Vec<u8>),
    /// The clock moves on.
    Advance(u16),
    /// The full token is revoked.
    RevokeFull,
    /// The handshake or idle timeout fires.
    Timeout,
}

struct Tokens {
    full_hex: String,
    read_only_hex: String,
    full: EnrolmentRecord,
    read_only: EnrolmentRecord,
    full_revoked: bool,
}

impl Tokens {
    fn hex(&self, pick: TokenPick) -> String {
        match pick {
            TokenPick::Full => self.full_hex.clone(),
            TokenPick::ReadOnly => self.read_only_hex.clone(),
            TokenPick::Absent => String::new(),
            TokenPick::Uppercase => self.full_hex.to_uppercase(),
            TokenPick::Garbage => "not-a-token".into(),
            TokenPick::Unknown(bytes) => hex::encode(bytes),
        }
    }

    /// The record a presented token resolves to, if it is enrolled and unrevoked.
    fn live_record(&self, token: &str) -> Option<&EnrolmentRecord> {
        if token == self.full_hex && !self.full_revoked {
            Some(&self.full)
        } else if token == self.read_only_hex {
            Some(&self.read_only)
        } else {
            None
        }
    }
}

/// A request with arguments that fit `verb` (so only the §6 checks decide).
fn well_formed_request(id: u64, verb: i32, token: &str, tool: &str) -> pb::Request {
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
        remove: None,
        events: Some(pb::ScopedEventsArgs {
            limit: 10,
            since_unix_secs: 0,
        }),
        approval: Some(pb::ApprovalRelayArgs {
            approval_id: "fedcba9876543210fedcba9876543210".into(),
            user_input: "approve".into(),
        }),
    }
}

/// What the harness remembers about one request the server decoded. Taken from the decoded
/// frame, never from what the harness meant to send: a `Raw` chunk can hold a whole request
/// (or finish one an earlier chunk began), and the oracle must judge what the server saw.
struct Sent {
    id: u64,
    token: String,
    verb: i32,
    tool: String,
}

impl Sent {
    fn of(request: &pb::Request) -> Sent {
        Sent {
            id: request.request_id,
            token: request.capability_token.clone(),
            verb: request.verb,
            tool: request.tool_id.clone(),
        }
    }

    /// Whether the presented token has a secret's shape (64 hex digits, any case), so that
    /// finding it in a reply would be a leak. Shorter text a raw chunk presents is no
    /// secret, and may be a word the reply rightly uses.
    fn token_is_secret_shaped(&self) -> bool {
        self.token.len() == 64 && self.token.bytes().all(|b| b.is_ascii_hexdigit())
    }
}

struct ServerRig {
    conn: AnyConnection,
    decoder: Decoder<ClientToServer>,
    backend: CountingBackend,
    book: LiveBook,
    tokens: Tokens,
    now: UnixSecs,
    closed: bool,
    negotiations: usize,
    dispatches: usize,
    /// (frame tag, deny code) pairs seen, for choosing seeds.
    seen: std::collections::BTreeSet<(u8, i32)>,
}

impl ServerRig {
    fn new() -> ServerRig {
        let book = LiveBook::default();
        let name = ClientName::parse("fuzz-ide").expect("valid client name");
        let full_secret = TokenSecret::from_bytes([0x5a; 32]);
        let ro_secret = TokenSecret::from_bytes([0xa5; 32]);
        let ttl = Duration::from_secs(TTL);
        let full_id = book
            .issue_with_secret(
                name.clone(),
                Scope::full_lifecycle(ToolScope::All),
                ttl,
                START,
                &full_secret,
            )
            .expect("enrol full token");
        let ro_id = book
            .issue_with_secret(
                name,
                Scope::read_only(ToolScope::only(["claude-code"])),
                ttl,
                START,
                &ro_secret,
            )
            .expect("enrol read-only token");
        let records = book.list();
        let find = |id| {
            records
                .iter()
                .find(|r| r.token_id() == id)
                .cloned()
                .expect("record just issued")
        };
        let tokens = Tokens {
            full_hex: full_secret.expose_secret_hex().to_string(),
            read_only_hex: ro_secret.expose_secret_hex().to_string(),
            full: find(&full_id),
            read_only: find(&ro_id),
            full_revoked: false,
        };
        ServerRig {
            conn: AnyConnection::new(Connection::new(PeerVerified::for_tests(1000), 1)),
            decoder: Decoder::new(),
            backend: CountingBackend::default(),
            book,
            tokens,
            now: START,
            closed: false,
            negotiations: 0,
            dispatches: 0,
            seen: Default::default(),
        }
    }

    fn act(&mut self, action: Action) {
        match action {
            Action::Hello { versions, schemas } => self.send_hello(
                versions.into_iter().map(|v| u32::from(v % 8)).collect(),
                schemas.into_iter().map(|v| u32::from(v % 3)).collect(),
            ),
            Action::HelloWide { versions, schemas } => self.send_hello(versions, schemas),
            Action::Request {
                verb,
                token,
                tool,
                id,
            } => {
                let verb = i32::from(verb % 9) + 1;
                let tool = TOOLS[usize::from(tool) % TOOLS.len()];
                let token = self.tokens.hex(token);
                self.send_request(well_formed_request(id, verb, &token, tool));
            }
            Action::WildRequest {
                verb,
                token,
                tool,
                id,
            } => {
                let token = self.tokens.hex(token);
                self.send_request(well_formed_request(id, verb, &token, &tool));
            }
            Action::Raw(bytes) => self.feed(&bytes),
            Action::Advance(secs) => {
                self.now = self
                    .now
                    .saturating_add(Duration::from_secs(u64::from(secs)))
            }
            Action::RevokeFull => {
                if !self.tokens.full_revoked {
                    self.book
                        .revoke(self.tokens.full.token_id())
                        .expect("revoke the enrolled token");
                    self.tokens.full_revoked = true;
                }
            }
            Action::Timeout => {
                let step = self.conn.handle_timeout(self.now);
                self.check_step(step, None);
            }
        }
        self.check_counts();
    }

    fn send_hello(&mut self, versions: Vec<u32>, schemas: Vec<u32>) {
        let frame = ClientFrame::Hello(pb::Hello {
            client_name: "fuzz".into(),
            client_version: "0".into(),
            di_api_versions: versions,
            lifecycle_schema_versions: schemas,
        });
        if let Ok(bytes) = encode(&frame) {
            self.feed(&bytes);
        }
    }

    fn send_request(&mut self, request: pb::Request) {
        if let Ok(bytes) = encode(&ClientFrame::Request(request)) {
            self.feed(&bytes);
        }
    }

    /// Bytes into the decoder; every frame or error out of it into the connection. Each
    /// request is judged by what the decoder made of the bytes, whoever built them.
    fn feed(&mut self, mut input: &[u8]) {
        loop {
            let step = match self.decoder.decode(&mut input) {
                Ok(Some(frame)) => {
                    let sent = match &frame {
                        ClientFrame::Request(r) => Some(Sent::of(r)),
                        ClientFrame::Hello(_) => None,
                    };
                    let step = self.handle(frame);
                    self.check_step(step, sent.as_ref());
                    continue;
                }
                Ok(None) => return,
                Err(error) => self.conn.handle_frame_error(&error, self.now),
            };
            self.check_step(step, None);
            return;
        }
    }

    fn handle(&mut self, frame: ClientFrame) -> Step {
        let provenance = || pb::RuntimeProvenance::default();
        let env = ServerEnv {
            resolver: &self.book,
            backend: &self.backend,
            core_version: "0.1.0",
            provenance: &provenance,
        };
        self.conn.handle(frame, &env, self.now)
    }

    fn check_step(&mut self, step: Step, sent: Option<&Sent>) {
        match step {
            Step::Reply { frame, close, .. } => {
                if let Some(frame) = frame {
                    assert!(!self.closed, "a frame was written after close: {frame:?}");
                    self.check_frame(&frame, sent);
                }
                if close {
                    self.closed = true;
                }
                assert_eq!(
                    self.conn.is_closed(),
                    self.closed,
                    "close flag and state agree"
                );
            }
            Step::Dispatch(dispatch) => {
                assert!(!self.closed, "a request was admitted after close");
                let sent = sent.expect("only a request the harness sent can be admitted");
                let verb = Verb::from_wire(sent.verb).expect("an admitted verb is 1..9");
                let record = self
                    .tokens
                    .live_record(&sent.token)
                    .expect("only an enrolled, unrevoked token is admitted");
                assert!(
                    !record.is_expired(self.now),
                    "an expired token was admitted"
                );
                assert!(
                    record.scope().covers(verb, &sent.tool),
                    "a token was admitted outside its scope"
                );
                let version = self
                    .conn
                    .version()
                    .expect("admitted on a negotiated connection");
                assert!(
                    verb.rule().first_version <= version,
                    "a verb was admitted below its version"
                );
                assert_eq!(dispatch.request_id(), sent.id);
                self.dispatches += 1;
                let answer = dispatch.run(&self.backend, self.now);
                // A reply written without prost's structs is byte-identical to prost's.
                let written = encode(&answer.frame).expect("a reply encodes");
                let frame = answer.frame.into_frame();
                assert_eq!(
                    written,
                    encode(&frame).expect("a server frame encodes"),
                    "a reply's direct encoding differs from prost's"
                );
                self.check_frame(&frame, Some(sent));
                if let ServerFrame::Response(response) = &frame {
                    VerbResult::from_response(verb, response, version)
                        .expect("a response echoes its verb and sets exactly its one view");
                }
            }
        }
    }

    fn check_frame(&mut self, frame: &ServerFrame, sent: Option<&Sent>) {
        // Every frame written encodes and decodes back to itself.
        let bytes = encode(frame).expect("a server frame encodes");
        let mut input = bytes.as_slice();
        let back = Decoder::<ServerToClient>::new()
            .decode(&mut input)
            .expect("a server frame decodes")
            .expect("a whole frame");
        assert_eq!(&back, frame);
        let code = match frame {
            ServerFrame::Denied(d) => d.code,
            _ => 0,
        };
        self.seen.insert((bytes[0], code));
        match frame {
            ServerFrame::HelloAck(_) | ServerFrame::Incompatible(_) => {
                self.negotiations += 1;
                assert_eq!(self.negotiations, 1, "at most one HelloAck/Incompatible");
            }
            ServerFrame::Denied(d) => {
                assert!(
                    (1..=8).contains(&d.code),
                    "deny code {} outside 1..=8",
                    d.code
                );
                assert!(!d.remediation.is_empty(), "a Denied without remediation");
                if d.code == pb::DenyCode::ProtocolViolation as i32 {
                    assert_eq!(d.request_id, 0, "protocol violations carry request id 0");
                } else {
                    let sent = sent.expect("a request-level denial answers a request");
                    assert_eq!(d.request_id, sent.id, "Denied echoes the request id");
                }
                if let Some(sent) = sent {
                    if sent.token_is_secret_shaped() {
                        assert!(!d.message.contains(&sent.token), "token echoed in message");
                        assert!(
                            !d.remediation.contains(&sent.token),
                            "token echoed in remediation"
                        );
                    }
                }
            }
            ServerFrame::Response(r) => {
                let sent = sent.expect("a response answers a request");
                assert_eq!(r.request_id, sent.id);
                assert_eq!(r.verb, sent.verb);
            }
        }
    }

    fn check_counts(&self) {
        // No backend call without an admission, and one call per admission.
        assert_eq!(
            self.backend.total_calls(),
            self.dispatches,
            "backend calls and admitted requests differ"
        );
    }
}

/// Drive one server connection through the actions `data` describes, checking the
/// invariants of this module after every step. Panics on a violation.
pub fn server_sequence(data: &[u8]) {
    run_server(data);
}

fn run_server(data: &[u8]) -> ServerRig {
    let mut u = Unstructured::new(data);
    let mut rig = ServerRig::new();
    while !u.is_empty() {
        let Ok(action) = Action::arbitrary(&mut u) else {
            break;
        };
        rig.act(action);
    }
    rig
}

/// One thing the server (or the network) sends to the client, or the client does.
#[derive(Debug, Arbitrary)]
enum ServerAction {
    /// A `HelloAck` with arbitrary fields.
    Ack {
        outcome: i32,
        version: u32,
        unavailable: Vec<String>,
        provenance: bool,
    },
    /// An `Incompatible`.
    Incompatible { reason: String, min: u32, max: u32 },
    /// A `Denied`.
    Denied { id: u64, code: i32, message: String },
    /// A `Response` with an arbitrary id and verb and at most one default view.
    Response { id: u64, verb: i32, view: u8 },
    /// Raw bytes into the client's decoder.
    Raw(Vec<u8>),
    /// The client writes a request for this verb (by index).
    Call(u8),
}

fn response(id: u64, verb: i32, view: u8) -> pb::Response {
    let mut r = pb::Response {
        request_id: id,
        verb,
        ..Default::default()
    };
    match view % 12 {
        0 => r.tool_list = Some(Default::default()),
        1 => r.plan = Some(Default::default()),
        2 => r.apply = Some(Default::default()),
        3 => r.status = Some(Default::default()),
        4 => r.verification = Some(Default::default()),
        5 => r.repair = Some(Default::default()),
        6 => r.removal = Some(Default::default()),
        7 => r.events = Some(Default::default()),
        8 => r.approval = Some(Default::default()),
        9 => {
            r.tool_list = Some(Default::default());
            r.status = Some(Default::default());
        }
        _ => {}
    }
    r
}

fn sample_call(index: u8) -> VerbCall {
    let tool = ToolId::parse("claude-code").expect("valid tool id");
    match index % 5 {
        0 => VerbCall::ListTools,
        1 => VerbCall::Status { tool },
        2 => VerbCall::Verify { tool },
        3 => VerbCall::ScopedEvents {
            tool,
            limit: 1,
            since: UnixSecs::EPOCH,
        },
        _ => VerbCall::Remove {
            tool,
            plan_id: None,
        },
    }
}

/// Drive the client core with arbitrary server frames (structured and raw). It must never
/// panic, must refuse a `HelloAck` naming a version it did not offer, and must fail a verb
/// unavailable at the negotiated version locally.
pub fn client_frames(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let offered: Vec<u8> = u.arbitrary().unwrap_or_default();
    let offered: Vec<u32> = offered.into_iter().map(|v| u32::from(v % 7)).collect();
    let client = if offered.is_empty() {
        Client::new("fuzz", "0")
    } else {
        Client::with_versions("fuzz", "0", offered.iter().copied())
    };
    let (awaiting, _hello) = client.hello();
    let offered_set: Vec<u32> = if offered.is_empty() {
        (1..=5).collect()
    } else {
        offered
    };
    let mut decoder = Decoder::<ServerToClient>::new();
    // Phase 1: until negotiated (or refused).
    let mut authorized = loop {
        let Ok(action) = ServerAction::arbitrary(&mut u) else {
            return;
        };
        let Some(frame) = server_frame(action, &mut decoder) else {
            continue;
        };
        match awaiting.on_frame(frame.clone()) {
            Ok(negotiated) => {
                let ServerFrame::HelloAck(ack) = frame else {
                    panic!("negotiated on a frame that is not HelloAck");
                };
                assert!(
                    offered_set.contains(&ack.di_api_version),
                    "accepted a version the client did not offer"
                );
                break negotiated.authorize(TokenSecret::from_bytes([0x11; 32]));
            }
            // Refused: the client is consumed; a new one would start over.
            Err(_) => return,
        }
    };
    // Phase 2: requests and answers.
    let mut pending = None;
    while !u.is_empty() {
        let Ok(action) = ServerAction::arbitrary(&mut u) else {
            return;
        };
        if let ServerAction::Call(index) = action {
            let call = sample_call(index);
            match authorized.request(&call) {
                Ok((p, request)) => {
                    assert_eq!(request.request().verb, call.verb().to_wire() as i32);
                    pending = Some(p);
                }
                Err(crate::session::client::ClientError::UnavailableLocally {
                    verb,
                    version,
                    ..
                }) => {
                    assert!(verb.rule().first_version > version);
                }
                Err(e) => panic!("request failed unexpectedly: {e}"),
            }
            continue;
        }
        let Some(frame) = server_frame(action, &mut decoder) else {
            continue;
        };
        if let Some(p) = pending {
            let echoes = matches!(&frame, ServerFrame::Response(r)
                if r.request_id == p.request_id && r.verb == p.verb.to_wire() as i32);
            let result = authorized.on_frame(p, frame.clone());
            if result.is_ok() {
                assert!(echoes, "accepted a response that does not echo its request");
            }
        }
    }
}

/// The frame an action delivers, if any (raw bytes may yield none).
fn server_frame(
    action: ServerAction,
    decoder: &mut Decoder<ServerToClient>,
) -> Option<ServerFrame> {
    Some(match action {
        ServerAction::Ack {
            outcome,
            version,
            unavailable,
            provenance,
        } => ServerFrame::HelloAck(pb::HelloAck {
            outcome,
            di_api_version: version,
            unavailable_verbs: unavailable,
            provenance: provenance.then(Default::default),
            ..Default::default()
        }),
        ServerAction::Incompatible { reason, min, max } => {
            ServerFrame::Incompatible(pb::Incompatible {
                reason,
                remediation: String::new(),
                min_supported: min,
                max_supported: max,
            })
        }
        ServerAction::Denied { id, code, message } => ServerFrame::Denied(pb::Denied {
            request_id: id,
            code,
            message,
            remediation: String::new(),
        }),
        ServerAction::Response { id, verb, view } => {
            ServerFrame::Response(response(id, verb, view))
        }
        ServerAction::Raw(bytes) => {
            let mut input = bytes.as_slice();
            return decoder.decode(&mut input).ok().flatten();
        }
        ServerAction::Call(_) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_small_inputs_keep_the_invariants() {
        server_sequence(&[]);
        client_frames(&[]);
        for seed in 0..=255u8 {
            let data: Vec<u8> = (0..64)
                .map(|i| seed.wrapping_mul(31).wrapping_add(i))
                .collect();
            server_sequence(&data);
            client_frames(&data);
        }
    }

    /// A rig past a successful `Hello` at version 5.
    fn negotiated_rig() -> ServerRig {
        let mut rig = ServerRig::new();
        rig.act(Action::Hello {
            versions: vec![5],
            schemas: vec![1],
        });
        assert!(rig.conn.version().is_some(), "the Hello negotiated");
        rig
    }

    fn raw_request(request: pb::Request) -> Action {
        Action::Raw(encode(&ClientFrame::Request(request)).expect("encodable request"))
    }

    /// A raw chunk that is a whole request for an unknown verb is answered
    /// `Denied{id, UNKNOWN_VERB}`; the oracle judges it as a request, not as stray bytes.
    #[test]
    fn a_raw_chunk_holding_a_request_is_judged_as_that_request() {
        let mut rig = negotiated_rig();
        rig.act(raw_request(well_formed_request(0, 77, "", "claude-code")));
        rig.act(raw_request(well_formed_request(9, 77, "", "codex")));
        assert!(rig.seen.contains(&(4, pb::DenyCode::UnknownVerb as i32)));
        assert!(!rig.closed, "a request-level denial keeps the connection");
    }

    /// A raw chunk carrying a valid request with the enrolled token is admitted, and the
    /// oracle checks the admission against the token and scope the chunk presented.
    #[test]
    fn a_raw_chunk_holding_an_admissible_request_is_checked_as_admitted() {
        let mut rig = negotiated_rig();
        let token = rig.tokens.full_hex.clone();
        rig.act(raw_request(well_formed_request(
            4,
            Verb::Status.to_wire() as i32,
            &token,
            "claude-code",
        )));
        assert_eq!(rig.dispatches, 1);
    }

    /// A request split across two raw chunks is judged once, when its last byte arrives.
    #[test]
    fn a_request_split_across_raw_chunks_is_judged_when_complete() {
        let mut rig = negotiated_rig();
        let token = rig.tokens.read_only_hex.clone();
        let bytes = encode(&ClientFrame::Request(well_formed_request(
            6,
            Verb::Status.to_wire() as i32,
            &token,
            "claude-code",
        )))
        .expect("encodable request");
        let (head, tail) = bytes.split_at(bytes.len() / 2);
        rig.act(Action::Raw(head.to_vec()));
        assert_eq!(rig.dispatches, 0);
        rig.act(Action::Raw(tail.to_vec()));
        assert_eq!(rig.dispatches, 1);
    }

    /// Regenerates the seed corpus of `session_server`: random inputs, kept greedily while
    /// they reach a (frame, deny code) pair no kept input reached.
    /// Run with `cargo test --features test-support --lib write_session_seeds -- --ignored`.
    #[test]
    #[ignore = "writes fuzz/corpus/session_server; run by hand"]
    fn write_session_seeds() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
        let mut seen = std::collections::BTreeSet::new();
        let mut kept = 0;
        for _ in 0..200_000 {
            let len = rng.random_range(16..400);
            let data: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            let rig = run_server(&data);
            let fresh = rig.seen.difference(&seen).count();
            let dispatched = rig.dispatches > 0 && !seen.contains(&(0, 0));
            if (fresh > 0 || dispatched) && kept < 20 {
                seen.extend(rig.seen.iter().copied());
                if rig.dispatches > 0 {
                    seen.insert((0, 0));
                }
                std::fs::write(
                    root.join(format!("session_server/seed-{kept:02}.bin")),
                    &data,
                )
                .expect("write seed");
                kept += 1;
            }
        }
        eprintln!("kept {kept} seeds covering {seen:?}");
    }
}
