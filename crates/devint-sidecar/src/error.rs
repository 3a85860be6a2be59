//! The sidecar's one error type and the one table from what went wrong to a JSON-RPC error
//! object: its `code`, and `data` with the kind, the CLI exit code (spec §9), the DI-API deny
//! code when the runtime denied, the remediation, and the runtime report for a standing
//! refusal.
//!
//! This module owns the error codes of `devint.sidecar.v1` (`docs/sidecar-protocol.md`
//! lists them) and the wording of client failures for a host. The exit code of a client
//! failure is never decided here: it is `ClientIoError::exit`, the `devint` command's own
//! mapping. It must never put a token, a params value or any other input it refused into a
//! message.

use devint::exit::{deny_token, Exit};
use devint::wire::pb::DenyCode;
use devint_net::client::ClientIoError;
use devint_net::token_file::TokenFileError;
use serde_json::{json, Value};

/// What kind of failure, with its JSON-RPC code. Written without a wildcard arm anywhere, so
/// a new kind does not compile until it has a code and an exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A line that is not JSON (or not UTF-8).
    ParseError,
    /// JSON that is not a JSON-RPC 2.0 request (a batch, no `method`, a bad `id`, …).
    InvalidRequest,
    /// A method `devint.sidecar.v1` does not have.
    MethodNotFound,
    /// Params missing, of the wrong type, with an unknown key, or outside a vocabulary.
    InvalidParams,
    /// A fault of the sidecar itself (e.g. a result over the line cap).
    Internal,
    /// A line over the 1 MiB cap; it was skipped unread.
    LineTooLong,
    /// `initialize` was not called first, or was called twice.
    NotInitialized,
    /// A message carried something token-shaped: the secret never crosses stdio.
    CredentialRefused,
    /// No open session has this id.
    UnknownSession,
    /// A bound was reached (sessions, pending requests, follows).
    Limit,
    /// The socket path could not be worked out or is not a socket.
    Socket,
    /// No runtime is running at the socket.
    NotRunning,
    /// The runtime is incompatible, or a verb is unavailable at the negotiated version.
    Incompatible,
    /// The runtime denied the request (`data.deny_code` says how).
    Denied,
    /// The runtime's provenance standing refuses the call (spec §8).
    StandingRefused,
    /// The token file is missing, malformed, or readable by others.
    TokenFile,
    /// The connection to the runtime failed or was lost (closed, timed out, broke the
    /// protocol); the session is unusable.
    ConnectionLost,
}

impl ErrorKind {
    /// The JSON-RPC `error.code`.
    pub const fn code(self) -> i64 {
        match self {
            ErrorKind::ParseError => -32700,
            ErrorKind::InvalidRequest => -32600,
            ErrorKind::MethodNotFound => -32601,
            ErrorKind::InvalidParams => -32602,
            ErrorKind::Internal => -32603,
            ErrorKind::LineTooLong => -32000,
            ErrorKind::NotInitialized => -32001,
            ErrorKind::CredentialRefused => -32002,
            ErrorKind::UnknownSession => -32003,
            ErrorKind::Limit => -32004,
            ErrorKind::Socket => -32005,
            ErrorKind::NotRunning => -32010,
            ErrorKind::Incompatible => -32011,
            ErrorKind::Denied => -32012,
            ErrorKind::StandingRefused => -32013,
            ErrorKind::TokenFile => -32014,
            ErrorKind::ConnectionLost => -32015,
        }
    }

    /// `data.kind`.
    pub const fn token(self) -> &'static str {
        match self {
            ErrorKind::ParseError => "parse_error",
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::MethodNotFound => "method_not_found",
            ErrorKind::InvalidParams => "invalid_params",
            ErrorKind::Internal => "internal",
            ErrorKind::LineTooLong => "line_too_long",
            ErrorKind::NotInitialized => "not_initialized",
            ErrorKind::CredentialRefused => "credential_refused",
            ErrorKind::UnknownSession => "unknown_session",
            ErrorKind::Limit => "limit",
            ErrorKind::Socket => "socket",
            ErrorKind::NotRunning => "not_running",
            ErrorKind::Incompatible => "incompatible",
            ErrorKind::Denied => "denied",
            ErrorKind::StandingRefused => "standing_refused",
            ErrorKind::TokenFile => "token_file",
            ErrorKind::ConnectionLost => "connection_lost",
        }
    }

    /// The exit code a kind has when nothing more specific decides it: the host's mistakes
    /// are usage errors (2), the sidecar's faults internal (1). Client failures carry the
    /// exit of `ClientIoError::exit` instead.
    const fn default_exit(self) -> Exit {
        match self {
            ErrorKind::ParseError
            | ErrorKind::InvalidRequest
            | ErrorKind::MethodNotFound
            | ErrorKind::InvalidParams
            | ErrorKind::LineTooLong
            | ErrorKind::NotInitialized
            | ErrorKind::CredentialRefused
            | ErrorKind::UnknownSession
            | ErrorKind::Socket => Exit::Usage,
            ErrorKind::Internal | ErrorKind::Limit | ErrorKind::ConnectionLost => Exit::Internal,
            ErrorKind::NotRunning => Exit::NotRunning,
            ErrorKind::Incompatible => Exit::Incompatible,
            ErrorKind::Denied | ErrorKind::TokenFile => Exit::Denied,
            ErrorKind::StandingRefused => Exit::Refuted,
        }
    }

    /// Every kind (for the documentation test).
    pub const ALL: [ErrorKind; 17] = [
        ErrorKind::ParseError,
        ErrorKind::InvalidRequest,
        ErrorKind::MethodNotFound,
        ErrorKind::InvalidParams,
        ErrorKind::Internal,
        ErrorKind::LineTooLong,
        ErrorKind::NotInitialized,
        ErrorKind::CredentialRefused,
        ErrorKind::UnknownSession,
        ErrorKind::Limit,
        ErrorKind::Socket,
        ErrorKind::NotRunning,
        ErrorKind::Incompatible,
        ErrorKind::Denied,
        ErrorKind::StandingRefused,
        ErrorKind::TokenFile,
        ErrorKind::ConnectionLost,
    ];
}

/// A failure to report to the host as a JSON-RPC error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SidecarError {
    /// The kind (and so the code).
    pub kind: ErrorKind,
    /// What went wrong, one line.
    pub message: String,
    /// What to do about it.
    pub remediation: Option<String>,
    /// The CLI exit code this maps to (spec §9).
    pub exit: Exit,
    /// The runtime's `Denied.code`, when it denied.
    pub deny_code: Option<DenyCode>,
    /// The runtime report, for a refusal that concerns the runtime (like the CLI's).
    pub runtime: Option<Value>,
}

impl std::fmt::Display for SidecarError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SidecarError {}

impl SidecarError {
    /// An error of `kind` with its default exit code.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> SidecarError {
        SidecarError {
            kind,
            message: message.into(),
            remediation: None,
            exit: kind.default_exit(),
            deny_code: None,
            runtime: None,
        }
    }

    /// Add what to do.
    pub fn fix(mut self, remediation: impl Into<String>) -> SidecarError {
        self.remediation = Some(remediation.into());
        self
    }

    /// Replace the exit code.
    pub fn with_exit(mut self, exit: Exit) -> SidecarError {
        self.exit = exit;
        self
    }

    /// Attach the runtime report.
    pub fn with_runtime(mut self, runtime: Value) -> SidecarError {
        self.runtime = Some(runtime);
        self
    }

    /// Bad params.
    pub fn params(message: impl Into<String>) -> SidecarError {
        SidecarError::new(ErrorKind::InvalidParams, message)
    }

    /// A fault of the sidecar.
    pub fn internal(message: impl Into<String>) -> SidecarError {
        SidecarError::new(ErrorKind::Internal, message)
    }

    /// The JSON-RPC error object.
    pub fn to_object(&self) -> Value {
        json!({
            "code": self.kind.code(),
            "message": self.message,
            "data": {
                "kind": self.kind.token(),
                "exit": self.exit,
                "deny_code": self.deny_code.map(deny_token),
                "remediation": self.remediation,
                "runtime": self.runtime,
            },
        })
    }

    /// A client failure, in a host's words. The exit and deny code are the client
    /// library's (`ClientIoError::exit`, `ClientIoError::deny_code`), as the `devint`
    /// command reports them.
    pub fn from_client(e: &ClientIoError) -> SidecarError {
        let exit = e.exit();
        let deny_code = e.deny_code();
        let mut error = match e {
            ClientIoError::NotRunning(path) => SidecarError::new(
                ErrorKind::NotRunning,
                format!("no devint runtime is running at {}", path.display()),
            )
            .fix("start one with `devint serve` (it prints the socket path)"),
            ClientIoError::Discovery(d) => SidecarError::new(ErrorKind::Socket, d.to_string())
                .fix("pass an absolute `socket`, or set HOME or AA_DEVINT_SOCKET for the sidecar"),
            ClientIoError::TokenFile(t) => token_file_error(t),
            ClientIoError::Session(devint::session::client::ClientError::Denied {
                code,
                message,
                remediation,
                ..
            }) => SidecarError::new(
                ErrorKind::Denied,
                format!(
                    "the runtime denied the request ({}): {message}",
                    deny_token(*code)
                ),
            )
            .fix(remediation.clone()),
            ClientIoError::Session(devint::session::client::ClientError::Incompatible {
                reason,
                remediation,
                ..
            }) => SidecarError::new(
                ErrorKind::Incompatible,
                format!("the runtime is incompatible: {reason}"),
            )
            .fix(remediation.clone()),
            ClientIoError::Session(
                unavailable @ devint::session::client::ClientError::UnavailableLocally { .. },
            ) => SidecarError::new(ErrorKind::Incompatible, unavailable.to_string())
                .fix("upgrade the runtime, or call only the verbs the negotiated version has"),
            ClientIoError::Encode(_) => SidecarError::internal(e.to_string()),
            // Protocol failures, and whatever the client library adds later.
            ClientIoError::Session(_)
            | ClientIoError::Connect { .. }
            | ClientIoError::Timeout(_)
            | ClientIoError::ClosedMidCall
            | ClientIoError::ClosedBeforeSending
            | ClientIoError::Frame(_)
            | ClientIoError::Io(_) => SidecarError::new(
                ErrorKind::ConnectionLost,
                format!("the connection to the runtime failed: {e}"),
            )
            .fix(
                "open a new session (`session/open`); if it keeps failing, restart `devint serve`",
            ),
        };
        error.exit = exit;
        error.deny_code = deny_code;
        error
    }
}

/// A token file that could not be used: its path and why, never its content.
pub fn token_file_error(e: &TokenFileError) -> SidecarError {
    SidecarError::new(ErrorKind::TokenFile, e.to_string()).fix(
        "enrol this client with `devint enrol --client NAME --all-tools --verbs full` (it \
         writes NAME.token beside the socket), then open the session with `client_name: \
         NAME` (or pass `client: NAME`, or `token_file: PATH`)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_kind_tokens_are_distinct() {
        let mut codes: Vec<i64> = ErrorKind::ALL.iter().map(|k| k.code()).collect();
        let mut tokens: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.token()).collect();
        codes.sort_unstable();
        codes.dedup();
        tokens.sort_unstable();
        tokens.dedup();
        assert_eq!(codes.len(), ErrorKind::ALL.len());
        assert_eq!(tokens.len(), ErrorKind::ALL.len());
    }

    #[test]
    fn a_denial_carries_its_deny_code_and_the_clis_exit() {
        let e = SidecarError::from_client(&ClientIoError::Session(
            devint::session::client::ClientError::Denied {
                request_id: 3,
                code: DenyCode::OutOfScope,
                message: "not in scope".into(),
                remediation: "enrol with the verb".into(),
            },
        ));
        let o = e.to_object();
        assert_eq!(o["code"], -32012);
        assert_eq!(o["data"]["kind"], "denied");
        assert_eq!(o["data"]["exit"], 8);
        assert_eq!(o["data"]["deny_code"], "out_of_scope");
        assert_eq!(o["data"]["remediation"], "enrol with the verb");
    }

    #[test]
    fn no_error_maps_to_exit_0() {
        for kind in ErrorKind::ALL {
            assert_ne!(kind.default_exit(), Exit::Ok, "{kind:?}");
        }
    }
}
