//! The OS layer of the DI-API (spec §1): where the socket lives and how it is bound so that
//! only our uid can reach it. The peer-credential check that mints
//! [`PeerVerified`](devint::peer::PeerVerified) is the core's ([`devint::peer`]), so its proof
//! cannot be forged above it.
//!
//! This module owns socket path discovery ([`discover`], [`socket_path`]) and the secure
//! bind with its mode/owner/symlink checks and stale-socket probe ([`bind_secure`],
//! [`probe_socket`]), and socket activation: adopting, checking and handing over a passed
//! socket ([`activation`]). It makes no protocol decision, never reads or writes a frame,
//! never repairs (`chmod`s) a directory it did not create, and never falls back to `/tmp`.

pub mod activation;
mod bind;
mod discovery;
mod probe;

pub use bind::{bind_secure, BindError, BoundSocket, Removal, SocketGuard, MAX_SOCKET_PATH_BYTES};
pub use discovery::{
    discover, discover_from_env, socket_path, socket_path_from_env, DiscoveryError,
    SocketDiscovery, DEFAULT_SOCKET_UNDER_HOME, ENV_SOCKET,
};
pub use probe::{probe_socket, SocketProbe};
