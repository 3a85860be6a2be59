//! The server side of a connection, in typestates.
//!
//! ```text
//!                    PeerVerified (minted by the peer-credential check, crate::peer)
//!                         │
//!                         ▼
//!            Connection<Unauthenticated> ──Request first──▶ Denied{0, PROTOCOL_VIOLATION}, closed
//!                         │ Hello
//!          ┌──────────────┴───────────────┐
//!          ▼                              ▼
//!   Incompatible, closed     Connection<Negotiated> ◀──────────── answer / into_dispatch
//!                                │ Request (spec §6 checks, token resolved now)   ▲
//!                 ┌──────────────┼─────────────────────────┐                    │
//!                 ▼              ▼                         ▼                    │
//!     Denied, still       second Hello:             Connection<Authorized> ─────┘
//!     Negotiated          Denied{0, PROTOCOL_VIOLATION},   (only state that reaches
//!                         audited, closed                  the backend)
//! ```
//!
//! Inputs are decoded frames and `now`; outputs are frames to send and audit events. The
//! only IO is what the injected [`TokenResolver`] and [`Lifecycle`] do.

use crate::audit::{AuditEvent, AuditKind, MutationOutcome, NegotiationFailure};
use crate::auth::{Grant, TokenResolver};
use crate::backend::{Authorization, CancelSignal, Lifecycle, LifecycleError, ToolAuthorization};
use crate::negotiate::{self, Agreement};
use crate::peer::PeerVerified;
use crate::time::UnixSecs;
use crate::verbs::{
    ApplyMutation, StatusResponse, ToolId, ToolListResponse, Verb, VerbCall, VerbResult,
};
use crate::version::{
    ApiVersion, LIFECYCLE_SCHEMA_VERSION, MAX_SUPPORTED, MIN_SUPPORTED, PROVENANCE_SINCE,
};
use crate::wire::{pb, ServerFrame};

use super::denial::{denied, DenialCause};
use super::reply::Reply;

/// Who a connection is: the server's id for it and the peer's verified uid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionMeta {
    /// The server's id for the connection (audit, tracing).
    pub id: u64,
    /// The peer's uid, as the OS reported it.
    pub peer_uid: u32,
}

/// A server-side connection in state `S`.
#[derive(Debug)]
pub struct Connection<S> {
    meta: ConnectionMeta,
    state: S,
}

/// Before `Hello`: the OS layer has passed, nothing else has.
#[derive(Debug)]
pub struct Unauthenticated {
    _peer: PeerVerified,
}

/// After `HelloAck`: the version is fixed for the connection.
#[derive(Debug)]
pub struct Negotiated {
    agreement: Agreement,
}

/// One request passed every spec §6 check; the backend can be reached.
#[derive(Debug)]
pub struct Authorized {
    agreement: Agreement,
    dispatch: Dispatch,
}

/// The connection is over: what to send last and what to audit.
#[derive(Debug)]
pub struct Closing {
    /// The last frame to send, if any.
    pub reply: Option<ServerFrame>,
    /// The audit record of why.
    pub audit: Option<AuditEvent>,
}

/// The outcome of the first frame.
// Moved once per frame and never stored in bulk; boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Handshake {
    /// `HelloAck` sent; the connection is negotiated.
    Negotiated {
        /// The connection, now negotiated.
        conn: Connection<Negotiated>,
        /// The acknowledgement to send.
        ack: pb::HelloAck,
    },
    /// `Incompatible` (or a protocol violation): send and close.
    Closed(Closing),
}

/// The outcome of a request on a negotiated connection.
#[derive(Debug)]
pub enum Admission {
    /// Every check passed.
    Authorized(Connection<Authorized>),
    /// A check failed: send `denied`; the connection stays negotiated.
    Denied {
        /// The connection, still negotiated.
        conn: Connection<Negotiated>,
        /// The denial to send.
        denied: pb::Denied,
        /// The audit record, for the failures spec §10 audits.
        audit: Option<AuditEvent>,
    },
}

/// An authorised call detached from its connection, so a shell can run it off its async
/// threads while the connection reads the next request. Holds the proof the backend needs.
#[derive(Debug)]
pub struct Dispatch {
    meta: ConnectionMeta,
    authorization: Authorization,
    call: VerbCall,
}

/// What [`Dispatch::run_at_once`] did with a call.
#[derive(Debug)]
pub enum AtOnce {
    /// The backend answered it at once.
    Answered(Answer),
    /// It is still to be run, as the backend's [`Lifecycle::call_kind`] says.
    ToRun(Dispatch),
}

/// What answering a call produced.
#[derive(Debug)]
pub struct Answer {
    /// `Response` or `Denied`.
    pub frame: Reply,
    /// Audit records (lifecycle mutations; refused sentences).
    pub audit: Vec<AuditEvent>,
}

impl<S> Connection<S> {
    /// The connection's id and peer uid.
    pub fn meta(&self) -> ConnectionMeta {
        self.meta
    }

    fn audit(&self, now: UnixSecs, kind: AuditKind) -> AuditEvent {
        AuditEvent::new(now, kind)
            .with_connection(self.meta.id)
            .with_peer_uid(self.meta.peer_uid)
    }
}

impl Connection<Unauthenticated> {
    // spec[S1-PEER-UID] §1: a session starts only from a `PeerVerified` proof.
    /// A new connection whose peer passed the OS check (spec §1: peer uid checked at
    /// accept, before any byte is read). There is no other constructor.
    pub fn new(peer: PeerVerified, id: u64) -> Connection<Unauthenticated> {
        Connection {
            meta: ConnectionMeta {
                id,
                peer_uid: peer.uid(),
            },
            state: Unauthenticated { _peer: peer },
        }
    }

    /// The one transition: negotiate on `hello` (spec §5). `provenance` is evaluated only
    /// when the negotiated version carries it (spec §8: present iff version ≥ 4).
    pub fn handle_hello(
        self,
        hello: &pb::Hello,
        core_version: &str,
        provenance: impl FnOnce() -> pb::RuntimeProvenance,
        now: UnixSecs,
    ) -> Handshake {
        match negotiate::negotiate(&hello.di_api_versions, &hello.lifecycle_schema_versions) {
            Ok(agreement) => {
                let version = agreement.version();
                let ack = pb::HelloAck {
                    outcome: agreement.outcome().to_wire() as i32,
                    di_api_version: version.get(),
                    core_version: core_version.to_owned(),
                    lifecycle_schema_version: LIFECYCLE_SCHEMA_VERSION,
                    min_supported: MIN_SUPPORTED.get(),
                    max_supported: MAX_SUPPORTED.get(),
                    unavailable_verbs: agreement
                        .unavailable_verbs()
                        .iter()
                        .map(|v| v.token().to_owned())
                        .collect(),
                    degraded_reason: agreement.degraded_reason(),
                    remediation: agreement.remediation(),
                    // spec[S8-PROVENANCE-V4] §8: provenance is present iff the negotiated
                    // version is ≥ 4.
                    provenance: version.has(PROVENANCE_SINCE).then(provenance),
                };
                Handshake::Negotiated {
                    conn: Connection {
                        meta: self.meta,
                        state: Negotiated { agreement },
                    },
                    ack,
                }
            }
            Err(reason) => {
                // spec[S5-R6-CLOSE-AFTER-INCOMPATIBLE] §5 rule 6: after Incompatible the server
                // closes the connection.
                let audit = self.audit(
                    now,
                    AuditKind::NegotiationFailed {
                        reason: negotiation_failure(&reason),
                    },
                );
                Handshake::Closed(Closing {
                    reply: Some(ServerFrame::Incompatible(reason.to_wire())),
                    audit: Some(audit),
                })
            }
        }
    }

    // spec[S5-R1-HELLO-FIRST] §5 rule 1: the first frame MUST be Hello.
    /// A `Request` before `Hello` (spec §5 rule 1): `Denied{0, PROTOCOL_VIOLATION}`, close.
    pub fn handle_request_before_hello(self, now: UnixSecs) -> Closing {
        let audit = self.audit(
            now,
            AuditKind::NegotiationFailed {
                reason: NegotiationFailure::HelloExpected,
            },
        );
        Closing {
            reply: Some(ServerFrame::Denied(denied(0, &DenialCause::HelloExpected))),
            audit: Some(audit),
        }
    }
}

impl Connection<Negotiated> {
    /// The negotiation's result.
    pub fn agreement(&self) -> &Agreement {
        &self.state.agreement
    }

    // spec[S5-R7-NO-RENEGOTIATION] §5 rule 7: the negotiated version is fixed for the connection.
    /// A second `Hello` (spec §5 rule 7): `Denied{0, PROTOCOL_VIOLATION}`, audited as a
    /// renegotiation attempt; we then close. There is no way to renegotiate.
    pub fn handle_second_hello(self, now: UnixSecs) -> Closing {
        let audit = self.audit(now, AuditKind::RenegotiationAttempted);
        Closing {
            reply: Some(ServerFrame::Denied(denied(0, &DenialCause::Renegotiation))),
            audit: Some(audit),
        }
    }

    // spec[S6-ORDER] §6: verb → token (present, well formed, known; expiry; scope) → version
    // → tool → lifecycle call; the first failure answers.
    /// The one transition: check `request` in spec §6 order and admit it or deny it.
    pub fn handle_request(
        self,
        request: &pb::Request,
        resolver: &dyn TokenResolver,
        backend: &dyn Lifecycle,
        now: UnixSecs,
    ) -> Admission {
        match self.admit(request, resolver, backend, now) {
            Ok(dispatch) => Admission::Authorized(Connection {
                meta: self.meta,
                state: Authorized {
                    agreement: self.state.agreement,
                    dispatch,
                },
            }),
            Err(refusal) => {
                let Refusal { cause, audit } = *refusal;
                self.deny(request.request_id, cause, audit)
            }
        }
    }

    /// The spec §6 checks in order, each a step below; the first failure is the answer.
    fn admit(
        &self,
        request: &pb::Request,
        resolver: &dyn TokenResolver,
        backend: &dyn Lifecycle,
        now: UnixSecs,
    ) -> Result<Dispatch, Box<Refusal>> {
        let verb = self.check_verb(request, now)?;
        let grant = self.resolve_token(request, verb, resolver, now)?;
        let version = self.check_version(request, verb, &grant, now)?;
        // Parsed before the tool step, whose tool it carries, but refused after it: the
        // order of the answers is spec §6's.
        let call = VerbCall::parse(verb, request);
        check_tool(request, verb, call.as_ref().ok(), backend)?;
        // The arguments must fit the verb (LIFECYCLE_ERROR, spec §4 vocabularies).
        let call = call.map_err(|e| Refusal::quiet(DenialCause::Call(e)))?;
        Ok(Dispatch {
            meta: self.meta,
            authorization: Authorization::new(grant, request.request_id, version, now),
            call,
        })
    }

    // spec[S6-ORDER] §6 step 1: the verb is 1..9.
    /// Step 1: the verb is one of the nine.
    fn check_verb(&self, request: &pb::Request, now: UnixSecs) -> Result<Verb, Box<Refusal>> {
        Verb::from_wire(request.verb).map_err(|_| {
            // spec[S10-AUTH-FAILURES] §10 (a): an unknown verb is audited (as are the token
            // failures below, and failed or repeated negotiations above).
            let audit = self
                .audit(now, AuditKind::UnknownVerb)
                .with_request(request.request_id);
            Refusal::audited(DenialCause::UnknownVerb, audit)
        })
    }

    // spec[S6-ORDER] §6 steps 2–4: token present, well formed, known; not expired; in scope.
    // spec[S6-TOKEN-PER-REQUEST] §6: every Request carries the token; no session login.
    /// Steps 2–4: the token, resolved now through the book as it is now, so revocation is
    /// immediate.
    fn resolve_token(
        &self,
        request: &pb::Request,
        verb: Verb,
        resolver: &dyn TokenResolver,
        now: UnixSecs,
    ) -> Result<Grant, Box<Refusal>> {
        resolver
            .resolve(&request.capability_token, verb, &request.tool_id, now)
            .map_err(|e| {
                let audit = AuditEvent::resolve_failure(now, &e, verb, &request.tool_id)
                    .with_connection(self.meta.id)
                    .with_peer_uid(self.meta.peer_uid)
                    .with_request(request.request_id);
                Refusal::audited(DenialCause::Auth(e), audit)
            })
    }

    // spec[S6-VERSION-AFTER-TOKEN] §6 step 5: checked after the token, so an
    // unauthenticated caller learns nothing about the verb space.
    /// Step 5: the verb exists at the negotiated version, which it returns.
    fn check_version(
        &self,
        request: &pb::Request,
        verb: Verb,
        grant: &Grant,
        now: UnixSecs,
    ) -> Result<ApiVersion, Box<Refusal>> {
        let version = self.state.agreement.version();
        negotiate::verb_available(verb, version).map_err(|first| {
            let audit = self
                .audit(now, AuditKind::UnavailableAtVersion)
                .with_request(request.request_id)
                .with_call(verb, &request.tool_id)
                .with_token(grant.token_id().clone(), grant.client_name().clone());
            let cause = DenialCause::UnavailableAtVersion {
                verb,
                version,
                first,
            };
            Refusal::audited(cause, audit)
        })?;
        Ok(version)
    }

    fn deny(self, request_id: u64, cause: DenialCause, audit: Option<AuditEvent>) -> Admission {
        Admission::Denied {
            denied: denied(request_id, &cause),
            conn: self,
            audit,
        }
    }
}

// spec[S6-ORDER] §6 step 6: a tool adapter knows tool_id (every verb but list_tools).
/// Step 6: a tool-scoped verb names a tool the backend knows.
fn check_tool(
    request: &pb::Request,
    verb: Verb,
    call: Option<&VerbCall>,
    backend: &dyn Lifecycle,
) -> Result<(), Box<Refusal>> {
    if !verb.rule().tool_scoped {
        return Ok(());
    }
    // The call's tool when its arguments parsed (the same `tool_id`, parsed once); else
    // the request's, parsed here.
    let known = match call.and_then(VerbCall::tool) {
        Some(tool) => backend.knows_tool(tool),
        None => ToolId::parse(&request.tool_id).is_ok_and(|t| backend.knows_tool(&t)),
    };
    if known {
        Ok(())
    } else {
        Err(Refusal::quiet(DenialCause::UnknownTool))
    }
}

/// Why a spec §6 step refused a request, and its audit record if spec §10 audits it.
/// Boxed on the way out: only the refusing path pays for its size.
struct Refusal {
    cause: DenialCause,
    audit: Option<AuditEvent>,
}

impl Refusal {
    fn audited(cause: DenialCause, audit: AuditEvent) -> Box<Refusal> {
        Box::new(Refusal {
            cause,
            audit: Some(audit),
        })
    }

    /// A refusal spec §10 does not audit.
    fn quiet(cause: DenialCause) -> Box<Refusal> {
        Box::new(Refusal { cause, audit: None })
    }
}

impl Connection<Authorized> {
    /// The admitted call.
    pub fn call(&self) -> &VerbCall {
        &self.state.dispatch.call
    }

    /// The admitted request's id.
    pub fn request_id(&self) -> u64 {
        self.state.dispatch.authorization.request_id()
    }

    /// Answer the call on this thread; the connection returns to `Negotiated`.
    pub fn answer(
        self,
        backend: &dyn Lifecycle,
        now: UnixSecs,
    ) -> (Connection<Negotiated>, Answer) {
        let (conn, dispatch) = self.into_dispatch();
        (conn, dispatch.run(backend, now))
    }

    // spec[S6-PIPELINE] §6: the connection may admit the next request while this one runs.
    /// Detach the call so it can run elsewhere (pipelining); the connection returns to
    /// `Negotiated` at once and may admit the next request.
    pub fn into_dispatch(self) -> (Connection<Negotiated>, Dispatch) {
        let Authorized {
            agreement,
            dispatch,
        } = self.state;
        (
            Connection {
                meta: self.meta,
                state: Negotiated { agreement },
            },
            dispatch,
        )
    }
}

impl Dispatch {
    /// The call.
    pub fn call(&self) -> &VerbCall {
        &self.call
    }

    /// The request's id.
    pub fn request_id(&self) -> u64 {
        self.authorization.request_id()
    }

    /// The call's cancellation signal, for the shell to raise at the request's deadline or
    /// when its connection is gone.
    pub fn cancel_signal(&self) -> CancelSignal {
        self.authorization.cancel_signal().clone()
    }

    /// Run the call on `backend` and build the answer (version-gated views, spec §5).
    pub fn run(self, backend: &dyn Lifecycle, now: UnixSecs) -> Answer {
        let finish = Finish::of(&self, now);
        call_backend(
            backend,
            self.authorization,
            self.call,
            |result, auth, tool| finish.answer(result, auth, tool),
        )
    }

    /// A `status` the backend answers at once ([`Lifecycle::status_at_once`]), built exactly
    /// as [`Dispatch::run`] builds it; any other call, or a `status` the backend cannot
    /// answer at once, is handed back to be run.
    pub fn run_at_once(self, backend: &dyn Lifecycle, now: UnixSecs) -> AtOnce {
        let finish = Finish::of(&self, now);
        let Dispatch {
            meta,
            authorization,
            call,
        } = self;
        let VerbCall::Status { tool } = call else {
            return AtOnce::ToRun(Dispatch {
                meta,
                authorization,
                call,
            });
        };
        let auth = authorization.for_tool(tool);
        match backend.status_at_once(&auth) {
            Some(result) => AtOnce::Answered(finish.answer(
                result.map(VerbResult::Status),
                &auth,
                Some(auth.tool()),
            )),
            None => {
                let (authorization, tool) = auth.into_parts();
                AtOnce::ToRun(Dispatch {
                    meta,
                    authorization,
                    call: VerbCall::Status { tool },
                })
            }
        }
    }
}

/// What turns a backend's result into the answer: its frame and its audit records.
struct Finish {
    meta: ConnectionMeta,
    request_id: u64,
    version: ApiVersion,
    verb: Verb,
    mutation: Option<crate::verbs::MutationVerb>,
    now: UnixSecs,
}

impl Finish {
    fn of(dispatch: &Dispatch, now: UnixSecs) -> Finish {
        Finish {
            meta: dispatch.meta,
            request_id: dispatch.authorization.request_id(),
            version: dispatch.authorization.version(),
            verb: dispatch.call.verb(),
            mutation: dispatch.call.mutation(),
            now,
        }
    }

    /// The record's common part, made only when something is audited (most answers are
    /// not: no Strings copied for them).
    fn audit_base(&self, auth: &Authorization, tool: Option<&ToolId>) -> AuditEvent {
        AuditEvent::new(self.now, AuditKind::SentenceRefused)
            .with_connection(self.meta.id)
            .with_peer_uid(self.meta.peer_uid)
            .with_request(self.request_id)
            .with_call(self.verb, tool.map(ToolId::as_str).unwrap_or_default())
            .with_token(auth.token_id().clone(), auth.client_name().clone())
    }

    fn answer(
        &self,
        result: Result<VerbResult, LifecycleError>,
        auth: &Authorization,
        tool: Option<&ToolId>,
    ) -> Answer {
        let (request_id, version) = (self.request_id, self.version);
        let mut audit = Vec::new();
        // spec[S10-MUTATIONS] §10 (b): a lifecycle mutation is audited with its
        // outcome.
        if let Some(verb) = self.mutation {
            let mut e = self.audit_base(auth, tool);
            e.kind = AuditKind::LifecycleMutation {
                verb,
                outcome: mutation_outcome(&result),
            };
            e.outcome = e.kind.outcome();
            audit.push(e);
        }
        let frame = match result {
            Ok(view) => {
                if super::sentences::refused_sentences(&view) > 0 {
                    audit.push(self.audit_base(auth, tool));
                }
                match view {
                    VerbResult::ListTools(list) => Reply::ToolList(ToolListResponse {
                        request_id,
                        version,
                        list,
                    }),
                    VerbResult::Status(view) => Reply::Status(StatusResponse {
                        request_id,
                        version,
                        view,
                    }),
                    view => Reply::Frame(ServerFrame::Response(
                        view.into_response(request_id, version),
                    )),
                }
            }
            Err(e) => Reply::Frame(ServerFrame::Denied(denied(
                request_id,
                &DenialCause::Lifecycle(e),
            ))),
        };
        Answer { frame, audit }
    }
}

/// How a mutating call ended, as the audit records it.
fn mutation_outcome(result: &Result<VerbResult, LifecycleError>) -> MutationOutcome {
    match result {
        Ok(VerbResult::Apply(view))
            if view
                .outcome
                .as_ref()
                .is_some_and(|o| o.mutation == ApplyMutation::Failed) =>
        {
            MutationOutcome::Failed
        }
        Ok(_) => MutationOutcome::Succeeded,
        Err(LifecycleError::Lifecycle { .. }) | Err(LifecycleError::UnknownTool) => {
            MutationOutcome::Refused
        }
    }
}

/// The one place a backend method is called; only reachable with an [`Authorization`].
/// `then` gets the outcome with the proof that authorised the call (for its audit record).
fn call_backend<R>(
    backend: &dyn Lifecycle,
    auth: Authorization,
    call: VerbCall,
    then: impl FnOnce(Result<VerbResult, LifecycleError>, &Authorization, Option<&ToolId>) -> R,
) -> R {
    match call {
        VerbCall::ListTools => {
            let result = backend.list_tools(&auth).map(VerbResult::ListTools);
            then(result, &auth, None)
        }
        VerbCall::Plan { tool, args } => on_tool(auth, tool, then, |a| {
            backend.plan(a, &args).map(VerbResult::Plan)
        }),
        VerbCall::Apply { tool, plan_id } => on_tool(auth, tool, then, |a| {
            backend.apply(a, &plan_id).map(VerbResult::Apply)
        }),
        VerbCall::Status { tool } => on_tool(auth, tool, then, |a| {
            backend.status(a).map(VerbResult::Status)
        }),
        VerbCall::Verify { tool } => on_tool(auth, tool, then, |a| {
            backend.verify(a).map(VerbResult::Verify)
        }),
        VerbCall::Repair { tool } => on_tool(auth, tool, then, |a| {
            backend.repair(a).map(VerbResult::Repair)
        }),
        VerbCall::Remove { tool, plan_id } => on_tool(auth, tool, then, |a| {
            backend.remove(a, plan_id.as_ref()).map(VerbResult::Remove)
        }),
        VerbCall::ScopedEvents { tool, limit, since } => on_tool(auth, tool, then, |a| {
            backend
                .scoped_events(a, limit, since)
                .map(VerbResult::ScopedEvents)
        }),
        VerbCall::ApprovalRelay {
            tool,
            approval_id,
            input,
        } => on_tool(auth, tool, then, |a| {
            backend
                .approval_relay(a, &approval_id, input)
                .map(VerbResult::ApprovalRelay)
        }),
    }
}

/// A call on one tool: the proof for the tool made, the call run with it, and what it
/// returned handed on with the proof that authorised it.
fn on_tool<R>(
    auth: Authorization,
    tool: ToolId,
    then: impl FnOnce(Result<VerbResult, LifecycleError>, &Authorization, Option<&ToolId>) -> R,
    call: impl FnOnce(&ToolAuthorization) -> Result<VerbResult, LifecycleError>,
) -> R {
    let auth = auth.for_tool(tool);
    let result = call(&auth);
    then(result, &auth, Some(auth.tool()))
}

/// The audit's coarse negotiation failure for an `Incompatible` reason.
fn negotiation_failure(reason: &negotiate::IncompatibleReason) -> NegotiationFailure {
    match reason {
        negotiate::IncompatibleReason::NoVersionOffered
        | negotiate::IncompatibleReason::SchemaMismatch => NegotiationFailure::InvalidHello,
        negotiate::IncompatibleReason::ClientTooOld { .. }
        | negotiate::IncompatibleReason::ClientTooNew { .. }
        | negotiate::IncompatibleReason::NoOverlap => NegotiationFailure::NoCommonVersion,
    }
}
