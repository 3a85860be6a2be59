//! A driver for [`Machine`] in memory, for its tests: a virtual clock, real frames through
//! the real codec, the counting backend, and a record of everything the machine asked for.
//! Calls the machine sends off the async workers are held here until a test finishes them.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use devint::audit::AuditEvent;
use devint::auth::{ClientName, LiveBook, Scope, ToolScope};
use devint::backend::{CallKind, CancelSignal};
use devint::peer::PeerVerified;
use devint::session::{AnyConnection, Connection, Dispatch, ServerEnv};
use devint::testing::CountingBackend;
use devint::time::UnixSecs;
use devint::verbs::Verb;
use devint::wire::{encode, pb, ClientFrame, Decoder, ServerFrame, ServerToClient};

use super::{CallInfo, Event, Finished, InFlight, Machine, Queued};
use crate::server::config::Limits;

const T0: UnixSecs = UnixSecs::new(1_700_000_000);

/// The harness's handle on a call sent off the workers.
#[derive(Debug)]
pub(super) struct TestCall {
    handle: u32,
    /// The call ended; its answer waits to be collected.
    finished: bool,
}

impl InFlight for TestCall {
    fn is_finished(&self) -> bool {
        self.finished
    }
}

/// What a request asks for, as the tests choose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ask {
    /// `status`: run inline (the counting backend calls it non-blocking).
    Status,
    /// `apply`: a mutation, always run off the async workers.
    Apply,
    /// A request with a token nobody issued: denied at once, never run.
    Forged,
}

pub(super) struct Harness {
    pub(super) machine: Machine<TestCall>,
    pub(super) backend: CountingBackend,
    book: LiveBook,
    token: String,
    t0: Instant,
    pub(super) now: Instant,
    /// Calls sent off the workers and not yet finished, by handle.
    running: HashMap<u32, Dispatch>,
    next_handle: u32,
    to_client: Decoder<ServerToClient>,
    /// Every frame written, in order.
    pub(super) written: Vec<ServerFrame>,
    pub(super) refusals: Vec<AuditEvent>,
    pub(super) slot_negotiated: bool,
    /// The slot is marked busy.
    pub(super) slot_busy: bool,
    /// The slot will refuse to be marked busy (the connection was evicted while idle).
    pub(super) evicted: bool,
    pub(super) stall_checks: usize,
    /// What the next stall check answers.
    pub(super) stall_still_watched: bool,
    /// Cancellation signals of every call sent off the workers, by request id.
    pub(super) cancels: HashMap<u64, CancelSignal>,
}

impl Harness {
    pub(super) fn new(limits: Limits) -> Harness {
        let now = Instant::now();
        let book = LiveBook::default();
        let (_, secret) = book
            .issue(
                ClientName::parse("machine-test").unwrap(),
                Scope::full_lifecycle(ToolScope::All),
                Duration::from_secs(24 * 3600),
                T0,
            )
            .unwrap();
        Harness {
            machine: Machine::new(
                AnyConnection::new(Connection::new(PeerVerified::for_tests(1000), 7)),
                limits,
                now,
            ),
            backend: CountingBackend::default(),
            book,
            token: secret.expose_secret_hex().to_string(),
            t0: now,
            now,
            running: HashMap::new(),
            next_handle: 0,
            to_client: Decoder::new(),
            written: Vec::new(),
            refusals: Vec::new(),
            slot_negotiated: false,
            slot_busy: false,
            evicted: false,
            stall_checks: 0,
            stall_still_watched: true,
            cancels: HashMap::new(),
        }
    }

    /// A harness whose connection negotiated (its `HelloAck` taken off `written`).
    pub(super) fn negotiated(limits: Limits) -> Harness {
        let mut h = Harness::new(limits);
        h.send(&hello());
        assert!(matches!(h.written.pop(), Some(ServerFrame::HelloAck(_))));
        h
    }

    pub(super) fn wall(&self) -> UnixSecs {
        UnixSecs::new(T0.get() + (self.now - self.t0).as_secs())
    }

    /// The client's bytes arrive in one read.
    pub(super) fn send(&mut self, bytes: &[u8]) {
        self.machine.input().extend_from_slice(bytes);
        self.machine.handle_read(bytes.len(), false, self.now);
        self.pump();
    }

    /// The client closed its side.
    pub(super) fn half_close(&mut self) {
        self.machine.handle_read(0, false, self.now);
        self.pump();
    }

    /// Time passes; the machine is told when it asked to be (or now, if later).
    pub(super) fn advance(&mut self, by: Duration) {
        self.now += by;
        self.machine.handle_timeout(self.now, self.wall());
        self.pump();
    }

    /// The call at the head of the queue finishes now, with its real answer.
    pub(super) fn finish_head(&mut self) {
        let handle = self
            .machine
            .input_and_head_call()
            .1
            .expect("a running call at the head")
            .handle;
        let dispatch = self.running.remove(&handle).unwrap();
        let answer = dispatch.run(&self.backend, self.wall());
        let bytes = encode(&answer.frame);
        self.machine
            .head_finished(Finished::Answered(bytes), self.now);
        self.pump();
    }

    /// The call of request `id` ends, and nobody has collected its answer yet.
    pub(super) fn end_uncollected(&mut self, id: u64) {
        for queued in &mut self.machine.queue {
            if let Queued::Running(running) = queued {
                if running.info.request_id == id {
                    running.call.finished = true;
                }
            }
        }
    }

    /// Whether the head of the queue is a running call.
    pub(super) fn head_running(&mut self) -> bool {
        self.machine.input_and_head_call().1.is_some()
    }

    /// Do what the machine asks until it asks nothing, then write what it gives.
    pub(super) fn pump(&mut self) {
        loop {
            let provenance = || pb::RuntimeProvenance::default();
            let env = ServerEnv {
                resolver: &self.book,
                backend: &self.backend,
                core_version: "0.1.0",
                provenance: &provenance,
            };
            let time = (self.wall(), self.now);
            let Some(event) = self.machine.poll_event(&env, &mut || time) else {
                break;
            };
            match event {
                Event::Refusal(event) => self.refusals.push(event),
                Event::Negotiated => self.slot_negotiated = true,
                Event::Idle => self.slot_busy = false,
                Event::Run {
                    dispatch,
                    kind,
                    claim_slot,
                } => {
                    assert_eq!(
                        claim_slot, !self.slot_busy,
                        "the slot is claimed once per busy spell"
                    );
                    if claim_slot && self.evicted {
                        self.machine.slot_refused();
                        continue;
                    }
                    self.slot_busy = true;
                    if kind == CallKind::Blocking {
                        let info = CallInfo::of(&dispatch);
                        self.cancels
                            .insert(dispatch.request_id(), dispatch.cancel_signal());
                        self.next_handle += 1;
                        self.running.insert(self.next_handle, dispatch);
                        let call = TestCall {
                            handle: self.next_handle,
                            finished: false,
                        };
                        self.machine.started(call, info, self.now);
                    } else {
                        let answer = dispatch.run(&self.backend, self.wall());
                        self.machine.answered(&answer.frame);
                    }
                }
                Event::CheckStall => {
                    self.stall_checks += 1;
                    self.machine
                        .stall_checked(self.stall_still_watched, self.now);
                }
            }
        }
        if let Some(out) = self.machine.poll_transmit() {
            let mut input = out;
            while let Some(frame) = self.to_client.decode(&mut input).unwrap() {
                self.written.push(frame);
            }
            assert!(input.is_empty(), "every frame is written whole");
            self.machine.transmitted();
        }
    }

    /// A request's bytes.
    pub(super) fn request(&self, id: u64, ask: Ask) -> Vec<u8> {
        let (verb, token) = match ask {
            Ask::Status => (Verb::Status, self.token.clone()),
            Ask::Apply => (Verb::Apply, self.token.clone()),
            Ask::Forged => (Verb::Status, "ab".repeat(32)),
        };
        encode(&ClientFrame::Request(pb::Request {
            request_id: id,
            verb: verb.to_wire() as i32,
            capability_token: token,
            tool_id: "claude-code".into(),
            apply: Some(pb::ApplyArgs {
                plan_id: "0123456789abcdef0123456789abcdef".into(),
            }),
            ..Default::default()
        }))
        .unwrap()
    }

    /// The request ids of the answers written, in order.
    pub(super) fn answered_ids(&self) -> Vec<u64> {
        self.written.iter().filter_map(request_id).collect()
    }
}

pub(super) fn hello() -> Vec<u8> {
    encode(&ClientFrame::Hello(pb::Hello {
        client_name: "machine-test".into(),
        client_version: "1".into(),
        di_api_versions: vec![1],
        lifecycle_schema_versions: vec![1],
    }))
    .unwrap()
}

/// The request id an answer answers.
pub(super) fn request_id(frame: &ServerFrame) -> Option<u64> {
    match frame {
        ServerFrame::Response(r) => Some(r.request_id),
        ServerFrame::Denied(d) => Some(d.request_id),
        _ => None,
    }
}
