//! [`AnyConnection`]: a connection in whichever state it is, for the server shell (the
//! stm32 HAL's erased pins are the pattern). The typed API is used inside; this enum only
//! routes a frame to the one transition its state has.

use zeroize::Zeroize;

use crate::audit::{AuditEvent, AuditKind, FrameRefusal};
use crate::auth::TokenResolver;
use crate::backend::Lifecycle;
use crate::time::UnixSecs;
use crate::version::ApiVersion;
use crate::wire::{pb, ClientFrame, FrameError, FrameErrorKind, ServerFrame};

use super::denial::{denied, DenialCause};
use super::server::{
    Admission, Closing, Connection, ConnectionMeta, Dispatch, Handshake, Negotiated,
    Unauthenticated,
};

/// What the shell needs to drive a connection: the book, the backend and who we are.
pub struct ServerEnv<'a> {
    /// Resolves tokens against the enrolment book now.
    pub resolver: &'a dyn TokenResolver,
    /// The backend (for `knows_tool`; calls go through [`Dispatch`]).
    pub backend: &'a dyn Lifecycle,
    /// `HelloAck.core_version`.
    pub core_version: &'a str,
    /// A provenance snapshot, taken only when the negotiated version carries it.
    pub provenance: &'a (dyn Fn() -> pb::RuntimeProvenance + Sync),
}

/// A connection in any state.
#[derive(Debug)]
pub enum AnyConnection {
    /// Waiting for `Hello`.
    Unauthenticated(Connection<Unauthenticated>),
    /// Negotiated; requests are admitted or denied.
    Negotiated(Connection<Negotiated>),
    /// Finished: the shell sends what it was given and closes.
    Closed(ConnectionMeta),
}

/// What the shell must do after one input.
#[derive(Debug)]
pub enum Step {
    /// Send `frame` (if any), record `audit`; close afterwards when `close` is set.
    Reply {
        /// The frame to send.
        frame: Option<ServerFrame>,
        /// Audit records.
        audit: Vec<AuditEvent>,
        /// Whether the connection is finished.
        close: bool,
    },
    /// Run the authorised call (off the async threads) and send its answer in order.
    Dispatch(Dispatch),
}

impl AnyConnection {
    /// Wrap a new connection.
    pub fn new(conn: Connection<Unauthenticated>) -> AnyConnection {
        AnyConnection::Unauthenticated(conn)
    }

    /// The connection's id and peer uid.
    pub fn meta(&self) -> ConnectionMeta {
        match self {
            AnyConnection::Unauthenticated(c) => c.meta(),
            AnyConnection::Negotiated(c) => c.meta(),
            AnyConnection::Closed(m) => *m,
        }
    }

    /// Whether the connection is finished.
    pub fn is_closed(&self) -> bool {
        matches!(self, AnyConnection::Closed(_))
    }

    /// The negotiated version, once negotiated.
    pub fn version(&self) -> Option<ApiVersion> {
        match self {
            AnyConnection::Negotiated(c) => Some(c.agreement().version()),
            _ => None,
        }
    }

    /// Route one decoded frame to its state's transition.
    pub fn handle(&mut self, frame: ClientFrame, env: &ServerEnv<'_>, now: UnixSecs) -> Step {
        let meta = self.meta();
        match std::mem::replace(self, AnyConnection::Closed(meta)) {
            AnyConnection::Unauthenticated(conn) => match frame {
                ClientFrame::Hello(hello) => {
                    match conn.handle_hello(&hello, env.core_version, env.provenance, now) {
                        Handshake::Negotiated { conn, ack } => {
                            *self = AnyConnection::Negotiated(conn);
                            reply(ServerFrame::HelloAck(ack), Vec::new(), false)
                        }
                        Handshake::Closed(closing) => closed(closing),
                    }
                }
                ClientFrame::Request(request) => {
                    forget_token(request);
                    closed(conn.handle_request_before_hello(now))
                }
            },
            AnyConnection::Negotiated(conn) => match frame {
                ClientFrame::Hello(_) => closed(conn.handle_second_hello(now)),
                ClientFrame::Request(request) => {
                    let admission = conn.handle_request(&request, env.resolver, env.backend, now);
                    forget_token(request);
                    match admission {
                        Admission::Authorized(conn) => {
                            let (conn, dispatch) = conn.into_dispatch();
                            *self = AnyConnection::Negotiated(conn);
                            Step::Dispatch(dispatch)
                        }
                        Admission::Denied {
                            conn,
                            denied,
                            audit,
                        } => {
                            *self = AnyConnection::Negotiated(conn);
                            reply(
                                ServerFrame::Denied(denied),
                                audit.into_iter().collect(),
                                false,
                            )
                        }
                    }
                }
            },
            AnyConnection::Closed(_) => Step::Reply {
                frame: None,
                audit: Vec::new(),
                close: true,
            },
        }
    }

    // spec[S2-REFUSE-CLOSE-AUDIT] §2: each refused frame closes the connection and is audited.
    /// A frame could not be read (spec §2): refuse it, audit, close.
    pub fn handle_frame_error(&mut self, error: &FrameError, now: UnixSecs) -> Step {
        let meta = self.meta();
        // A finished connection writes nothing more (its last frame was already given).
        if self.is_closed() {
            return Step::Reply {
                frame: None,
                audit: Vec::new(),
                close: true,
            };
        }
        *self = AnyConnection::Closed(meta);
        let audit = AuditEvent::new(
            now,
            AuditKind::FrameRefused {
                reason: frame_refusal(error),
            },
        )
        .with_connection(meta.id)
        .with_peer_uid(meta.peer_uid);
        reply(
            ServerFrame::Denied(denied(0, &DenialCause::UnreadableFrame)),
            vec![audit],
            true,
        )
    }

    // spec[S5-R8-HANDSHAKE-TIMEOUT] §5 rule 8: no Hello in time → dropped and audited.
    /// The peer sent no `Hello` within the handshake timeout (spec §5 rule 8), or went
    /// idle: close, auditing a handshake timeout when it never negotiated.
    pub fn handle_timeout(&mut self, now: UnixSecs) -> Step {
        let meta = self.meta();
        let was_unauthenticated = matches!(self, AnyConnection::Unauthenticated(_));
        *self = AnyConnection::Closed(meta);
        let audit = was_unauthenticated
            .then(|| {
                AuditEvent::new(now, AuditKind::HandshakeTimeout)
                    .with_connection(meta.id)
                    .with_peer_uid(meta.peer_uid)
            })
            .into_iter()
            .collect();
        Step::Reply {
            frame: None,
            audit,
            close: true,
        }
    }
}

/// Wipe the token a request presented once it has been resolved: the connection keeps no
/// copy of it (the shell's read buffer is the shell's to wipe).
fn forget_token(mut request: pb::Request) {
    request.capability_token.zeroize();
}

fn reply(frame: ServerFrame, audit: Vec<AuditEvent>, close: bool) -> Step {
    Step::Reply {
        frame: Some(frame),
        audit,
        close,
    }
}

fn closed(closing: Closing) -> Step {
    Step::Reply {
        frame: closing.reply,
        audit: closing.audit.into_iter().collect(),
        close: true,
    }
}

/// The audit's reason for a refused frame (spec §2, §10).
fn frame_refusal(error: &FrameError) -> FrameRefusal {
    match error.kind() {
        FrameErrorKind::UnknownTag => FrameRefusal::UnknownTag,
        FrameErrorKind::PayloadTooLarge => FrameRefusal::Oversized,
        FrameErrorKind::LengthTooLong
        | FrameErrorKind::LengthNonCanonical
        | FrameErrorKind::LengthOverflow => FrameRefusal::BadLength,
        FrameErrorKind::MalformedPayload | FrameErrorKind::Poisoned => FrameRefusal::Undecodable,
    }
}
