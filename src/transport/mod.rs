//! The OS layer of the DI-API (spec §1): where the socket lives, how it is bound so that
//! only our uid can reach it, and the peer-credential check that mints [`PeerVerified`].
//!
//! This module owns socket path discovery ([`discovery`]), the secure bind with its
//! mode/owner/symlink checks and stale-socket probe ([`bind`], [`probe`]), and the peer uid
//! check at accept ([`peer`]). It makes no protocol decision, never reads or writes a frame,
//! never repairs (`chmod`s) a directory it did not create, and never falls back to `/tmp`.

pub mod bind;
pub mod discovery;
pub mod peer;
pub mod probe;

pub use bind::{bind_secure, BindError, BoundSocket, Removal, SocketGuard, MAX_SOCKET_PATH_BYTES};
pub use discovery::{
    discover, discover_from_env, socket_path, socket_path_from_env, DiscoveryError,
    SocketDiscovery, DEFAULT_SOCKET_UNDER_HOME, ENV_SOCKET,
};
#[cfg(not(loom))]
pub use peer::verify_peer;
#[cfg(any(target_os = "linux", target_os = "android"))]
pub use peer::verify_peer_fd;
pub use peer::{check_peer_uid, PeerRejected, PeerVerified};
pub use probe::{probe_socket, SocketProbe};
