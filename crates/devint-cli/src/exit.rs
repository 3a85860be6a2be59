//! How a command ends: spec §9's outcome codes (the core's one table, shared with the
//! sidecar), or the shell's own status for a command a signal cut short, and the one error
//! type every command returns.
//!
//! This module owns the mapping from what went wrong to the process's exit status.
//! Outcomes are [`Exit`]'s codes and nothing else; the only other statuses are 128 + the
//! signal for a command that did not finish ([`CutShort`]: 130 Ctrl-C, 141 a closed stdout,
//! 143 SIGTERM), which say "it stopped" rather than how it ended, and 75 ([`Status::Replaced`],
//! sysexits' `EX_TEMPFAIL`) for `devint serve --on-upgrade exit` leaving so that its service
//! manager starts the new executable. It must never let a failure exit 0.

use std::fmt;

use devint::session::client::ClientError;
use devint_net::client::ClientIoError;

/// The CLI exit codes (spec §9): the core's one table, shared with the sidecar.
pub use devint::exit::{deny_token, Exit};

/// A signal that ended a command before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutShort {
    /// Ctrl-C (SIGINT): 130.
    Interrupted = 2,
    /// Stdout closed by its reader (`devint tools | head -1`; SIGPIPE): 141, quietly, as a
    /// C tool killed by SIGPIPE would.
    ClosedPipe = 13,
    /// SIGTERM: 143.
    Terminated = 15,
}

/// The status a process ends with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A spec §9 outcome.
    Outcome(Exit),
    /// Cut short by a signal.
    CutShort(CutShort),
    /// `serve --on-upgrade exit` saw its executable replaced and left for its service manager
    /// to start the new one (75: a non-zero status, so `Restart=on-failure` and launchd's
    /// `SuccessfulExit=false` restart it, while a plain stop exits 0 and stays stopped).
    Replaced,
}

/// The exit status of [`Status::Replaced`].
pub const REPLACED_CODE: u8 = 75;

impl Status {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Status::Outcome(exit) => exit.code(),
            Status::CutShort(signal) => 128 + signal as u8,
            Status::Replaced => REPLACED_CODE,
        }
    }
}

impl From<Exit> for Status {
    fn from(exit: Exit) -> Status {
        Status::Outcome(exit)
    }
}

impl PartialEq<Exit> for Status {
    fn eq(&self, other: &Exit) -> bool {
        *self == Status::Outcome(*other)
    }
}

/// A command failed: what to tell the person, what to do, and the exit status.
#[derive(Debug)]
pub struct CliError {
    /// The exit status.
    pub exit: Status,
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
    /// An error with an exit status and a message.
    pub fn new(exit: impl Into<Status>, message: impl Into<String>) -> CliError {
        CliError {
            exit: exit.into(),
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

    /// Say what did not happen before what went wrong (`plan X was not applied: …`).
    pub fn context(mut self, what: &str) -> CliError {
        self.message = format!("{what}: {}", self.message);
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

    /// Stdout was closed by its reader: stop quietly (exit 141, nothing printed).
    pub fn closed_pipe() -> CliError {
        CliError::new(
            Status::CutShort(CutShort::ClosedPipe),
            "standard output was closed",
        )
    }

    /// A signal stopped the command (exit 130 or 143).
    pub fn cut_short(signal: CutShort, message: impl Into<String>) -> CliError {
        CliError::new(Status::CutShort(signal), message)
    }
}

/// The command that starts a runtime, printed with every "not running" error.
pub const START_COMMAND: &str = "devint serve";

impl From<ClientIoError> for CliError {
    /// The exit code is the one mapping of `ClientIoError::exit`; this adds the command's
    /// wording and remediation. A denial is better explained with the call it refused
    /// ([`crate::denial::explain`]).
    fn from(e: ClientIoError) -> CliError {
        let exit = e.exit();
        match e {
            ClientIoError::NotRunning(path) => CliError::new(
                exit,
                format!("no devint runtime is running at {}", path.display()),
            )
            .fix(format!(
                "start one with `{START_COMMAND}` (it prints the socket path)"
            )),
            ClientIoError::Session(ClientError::Denied {
                message,
                remediation,
                ..
            }) => CliError::new(exit, format!("the runtime refused the request: {message}"))
                .fix(remediation),
            ClientIoError::Session(ClientError::Incompatible {
                reason,
                remediation,
                ..
            }) => CliError::new(exit, format!("the runtime is incompatible: {reason}"))
                .fix(remediation),
            ClientIoError::Session(e @ ClientError::UnavailableLocally { .. }) => {
                CliError::new(exit, e.to_string())
                    .fix("upgrade the runtime (`devint serve` from this build)")
            }
            ClientIoError::TokenFile(e) => CliError::new(exit, e.to_string()).fix(
                "enrol this client first: `devint enrol --client cli --all-tools --verbs full` \
                 (or point AA_DEVINT_TOKEN_FILE at your token file)",
            ),
            other => CliError::new(exit, other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_runtime_exits_7_and_names_the_start_command() {
        let e = CliError::from(ClientIoError::NotRunning("/x/devint.sock".into()));
        assert_eq!(e.exit, Exit::NotRunning);
        assert!(e.to_string().contains(START_COMMAND));
    }

    #[test]
    fn a_command_cut_short_ends_with_128_plus_the_signal() {
        assert_eq!(Status::CutShort(CutShort::Interrupted).code(), 130);
        assert_eq!(CliError::closed_pipe().exit.code(), 141);
        assert_eq!(Status::CutShort(CutShort::Terminated).code(), 143);
        for exit in Exit::ALL {
            assert_eq!(Status::from(exit).code(), exit.code());
        }
    }
}
