//! The client side of a connection, in typestates.
//!
//! ```text
//! Client<Unauthenticated> ──hello()──▶ Client<AwaitingAck> ──on_frame(HelloAck)──▶ Client<Negotiated>
//!                                              │ Incompatible / anything else          │ authorize(token)
//!                                              ▼                                       ▼
//!                                        ClientError                          Client<Authorized>
//!                                                                     (one request builder per verb)
//! ```
//!
//! `hello` consumes the unauthenticated client, so a second `Hello` cannot be written;
//! verbs exist only on `Client<Authorized>`; a verb unavailable at the negotiated version
//! fails locally, without a round trip. Sans-IO: frames in, frames out.

use std::collections::BTreeSet;

use zeroize::{Zeroize, Zeroizing};

use crate::auth::TokenSecret;
use crate::negotiate;
use crate::time::UnixSecs;
use crate::verbs::{
    ApprovalId, PlanArgs, PlanId, ResponseError, ToolId, UserInput, Verb, VerbCall, VerbResult,
};
use crate::version::{ApiVersion, LIFECYCLE_SCHEMA_VERSION, MAX_SUPPORTED, MIN_SUPPORTED};
use crate::wire::{encode, pb, ClientFrame, EncodeError, ServerFrame};

/// A client-side connection in state `S`.
pub struct Client<S> {
    name: String,
    version: String,
    state: S,
}

/// Before `Hello`.
pub struct Unauthenticated {
    offered: BTreeSet<u32>,
}

/// `Hello` sent; waiting for `HelloAck` or `Incompatible`.
pub struct AwaitingAck {
    offered: BTreeSet<u32>,
}

/// Negotiated: versions, outcome and provenance are known; no verb can be called.
pub struct Negotiated {
    ack: pb::HelloAck,
}

/// Negotiated and holding a token: one request builder per verb.
pub struct Authorized {
    ack: pb::HelloAck,
    token: TokenSecret,
    next_request_id: u64,
}

/// Why the client core refused a frame or a call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The runtime answered `Incompatible`.
    #[error("the runtime is incompatible: {reason}; {remediation}")]
    Incompatible {
        /// The runtime's reason.
        reason: String,
        /// What to do.
        remediation: String,
        /// The runtime's lowest version.
        min_supported: u32,
        /// The runtime's highest version.
        max_supported: u32,
    },
    /// The runtime denied the request.
    #[error("denied ({code:?}): {message}; {remediation}")]
    Denied {
        /// The request's id (0 for protocol violations).
        request_id: u64,
        /// The code.
        code: pb::DenyCode,
        /// The runtime's sentence.
        message: String,
        /// What to do.
        remediation: String,
    },
    /// The runtime broke the protocol (wrong frame, a version we did not offer, a reply to
    /// another request or verb).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The runtime's answer could not be read as the verb's view: it named another verb,
    /// set another view, or a field the view requires was missing or unreadable. The
    /// [`ResponseError`] keeps which field and why ([`crate::verbs::ViewError`]) as types,
    /// never the value. (Fields the view can do without are read tolerantly and reported in
    /// the view instead; see [`crate::verbs::Unrecognized`].)
    #[error("the runtime's answer could not be read: {0}")]
    Response(#[from] ResponseError),
    /// The verb does not exist at the negotiated version; nothing was sent.
    #[error("{verb} is not available at the negotiated DI-API version {version}; it needs version {first}")]
    UnavailableLocally {
        /// The verb.
        verb: Verb,
        /// The negotiated version.
        version: ApiVersion,
        /// The first version with the verb.
        first: ApiVersion,
    },
}

impl<S> Client<S> {
    /// The client's name as sent in `Hello`.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Client<Unauthenticated> {
    /// A client offering the whole window this crate speaks (1..=5).
    pub fn new(name: &str, version: &str) -> Client<Unauthenticated> {
        Client::with_versions(name, version, MIN_SUPPORTED.get()..=MAX_SUPPORTED.get())
    }

    /// A client offering exactly `versions` (e.g. an older client, or a test).
    pub fn with_versions(
        name: &str,
        version: &str,
        versions: impl IntoIterator<Item = u32>,
    ) -> Client<Unauthenticated> {
        Client {
            name: name.to_owned(),
            version: version.to_owned(),
            state: Unauthenticated {
                offered: versions.into_iter().collect(),
            },
        }
    }

    /// Write `Hello`. Consumes the client: there is no way to write a second one.
    pub fn hello(self) -> (Client<AwaitingAck>, pb::Hello) {
        let hello = pb::Hello {
            client_name: self.name.clone(),
            client_version: self.version.clone(),
            di_api_versions: self.state.offered.iter().copied().collect(),
            lifecycle_schema_versions: vec![LIFECYCLE_SCHEMA_VERSION],
        };
        (
            Client {
                name: self.name,
                version: self.version,
                state: AwaitingAck {
                    offered: self.state.offered,
                },
            },
            hello,
        )
    }
}

impl Client<AwaitingAck> {
    /// Read the runtime's answer to `Hello`.
    pub fn on_frame(self, frame: ServerFrame) -> Result<Client<Negotiated>, ClientError> {
        match frame {
            ServerFrame::HelloAck(ack) => {
                if !self.state.offered.contains(&ack.di_api_version) {
                    return Err(ClientError::Protocol(format!(
                        "the runtime chose DI-API version {}, which this client did not offer",
                        ack.di_api_version
                    )));
                }
                let outcome = pb::NegotiationOutcome::try_from(ack.outcome);
                let version = ApiVersion::new(ack.di_api_version);
                let degraded = !negotiate::unavailable_verbs(version).is_empty();
                let consistent = matches!(
                    (outcome, degraded),
                    (Ok(pb::NegotiationOutcome::Supported), false)
                        | (Ok(pb::NegotiationOutcome::Degraded), true)
                );
                if !consistent {
                    return Err(ClientError::Protocol(
                        "the HelloAck's outcome does not match its version".into(),
                    ));
                }
                Ok(Client {
                    name: self.name,
                    version: self.version,
                    state: Negotiated { ack },
                })
            }
            ServerFrame::Incompatible(i) => Err(ClientError::Incompatible {
                reason: i.reason,
                remediation: i.remediation,
                min_supported: i.min_supported,
                max_supported: i.max_supported,
            }),
            ServerFrame::Denied(d) => Err(denied(d)),
            ServerFrame::Response(_) => Err(ClientError::Protocol(
                "a Response arrived before HelloAck".into(),
            )),
        }
    }
}

impl Client<Negotiated> {
    /// The negotiated DI-API version.
    pub fn version(&self) -> ApiVersion {
        ApiVersion::new(self.state.ack.di_api_version)
    }

    /// The whole `HelloAck` (outcome, window, unavailable verbs, provenance).
    pub fn ack(&self) -> &pb::HelloAck {
        &self.state.ack
    }

    /// Whether the runtime reported `DEGRADED`.
    pub fn is_degraded(&self) -> bool {
        self.state.ack.outcome == pb::NegotiationOutcome::Degraded as i32
    }

    /// The runtime's provenance; present iff the version is ≥ 4 (spec §8).
    pub fn provenance(&self) -> Option<&pb::RuntimeProvenance> {
        self.state.ack.provenance.as_ref()
    }

    // spec[S6-TOKEN-PER-REQUEST] §6: every Request carries the capability token.
    /// Hold `token` for every request (spec §6: every request carries it).
    pub fn authorize(self, token: TokenSecret) -> Client<Authorized> {
        Client {
            name: self.name,
            version: self.version,
            state: Authorized {
                ack: self.state.ack,
                token,
                next_request_id: 1,
            },
        }
    }
}

/// A request [`Client<Authorized>`] wrote, ready to send. It holds the only copy of the
/// capability token the client core makes — hex-encoded straight into
/// `capability_token`, never through an intermediate string — and wipes that field when it
/// is dropped. Its `Debug` never shows the token. Send it with [`OutgoingRequest::encode`]
/// (the bytes wipe themselves too) or [`OutgoingRequest::frame`].
pub struct OutgoingRequest {
    frame: ClientFrame,
}

impl OutgoingRequest {
    fn new(request: pb::Request) -> OutgoingRequest {
        OutgoingRequest {
            frame: ClientFrame::Request(request),
        }
    }

    /// The frame to encode (always `ClientFrame::Request`).
    pub fn frame(&self) -> &ClientFrame {
        &self.frame
    }

    /// The request.
    pub fn request(&self) -> &pb::Request {
        match &self.frame {
            ClientFrame::Request(r) => r,
            ClientFrame::Hello(_) => unreachable!("an OutgoingRequest always holds a Request"),
        }
    }

    /// The frame's bytes for a single write; they hold the token, so they are wiped when
    /// dropped.
    pub fn encode(&self) -> Result<Zeroizing<Vec<u8>>, EncodeError> {
        encode(&self.frame).map(Zeroizing::new)
    }
}

impl Drop for OutgoingRequest {
    fn drop(&mut self) {
        if let ClientFrame::Request(r) = &mut self.frame {
            r.capability_token.zeroize();
        }
    }
}

impl std::fmt::Debug for OutgoingRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pb::Request`'s own Debug redacts the token.
        f.debug_tuple("OutgoingRequest")
            .field(self.request())
            .finish()
    }
}

/// A request written and not yet answered: what the answer must echo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingCall {
    /// The request's id.
    pub request_id: u64,
    /// The request's verb.
    pub verb: Verb,
}

impl Client<Authorized> {
    /// The negotiated DI-API version.
    pub fn version(&self) -> ApiVersion {
        ApiVersion::new(self.state.ack.di_api_version)
    }

    /// The `HelloAck` this connection was negotiated with.
    pub fn ack(&self) -> &pb::HelloAck {
        &self.state.ack
    }

    /// Write a request for `call`; fails locally when the verb is unavailable at the
    /// negotiated version (no round trip).
    pub fn request(
        &mut self,
        call: &VerbCall,
    ) -> Result<(PendingCall, OutgoingRequest), ClientError> {
        let verb = call.verb();
        let version = self.version();
        if let Err(first) = negotiate::verb_available(verb, version) {
            return Err(ClientError::UnavailableLocally {
                verb,
                version,
                first,
            });
        }
        let request_id = self.state.next_request_id;
        self.state.next_request_id += 1;
        let mut request = call.to_request_without_token(request_id);
        // spec[S6-TOKEN-PER-REQUEST] §6: the token goes into the request itself, and only there.
        self.state
            .token
            .expose_secret_hex_into(&mut request.capability_token);
        Ok((
            PendingCall { request_id, verb },
            OutgoingRequest::new(request),
        ))
    }

    /// `list_tools`.
    pub fn list_tools(&mut self) -> Result<(PendingCall, OutgoingRequest), ClientError> {
        self.request(&VerbCall::ListTools)
    }
    /// `plan`.
    pub fn plan(
        &mut self,
        tool: ToolId,
        args: PlanArgs,
    ) -> Result<(PendingCall, OutgoingRequest), ClientError> {
        self.request(&VerbCall::Plan { tool, args })
    }
    /// `apply`.
    pub fn apply(
        &mut self,
        tool: ToolId,
        plan_id: PlanId,
    ) -> Result<(PendingCall, OutgoingRequest), ClientError> {
        self.request(&VerbCall::Apply { tool, plan_id })
    }
    /// `status`.
    pub fn status(&mut self, tool: ToolId) -> Result<(PendingCall, OutgoingRequest), ClientError> {
        self.request(&VerbCall::Status { tool })
    }
    /// `verify`.
    pub fn verify(&mut self, tool: ToolId) -> Result<(PendingCall, OutgoingRequest), ClientError> {
        self.request(&VerbCall::Verify { tool })
    }
    /// `repair`.
    pub fn repair(&mut self, tool: ToolId) -> Result<(PendingCall, OutgoingRequest), ClientError> {
        self.request(&VerbCall::Repair { tool })
    }
    /// `remove` (no plan id: preview a removal plan).
    pub fn remove(
        &mut self,
        tool: ToolId,
        plan_id: Option<PlanId>,
    ) -> Result<(PendingCall, OutgoingRequest), ClientError> {
        self.request(&VerbCall::Remove { tool, plan_id })
    }
    /// `scoped_events` (v2+).
    pub fn scoped_events(
        &mut self,
        tool: ToolId,
        limit: u32,
        since: UnixSecs,
    ) -> Result<(PendingCall, OutgoingRequest), ClientError> {
        self.request(&VerbCall::ScopedEvents { tool, limit, since })
    }
    /// `approval_relay` (v2+).
    pub fn approval_relay(
        &mut self,
        tool: ToolId,
        approval_id: ApprovalId,
        input: UserInput,
    ) -> Result<(PendingCall, OutgoingRequest), ClientError> {
        self.request(&VerbCall::ApprovalRelay {
            tool,
            approval_id,
            input,
        })
    }

    /// Read the answer to `pending`: a response must echo its request id and verb.
    pub fn on_frame(
        &self,
        pending: PendingCall,
        frame: ServerFrame,
    ) -> Result<VerbResult, ClientError> {
        match frame {
            ServerFrame::Response(response) => {
                if response.request_id != pending.request_id {
                    return Err(ClientError::Protocol(format!(
                        "the response answers request {}, not {}",
                        response.request_id, pending.request_id
                    )));
                }
                Ok(VerbResult::from_response(
                    pending.verb,
                    &response,
                    self.version(),
                )?)
            }
            ServerFrame::Denied(d) => Err(denied(d)),
            ServerFrame::HelloAck(_) | ServerFrame::Incompatible(_) => Err(ClientError::Protocol(
                "a negotiation frame arrived after negotiation".into(),
            )),
        }
    }
}

fn denied(d: pb::Denied) -> ClientError {
    ClientError::Denied {
        request_id: d.request_id,
        code: pb::DenyCode::try_from(d.code).unwrap_or(pb::DenyCode::Unspecified),
        message: d.message,
        remediation: d.remediation,
    }
}
