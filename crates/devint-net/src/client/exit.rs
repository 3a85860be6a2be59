//! What a client failure means in spec §9's numbers: the one mapping from a
//! [`ClientIoError`] to the exit code (and the DI-API deny code behind it, when the runtime
//! denied), shared by the `devint` command and the sidecar.
//!
//! This module owns only the classification; each surface words its own message and
//! remediation. It must never map a failure to success.

use devint::exit::Exit;
use devint::session::client::ClientError;
use devint::verbs::{Verb, VerbSet};
use devint::wire::pb::DenyCode;

use super::error::ClientIoError;

impl ClientIoError {
    /// The exit code of spec §9 this failure maps to: not running 7; a denial per its code
    /// ([`Exit::for_denial`]); incompatible or a verb the negotiated version lacks 4; an
    /// unusable token file 8 (the client cannot authenticate); an unusable socket path 2;
    /// anything else (a lost connection, a timeout, a protocol error) 1.
    pub fn exit(&self) -> Exit {
        match self {
            ClientIoError::NotRunning(_) => Exit::NotRunning,
            ClientIoError::Discovery(_) => Exit::Usage,
            ClientIoError::TokenFile(_) => Exit::Denied,
            ClientIoError::Session(e) => match e {
                ClientError::Denied { code, .. } => Exit::for_denial(*code),
                ClientError::Incompatible { .. } | ClientError::UnavailableLocally { .. } => {
                    Exit::Incompatible
                }
                ClientError::Protocol(_) | ClientError::Response(_) => Exit::Internal,
                // A failure the core learns to tell apart later is at least not a success.
                _ => Exit::Internal,
            },
            ClientIoError::Connect { .. }
            | ClientIoError::Timeout(_)
            | ClientIoError::ClosedMidCall
            | ClientIoError::ClosedBeforeSending
            | ClientIoError::Frame(_)
            | ClientIoError::Encode(_)
            | ClientIoError::Io(_) => Exit::Internal,
        }
    }

    /// The runtime's `Denied.code`, when the runtime denied the request.
    pub fn deny_code(&self) -> Option<DenyCode> {
        match self {
            ClientIoError::Session(ClientError::Denied { code, .. }) => Some(*code),
            _ => None,
        }
    }

    /// Whether the connection can no longer be used: it closed, timed out mid-call, broke
    /// the framing or the protocol, so a later call on it would be a guess. A denial, an
    /// unavailable verb or a token-file problem leave the connection usable.
    pub fn is_connection_lost(&self) -> bool {
        match self {
            ClientIoError::Timeout(_)
            | ClientIoError::ClosedMidCall
            | ClientIoError::ClosedBeforeSending
            | ClientIoError::Frame(_)
            | ClientIoError::Io(_)
            | ClientIoError::Connect { .. }
            | ClientIoError::NotRunning(_)
            | ClientIoError::Session(ClientError::Protocol(_))
            | ClientIoError::Session(ClientError::Incompatible { .. }) => true,
            ClientIoError::Discovery(_)
            | ClientIoError::TokenFile(_)
            | ClientIoError::Encode(_)
            | ClientIoError::Session(ClientError::Denied { .. })
            | ClientIoError::Session(ClientError::UnavailableLocally { .. }) => false,
            // An unreadable answer arrived whole, in its frame: the stream is still in step.
            ClientIoError::Session(ClientError::Response(_)) => false,
            // A session failure not classified here: do not reuse the connection on a guess.
            ClientIoError::Session(_) => true,
        }
    }

    /// Whether the connection closed before the runtime answered (a runtime stopping, or
    /// handing its socket over to its next executable, closes each connection once it has
    /// answered what it read).
    pub fn is_closed_before_answer(&self) -> bool {
        matches!(
            self,
            ClientIoError::ClosedMidCall | ClientIoError::ClosedBeforeSending
        )
    }

    /// Whether a call of `verb` that failed with this error may be sent once more, on a new
    /// connection: a request that was never written may always be (the runtime never
    /// received it); one that was written and met a closed connection only when `verb` is
    /// read-only (spec §7's `read_only` set: asking again changes nothing), never a change
    /// that may have been made.
    pub fn may_send_again(&self, verb: Verb) -> bool {
        match self {
            ClientIoError::ClosedBeforeSending => true,
            ClientIoError::ClosedMidCall => VerbSet::read_only().contains(verb),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Stage;

    fn denied(code: DenyCode) -> ClientIoError {
        ClientIoError::Session(ClientError::Denied {
            request_id: 1,
            code,
            message: "no".into(),
            remediation: "do".into(),
        })
    }

    #[test]
    fn a_missing_runtime_is_7_and_a_token_denial_is_8() {
        assert_eq!(
            ClientIoError::NotRunning("/x/devint.sock".into()).exit(),
            Exit::NotRunning
        );
        assert_eq!(denied(DenyCode::Unauthenticated).exit(), Exit::Denied);
        assert_eq!(
            denied(DenyCode::Unauthenticated).deny_code(),
            Some(DenyCode::Unauthenticated)
        );
    }

    #[test]
    fn a_denial_maps_through_the_one_table() {
        for n in 1..=8 {
            let code = DenyCode::try_from(n).expect("a deny code");
            assert_eq!(denied(code).exit(), Exit::for_denial(code));
        }
    }

    #[test]
    fn a_lost_connection_is_internal_and_unusable_but_a_denial_is_not() {
        let lost = ClientIoError::ClosedMidCall;
        assert_eq!(lost.exit(), Exit::Internal);
        assert!(lost.is_connection_lost());
        assert!(ClientIoError::Timeout(Stage::Call).is_connection_lost());
        assert!(!denied(DenyCode::LifecycleError).is_connection_lost());
        assert_eq!(lost.deny_code(), None);
        assert!(ClientIoError::ClosedBeforeSending.is_connection_lost());
    }

    #[test]
    fn a_request_never_written_may_be_sent_again_whatever_its_verb() {
        for verb in Verb::ALL {
            assert!(
                ClientIoError::ClosedBeforeSending.may_send_again(verb),
                "{verb}"
            );
        }
    }

    #[test]
    fn a_request_written_before_the_close_is_sent_again_only_when_read_only() {
        let again: Vec<Verb> = Verb::ALL
            .into_iter()
            .filter(|v| ClientIoError::ClosedMidCall.may_send_again(*v))
            .collect();
        assert_eq!(
            again,
            [
                Verb::ListTools,
                Verb::Status,
                Verb::Verify,
                Verb::ScopedEvents
            ]
        );
        for other in [
            ClientIoError::Timeout(Stage::Call),
            denied(DenyCode::LifecycleError),
        ] {
            assert!(!other.may_send_again(Verb::Status), "{other:?}");
        }
    }
}
