//! The exit codes of spec §9 and the one error type every command returns.
//!
//! This module owns the mapping from what went wrong to the process's exit code. Outcomes
//! are spec §9's codes and nothing else; the only other statuses are the shell's own for a
//! command a signal cut short (128 + the signal: 130 Ctrl-C, 141 a closed stdout, 143
//! SIGTERM), which say "the command did not finish" rather than how it ended. It must never
//! let a failure exit 0.

use std::fmt;

use devint::session::ClientError;
use devint::wire::pb::DenyCode;
use devint_net::client::ClientIoError;

/// The CLI exit codes (spec §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// spec[S9-EXIT-CODES] §9: exactly these codes, 0–11.
pub enum Exit {
    /// 0: success.
    Ok = 0,
    /// 1: internal error.
    Internal = 1,
    /// 2: usage error.
    Usage = 2,
    /// 3: unsupported.
    Unsupported = 3,
    /// 4: incompatible.
    Incompatible = 4,
    /// 5: drifted.
    Drifted = 5,
    /// 6: verification failed.
    VerificationFailed = 6,
    /// 7: runtime not running.
    NotRunning = 7,
    /// 8: denied.
    Denied = 8,
    /// 9: aborted by the user.
    Aborted = 9,
    /// 10: runtime refuted (different build, deleted executable, more than one runtime).
    Refuted = 10,
    /// 11: runtime unverifiable (privileged command refused).
    Unverifiable = 11,
    /// 130 (128 + SIGINT): interrupted by Ctrl-C before it finished.
    Interrupted = 130,
    /// 141 (128 + SIGPIPE): stdout was closed by its reader (`devint tools | head -1`); the
    /// command stopped quietly, as a C tool killed by SIGPIPE would.
    ClosedPipe = 141,
    /// 143 (128 + SIGTERM): terminated before it finished.
    Terminated = 143,
}

impl Exit {
    /// The numeric code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The code for a standing refusal's number (10 or 11).
    pub fn from_standing_code(code: u8) -> Exit {
        if code == devint::provenance::EXIT_UNVERIFIABLE {
            Exit::Unverifiable
        } else {
            Exit::Refuted
        }
    }
}

/// A command failed: what to tell the person, what to do, and the exit code.
#[derive(Debug)]
pub struct CliError {
    /// The exit code.
    pub exit: Exit,
    /// What went wrong.
    pub message: String,
    /// What to do about it, if there is something to say.
    pub remediation: Option<String>,
    /// The `runtime` object of the JSON envelope, when a runtime answered.
    pub runtime: Option<serde_json::Value>,
    /// What the runtime denied (`error.denial` in JSON: code, verb, tool, token id).
    pub denial: Option<serde_json::Value>,
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(r) = &self.remediation {
            write!(f, "\n  to fix: {r}")?;
        }
        Ok(())
    }
}

impl std::error::Error for CliError {}

impl CliError {
    /// An error with an exit code and a message.
    pub fn new(exit: Exit, message: impl Into<String>) -> CliError {
        CliError {
            exit,
            message: message.into(),
            remediation: None,
            runtime: None,
            denial: None,
        }
    }

    /// Attach what we know about the runtime that answered.
    pub fn with_runtime(mut self, runtime: &serde_json::Value) -> CliError {
        self.runtime = Some(runtime.clone());
        self
    }

    /// Add what to do.
    pub fn fix(mut self, remediation: impl Into<String>) -> CliError {
        self.remediation = Some(remediation.into());
        self
    }

    /// An internal error (exit 1).
    pub fn internal(message: impl Into<String>) -> CliError {
        CliError::new(Exit::Internal, message)
    }

    /// A usage error (exit 2).
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError::new(Exit::Usage, message)
    }

    /// Say what did not happen before what went wrong (`plan X was not applied: …`).
    pub fn context(mut self, what: &str) -> CliError {
        self.message = format!("{what}: {}", self.message);
        self
    }

    /// Stdout was closed by its reader: stop quietly (exit 141, nothing printed).
    pub fn closed_pipe() -> CliError {
        CliError::new(Exit::ClosedPipe, "standard output was closed")
    }
}

/// The command that starts a runtime, printed with every "not running" error.
pub const START_COMMAND: &str = "devint serve";

/// The exit code for a `Denied.code` (spec §6 → §9).
pub fn exit_for_denial(code: DenyCode) -> Exit {
    match code {
        DenyCode::Unauthenticated | DenyCode::TokenExpired | DenyCode::OutOfScope => Exit::Denied,
        DenyCode::UnavailableAtVersion => Exit::Incompatible,
        DenyCode::UnknownTool => Exit::Unsupported,
        DenyCode::LifecycleError => Exit::Internal,
        DenyCode::UnknownVerb | DenyCode::ProtocolViolation | DenyCode::Unspecified => {
            Exit::Internal
        }
    }
}

impl From<ClientIoError> for CliError {
    fn from(e: ClientIoError) -> CliError {
        match e {
            ClientIoError::NotRunning(path) => CliError::new(
                Exit::NotRunning,
                format!("no devint runtime is running at {}", path.display()),
            )
            .fix(format!(
                "start one with `{START_COMMAND}` (it prints the socket path)"
            )),
            ClientIoError::Session(ClientError::Denied {
                code,
                message,
                remediation,
                ..
            }) => CliError::new(
                exit_for_denial(code),
                format!("the runtime refused the request: {message}"),
            )
            .fix(remediation),
            ClientIoError::Session(ClientError::Incompatible {
                reason,
                remediation,
                ..
            }) => CliError::new(
                Exit::Incompatible,
                format!("the runtime is incompatible: {reason}"),
            )
            .fix(remediation),
            ClientIoError::Session(e @ ClientError::UnavailableLocally { .. }) => {
                CliError::new(Exit::Incompatible, e.to_string())
                    .fix("upgrade the runtime (`devint serve` from this build)")
            }
            ClientIoError::TokenFile(e) => CliError::new(Exit::Denied, e.to_string()).fix(
                "enrol this client first: `devint enrol --client cli --all-tools --verbs full` \
                 (or point AA_DEVINT_TOKEN_FILE at your token file)",
            ),
            ClientIoError::Discovery(e) => CliError::usage(e.to_string()),
            other => CliError::internal(other.to_string()),
        }
    }
}

/// The snake_case name of a denial code, for messages and JSON.
pub fn deny_token(code: DenyCode) -> &'static str {
    match code {
        DenyCode::Unspecified => "unspecified",
        DenyCode::Unauthenticated => "unauthenticated",
        DenyCode::TokenExpired => "token_expired",
        DenyCode::OutOfScope => "out_of_scope",
        DenyCode::UnknownVerb => "unknown_verb",
        DenyCode::ProtocolViolation => "protocol_violation",
        DenyCode::UnavailableAtVersion => "unavailable_at_version",
        DenyCode::LifecycleError => "lifecycle_error",
        DenyCode::UnknownTool => "unknown_tool",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_denials_exit_8_and_incompatibility_exits_4() {
        for code in [
            DenyCode::Unauthenticated,
            DenyCode::TokenExpired,
            DenyCode::OutOfScope,
        ] {
            assert_eq!(exit_for_denial(code), Exit::Denied);
        }
        assert_eq!(
            exit_for_denial(DenyCode::UnavailableAtVersion),
            Exit::Incompatible
        );
        assert_eq!(exit_for_denial(DenyCode::UnknownTool), Exit::Unsupported);
    }

    #[test]
    fn a_missing_runtime_exits_7_and_names_the_start_command() {
        let e = CliError::from(ClientIoError::NotRunning("/x/devint.sock".into()));
        assert_eq!(e.exit, Exit::NotRunning);
        assert!(e.to_string().contains(START_COMMAND));
    }

    #[test]
    fn exit_codes_are_spec_section_9_and_the_shells_signal_statuses() {
        let all = [
            (Exit::Ok, 0),
            (Exit::Internal, 1),
            (Exit::Usage, 2),
            (Exit::Unsupported, 3),
            (Exit::Incompatible, 4),
            (Exit::Drifted, 5),
            (Exit::VerificationFailed, 6),
            (Exit::NotRunning, 7),
            (Exit::Denied, 8),
            (Exit::Aborted, 9),
            (Exit::Refuted, 10),
            (Exit::Unverifiable, 11),
            (Exit::Interrupted, 130),
            (Exit::ClosedPipe, 141),
            (Exit::Terminated, 143),
        ];
        for (exit, code) in all {
            assert_eq!(exit.code(), code);
        }
    }
}
