//! Where the runtime's socket is, and how the user chose it: `--socket`, `AA_DEVINT_SOCKET`,
//! or the default under `HOME` (spec §1).
//!
//! This module owns that choice ([`SocketChoice::resolve`]) and the fixes that follow from
//! it: a socket path nobody serves on, one that is not a socket, or one too long for a Unix
//! socket is fixed the way the user chose it — `--socket` on the command line, the variable
//! in the environment, `HOME` for the default — never with a variable the user did not set.
//! It must never guess the origin after the fact.

use std::path::{Path, PathBuf};

use devint_net::client::ClientIoError;
use devint_net::transport::{BindError, DiscoveryError, ENV_SOCKET};

use crate::exit::{CliError, Exit, START_COMMAND};

/// How the user chose the socket path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketOrigin {
    /// `--socket PATH`.
    Flag,
    /// `AA_DEVINT_SOCKET`.
    Env,
    /// `$HOME/.aa/run/devint.sock`.
    Home,
}

/// The socket path and how it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocketChoice {
    path: PathBuf,
    origin: SocketOrigin,
}

impl SocketChoice {
    /// `--socket` (`flag`), else `AA_DEVINT_SOCKET`, else `$HOME/.aa/run/devint.sock`.
    pub fn resolve(flag: Option<&Path>) -> Result<SocketChoice, CliError> {
        match flag {
            Some(p) if p.is_absolute() => Ok(SocketChoice::new(p, SocketOrigin::Flag)),
            Some(p) => Err(CliError::usage(format!(
                "--socket {} is not an absolute path",
                p.display()
            ))),
            None => {
                let path = devint_net::transport::socket_path_from_env()
                    .map_err(|e| CliError::usage(e.to_string()))?;
                let env = std::env::var_os(ENV_SOCKET).is_some_and(|v| !v.is_empty());
                let origin = if env {
                    SocketOrigin::Env
                } else {
                    SocketOrigin::Home
                };
                Ok(SocketChoice { path, origin })
            }
        }
    }

    /// `path`, chosen by `origin`.
    pub fn new(path: impl Into<PathBuf>, origin: SocketOrigin) -> SocketChoice {
        SocketChoice {
            path: path.into(),
            origin,
        }
    }

    /// The path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The command that starts a runtime on this socket.
    pub fn serve_command(&self) -> String {
        match self.origin {
            SocketOrigin::Flag => format!("{START_COMMAND} --socket {}", self.path.display()),
            SocketOrigin::Env | SocketOrigin::Home => START_COMMAND.to_owned(),
        }
    }

    /// How to name another socket path, as the user named this one.
    fn another(&self, which: &str) -> String {
        match self.origin {
            SocketOrigin::Flag => format!("pass --socket {which}"),
            SocketOrigin::Env => format!("set {ENV_SOCKET} to {which}"),
            SocketOrigin::Home => format!(
                "set {ENV_SOCKET} to {which} (the default {} comes from HOME)",
                self.path.display()
            ),
        }
    }

    /// A failure to reach a runtime on this socket, with the fix in the user's own terms.
    pub fn unreachable(&self, e: ClientIoError) -> CliError {
        match &e {
            ClientIoError::NotRunning(path) => CliError::new(
                e.exit(),
                format!("no devint runtime is running at {}", path.display()),
            )
            .fix(format!(
                "start one with `{}` (it prints the socket path)",
                self.serve_command()
            )),
            ClientIoError::Discovery(DiscoveryError::NotASocket(path)) => {
                CliError::new(Exit::Usage, e.to_string()).fix(format!(
                    "{}, or move {} aside and start a runtime there with `{}`",
                    self.another("the socket a runtime serves on (`devint serve` prints it)"),
                    path.display(),
                    self.serve_command()
                ))
            }
            ClientIoError::Discovery(DiscoveryError::TooLong { max, .. }) => {
                CliError::new(Exit::Usage, e.to_string())
                    .fix(self.another(&format!("a path of at most {max} bytes")))
            }
            _ => CliError::from(e),
        }
    }

    /// `serve` could not bind this socket: a path that cannot hold a socket is a usage
    /// error (exit 2) fixed as the user named the path; anything else stops `serve` (1).
    pub fn unbindable(&self, e: BindError) -> CliError {
        let message = format!("cannot serve: {e}");
        match e {
            BindError::PathTooLong { .. } => {
                CliError::new(Exit::Usage, message).fix(self.another("a shorter path"))
            }
            BindError::NoFileName(_) | BindError::NotADirectory(_) | BindError::NotASocket(_) => {
                CliError::new(Exit::Usage, message)
            }
            _ => CliError::internal(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fix_names_the_way_the_user_chose_the_path() {
        let long = ClientIoError::Discovery(DiscoveryError::TooLong {
            path: "/x".into(),
            len: 200,
            max: 107,
        });
        let fix = |origin, e| {
            SocketChoice::new("/r/devint.sock", origin)
                .unreachable(e)
                .remediation
                .unwrap()
        };
        assert!(fix(SocketOrigin::Flag, long).starts_with("pass --socket a path of at most"));
        let long = ClientIoError::Discovery(DiscoveryError::TooLong {
            path: "/x".into(),
            len: 200,
            max: 107,
        });
        let env = fix(SocketOrigin::Env, long);
        assert!(env.starts_with("set AA_DEVINT_SOCKET to"), "{env}");
        let not_running = ClientIoError::NotRunning("/r/devint.sock".into());
        assert!(
            fix(SocketOrigin::Flag, not_running).contains("`devint serve --socket /r/devint.sock`")
        );
    }
}
