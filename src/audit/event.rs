//! [`AuditEvent`]: the one typed audit record (spec §10).
//!
//! Every field is typed and bounded: there is no free-form field, and no field whose type
//! could hold a token value (`TokenId` and `ClientName` are validated formats; the only
//! client-supplied string, the tool id, goes through [`ToolRef`]). A test pins the field set.
// spec[S10-NO-FREE-FORM] §10: no field of an event is free-form text.
// spec[S10-NO-TOKEN-VALUE] §10: an event never carries a token value or protected content.

use serde::{Serialize, Serializer};

use crate::auth::{AuthDenial, ClientName, ResolveError, TokenId};
use crate::time::UnixSecs;
use crate::verbs::{MutationVerb, ToolRef, Verb};

/// Why version negotiation failed (spec §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NegotiationFailure {
    /// The first frame was not a `Hello`.
    HelloExpected,
    /// The `Hello` was malformed (empty or invalid version list).
    InvalidHello,
    /// Client and server share no version.
    NoCommonVersion,
}

/// Why a frame was refused before decoding (spec §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FrameRefusal {
    /// The declared length exceeds the limit.
    Oversized,
    /// The tag is not one the peer may send.
    UnknownTag,
    /// The length prefix is not valid LEB128.
    BadLength,
    /// The payload did not decode.
    Undecodable,
    /// The connection closed in the middle of a frame.
    Truncated,
}

/// The finer outcome of an authentication or authorization failure (spec §6, §10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AuthFailureReason {
    /// No token.
    Absent,
    /// Not 64 lowercase hex characters.
    Malformed,
    /// Not enrolled (never issued or revoked).
    Unknown,
    /// Past its absolute expiry.
    Expired,
    /// The scope does not cover the verb or tool.
    OutOfScope,
    /// The enrolment book could not be read, so nothing was checked.
    BookUnavailable,
}

impl From<&AuthDenial> for AuthFailureReason {
    fn from(d: &AuthDenial) -> Self {
        match d {
            AuthDenial::Absent => AuthFailureReason::Absent,
            AuthDenial::Malformed => AuthFailureReason::Malformed,
            AuthDenial::Unknown => AuthFailureReason::Unknown,
            AuthDenial::Expired { .. } => AuthFailureReason::Expired,
            AuthDenial::OutOfScope { .. } => AuthFailureReason::OutOfScope,
        }
    }
}

/// Which connection limit refused a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ConnectionLimit {
    /// The server-wide limit.
    Total,
    /// The per-peer-uid limit.
    PerUid,
}

/// How far an evicted connection had got (the eviction order: first evicted first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EvictedStage {
    /// It had not finished its `Hello`.
    Handshake,
    /// It had negotiated but never had a call authorised.
    Negotiated,
    /// It had had calls authorised, and was idle.
    Authorised,
}

/// How a lifecycle mutation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MutationOutcome {
    /// Every step applied.
    Succeeded,
    /// Some steps applied, some failed.
    PartiallySucceeded,
    /// Nothing applied: the backend failed.
    Failed,
    /// The backend refused (unknown or expired plan, argument outside its vocabulary…).
    Refused,
}

// spec[S10-TWO-CLASSES] §10: (a) authentication/authorization failures and (b) lifecycle
// mutations; this closed enum is everything an event can say.
/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AuditKind {
    /// The OS layer rejected the peer (uid check, spec §1).
    PeerRejected,
    /// Version negotiation failed.
    NegotiationFailed {
        /// Why.
        reason: NegotiationFailure,
    },
    /// A second `Hello` on a negotiated connection.
    RenegotiationAttempted,
    /// A frame was refused.
    FrameRefused {
        /// Why.
        reason: FrameRefusal,
    },
    /// A request's token did not authorise it.
    AuthFailure {
        /// The finer outcome.
        reason: AuthFailureReason,
    },
    /// A request named a verb outside 1..9.
    UnknownVerb,
    /// A request named a verb the negotiated version does not have.
    UnavailableAtVersion,
    /// A connection was refused at a limit.
    ConnectionRefusedAtLimit {
        /// Which one.
        limit: ConnectionLimit,
    },
    /// An idle connection was closed at a limit to make room for a new one (the longest
    /// idle of the earliest stage; never one with a call in flight).
    ConnectionEvicted {
        /// The limit that was reached.
        limit: ConnectionLimit,
        /// How far the evicted connection had got.
        stage: EvictedStage,
    },
    /// The peer did not complete the handshake in time.
    HandshakeTimeout,
    /// One connection's refusals past the per-window record limit, counted instead of
    /// recorded one by one (written when the window ends or the connection closes).
    RefusalsSummarised {
        /// How many refusals this record stands for.
        count: u32,
    },
    /// A backend's free text was refused as credential-shaped and replaced.
    SentenceRefused,
    /// `apply`, `repair` or `remove` ran.
    LifecycleMutation {
        /// Which verb.
        verb: MutationVerb,
        /// How it ended.
        outcome: MutationOutcome,
    },
}

/// The event's outcome, derived from its kind so the two never disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AuditOutcome {
    /// A request was answered with `Denied`.
    Denied,
    /// A connection, peer or frame was refused.
    Refused,
    /// A mutation succeeded (fully or partly).
    Succeeded,
    /// A mutation failed or was refused by the backend.
    Failed,
}

impl AuditKind {
    /// The outcome this kind implies.
    pub fn outcome(self) -> AuditOutcome {
        match self {
            AuditKind::AuthFailure { .. }
            | AuditKind::UnknownVerb
            | AuditKind::UnavailableAtVersion
            | AuditKind::RenegotiationAttempted => AuditOutcome::Denied,
            AuditKind::PeerRejected
            | AuditKind::NegotiationFailed { .. }
            | AuditKind::FrameRefused { .. }
            | AuditKind::ConnectionRefusedAtLimit { .. }
            | AuditKind::ConnectionEvicted { .. }
            | AuditKind::HandshakeTimeout
            | AuditKind::RefusalsSummarised { .. }
            | AuditKind::SentenceRefused => AuditOutcome::Refused,
            AuditKind::LifecycleMutation { outcome, .. } => match outcome {
                MutationOutcome::Succeeded | MutationOutcome::PartiallySucceeded => {
                    AuditOutcome::Succeeded
                }
                MutationOutcome::Failed | MutationOutcome::Refused => AuditOutcome::Failed,
            },
        }
    }
}

fn serialize_verb<S: Serializer>(verb: &Option<Verb>, s: S) -> Result<S::Ok, S::Error> {
    match verb {
        Some(v) => s.serialize_some(v.token()),
        None => s.serialize_none(),
    }
}

// spec[S10-EVENT-FIELDS] §10: time, token id (when one resolved), client name, verb, tool,
// request id and outcome; no invented token id.
/// One audit record (spec §10): time, kind, outcome, and the context that is known.
/// A denial that reached no record carries no token id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct AuditEvent {
    /// When (passed in; this module reads no clock). Serialised as the bare number.
    pub at_unix_secs: UnixSecs,
    /// What happened.
    pub kind: AuditKind,
    /// The outcome (derived from `kind` by [`AuditEvent::new`]).
    pub outcome: AuditOutcome,
    /// The token, when one resolved to a record.
    pub token_id: Option<TokenId>,
    /// The token's client, when one resolved to a record.
    pub client_name: Option<ClientName>,
    /// The verb requested.
    #[serde(serialize_with = "serialize_verb")]
    pub verb: Option<Verb>,
    /// The tool requested.
    pub tool: Option<ToolRef>,
    /// The request's id.
    pub request_id: Option<u64>,
    /// The server's id for the connection.
    pub connection_id: Option<u64>,
    /// The peer's uid from the OS.
    pub peer_uid: Option<u32>,
}

impl AuditEvent {
    /// An event of `kind` at `at_unix_secs` with no context yet.
    pub fn new(at_unix_secs: UnixSecs, kind: AuditKind) -> AuditEvent {
        AuditEvent {
            at_unix_secs,
            kind,
            outcome: kind.outcome(),
            token_id: None,
            client_name: None,
            verb: None,
            tool: None,
            request_id: None,
            connection_id: None,
            peer_uid: None,
        }
    }

    /// The auth failure for `denial` of a request for `verb` on `tool` (empty = none).
    pub fn auth_failure(
        at_unix_secs: UnixSecs,
        denial: &AuthDenial,
        verb: Verb,
        tool: &str,
    ) -> AuditEvent {
        let mut e = AuditEvent::new(
            at_unix_secs,
            AuditKind::AuthFailure {
                reason: denial.into(),
            },
        );
        e.token_id = denial.token_id().cloned();
        e.client_name = denial.client_name().cloned();
        e.verb = Some(verb);
        e.tool = ToolRef::from_request(tool);
        e
    }

    /// The auth failure for a [`ResolveError`] (an unreadable book included).
    pub fn resolve_failure(
        at_unix_secs: UnixSecs,
        error: &ResolveError,
        verb: Verb,
        tool: &str,
    ) -> AuditEvent {
        match error {
            ResolveError::Denied(d) => AuditEvent::auth_failure(at_unix_secs, d, verb, tool),
            ResolveError::BookUnavailable(_) => {
                let mut e = AuditEvent::new(
                    at_unix_secs,
                    AuditKind::AuthFailure {
                        reason: AuthFailureReason::BookUnavailable,
                    },
                );
                e.verb = Some(verb);
                e.tool = ToolRef::from_request(tool);
                e
            }
        }
    }

    /// With the connection's id.
    pub fn with_connection(mut self, connection_id: u64) -> AuditEvent {
        self.connection_id = Some(connection_id);
        self
    }

    /// With the peer's uid.
    pub fn with_peer_uid(mut self, uid: u32) -> AuditEvent {
        self.peer_uid = Some(uid);
        self
    }

    /// With the request's id.
    pub fn with_request(mut self, request_id: u64) -> AuditEvent {
        self.request_id = Some(request_id);
        self
    }

    /// With the verb and the client-supplied tool id (validated by [`ToolRef`]).
    pub fn with_call(mut self, verb: Verb, tool: &str) -> AuditEvent {
        self.verb = Some(verb);
        self.tool = ToolRef::from_request(tool);
        self
    }

    /// With the token that resolved (from a grant).
    pub fn with_token(mut self, token_id: TokenId, client: ClientName) -> AuditEvent {
        self.token_id = Some(token_id);
        self.client_name = Some(client);
        self
    }

    /// The record as one line of JSON (no newline).
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}
