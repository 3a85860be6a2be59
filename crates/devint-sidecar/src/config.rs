//! What a sidecar runs with: the environment it resolves sockets and token files from
//! (captured once, so tests pass their own and never touch the real `$HOME`), its bounds,
//! and the client's timeouts.
//!
//! This module owns the defaults of `devint.sidecar.v1`'s bounds (`initialize` reports
//! them). It reads the process environment only in [`Environment::from_process`].

use std::ffi::OsString;
use std::path::PathBuf;

use devint_net::client::ClientOptions;

/// The environment values the sidecar resolves paths from (spec §1, §7).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    /// `AA_DEVINT_SOCKET` (an empty value counts as unset).
    pub socket: Option<String>,
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `AA_DEVINT_TOKEN_FILE` (an empty value counts as unset).
    pub token_file: Option<OsString>,
}

impl Environment {
    /// This process's values.
    pub fn from_process() -> Environment {
        Environment {
            socket: std::env::var(devint_net::transport::ENV_SOCKET).ok(),
            home: std::env::var_os("HOME").map(PathBuf::from),
            token_file: std::env::var_os(devint_net::token_file::TOKEN_FILE_ENV),
        }
    }
}

/// How a sidecar behaves.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where paths come from.
    pub environment: Environment,
    /// The socket used when a call names none (`devint --socket PATH sidecar`); else the
    /// environment's.
    pub default_socket: Option<PathBuf>,
    /// The default of `session/open`'s `allow_unverified_runtime`
    /// (`devint --allow-unverified-runtime sidecar`).
    pub allow_unverified_runtime: bool,
    /// Timeouts of every session's client (its `versions` are `session/open`'s
    /// `di_api_versions`, else the whole window).
    pub client: ClientOptions,
    /// Sessions open (or opening) at once, at most.
    pub max_sessions: usize,
    /// Requests waiting on one session, at most.
    pub max_pending_per_session: usize,
    /// Follows on one session, at most.
    pub max_follows_per_session: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            environment: Environment::default(),
            default_socket: None,
            allow_unverified_runtime: false,
            client: ClientOptions::default(),
            max_sessions: 64,
            max_pending_per_session: 64,
            max_follows_per_session: 16,
        }
    }
}
