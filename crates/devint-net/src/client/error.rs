//! The client shell's errors: each failure a distinct, typed case.

use std::path::PathBuf;

use crate::token_file::TokenFileError;
use crate::transport::DiscoveryError;
use devint::session::client::ClientError;
use devint::wire::{EncodeError, FrameError};

/// Which step timed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Connecting to the socket.
    Connect,
    /// Waiting for `HelloAck`.
    Handshake,
    /// Waiting for a call's answer.
    Call,
}

/// What can go wrong talking to a runtime.
#[derive(Debug, thiserror::Error)]
pub enum ClientIoError {
    /// No socket where the runtime should be: it is not running (exit code 7).
    #[error("no DI-API runtime is running at {0} (start one with `devint serve`)")]
    NotRunning(PathBuf),
    /// The socket path could not be worked out.
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// Connecting failed.
    #[error("could not connect to {path}: {source}")]
    Connect {
        /// The socket.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A step took too long.
    #[error("timed out during {0:?}")]
    Timeout(Stage),
    /// The runtime closed the connection before answering: what was sent may have been
    /// received (see [`ClientIoError::may_send_again`]).
    #[error("the runtime closed the connection before answering")]
    ClosedMidCall,
    /// The runtime had closed the connection (or stopped reading it, as it does when it
    /// hands its socket over) before the frame could be written: it was never received.
    #[error("the runtime closed the connection before the request could be sent")]
    ClosedBeforeSending,
    /// The runtime sent a frame that could not be read (e.g. over the 1 MiB bound).
    #[error("the runtime sent an unreadable frame: {0}")]
    Frame(#[from] FrameError),
    /// A frame could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// The session core refused (incompatible, denied, protocol error, unavailable verb).
    #[error(transparent)]
    Session(#[from] ClientError),
    /// Socket IO failed.
    #[error("socket IO failed: {0}")]
    Io(#[from] std::io::Error),
    /// The token file could not be used.
    #[error(transparent)]
    TokenFile(#[from] TokenFileError),
}
