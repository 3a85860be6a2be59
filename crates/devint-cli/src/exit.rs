//! The exit codes of spec §9 and the one error type every command returns.
//!
//! This module owns the mapping from what went wrong to the process's exit code. It must
//! never invent a code outside spec §9, and never let a failure exit 0.

use std::fmt;

use devint::session::ClientError;
use devint_net::client::ClientIoError;

/// The CLI exit codes (spec §9): the core's one table, shared with the sidecar.
pub use devint::exit::{deny_token, Exit};

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
}

/// The command that starts a runtime, printed with every "not running" error.
pub const START_COMMAND: &str = "devint serve";

impl From<ClientIoError> for CliError {
    /// The exit code is the one mapping of `ClientIoError::exit`; this adds the command's
    /// wording and remediation.
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
                code,
                message,
                remediation,
                ..
            }) => CliError::new(
                exit,
                format!(
                    "the runtime denied the request ({}): {message}",
                    deny_token(code)
                ),
            )
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
}
