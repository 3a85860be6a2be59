//! The peer-credential check at accept (spec §1) and the [`PeerVerified`] proof it mints.
//!
//! The proof lives in the core, beside the session that requires it, so that its
//! constructor stays private: the one OS call it needs (the kernel's peer credentials of a
//! connected Unix socket) is made here, on any [`AsFd`], and the socket layer above
//! (`devint-net`) passes its accepted stream in. This is the only IO of the core besides
//! what the injected resolver and backend do.
//!
//! spec §1: "the connecting peer's uid (SO_PEERCRED / getpeereid) MUST equal the runtime's
//! effective uid; unreadable credentials are a rejection. Checked at accept, before any
//! byte is read." The server calls [`verify_peer`] on every accepted stream before it reads;
//! the session core's `Connection<Unauthenticated>` can only be built with the proof, so a
//! shell that forgets the check does not compile.
//!
//! This module must never mint a [`PeerVerified`] from anything but the kernel's answer,
//! except through `PeerVerified::for_tests`, which exists only under `cfg(test)` or the
//! `test-support` feature.

use std::io;
use std::os::fd::{AsFd, BorrowedFd};

/// Proof that the peer of one accepted connection runs as our effective uid.
///
/// Its constructor is private: only [`verify_peer`] mints it, after reading the kernel's
/// peer credentials. It is neither `Clone` nor `Copy`, so one
/// check vouches for exactly one connection.
#[derive(Debug, PartialEq, Eq)]
pub struct PeerVerified {
    uid: u32,
}

static_assertions::assert_not_impl_any!(PeerVerified: Clone, Copy, Default);
static_assertions::assert_impl_all!(PeerVerified: Send, Sync);

impl PeerVerified {
    /// The verified peer uid (equal to our effective uid).
    pub fn uid(&self) -> u32 {
        self.uid
    }

    /// A proof minted without a socket, for the sans-IO session core's unit tests, property
    /// tests and fuzzers, which drive a connection from byte vectors and have no peer to
    /// ask. Compiled only under `cfg(test)` or the `test-support` feature, so a production
    /// build has no way to skip the kernel check.
    #[cfg(any(test, feature = "test-support"))]
    pub fn for_tests(uid: u32) -> PeerVerified {
        PeerVerified { uid }
    }
}

/// Why a connecting peer was refused before any byte was read.
#[derive(Debug, thiserror::Error)]
pub enum PeerRejected {
    /// The peer runs as another uid.
    #[error(
        "peer uid {peer} is not this runtime's uid {ours}; connect as the user who runs the \
         runtime"
    )]
    OtherUid {
        /// The peer's uid as the kernel reported it.
        peer: u32,
        /// Our effective uid.
        ours: u32,
    },
    /// The kernel's answer about the peer could not be read.
    #[error("peer credentials could not be read; the connection is refused")]
    CredentialsUnreadable,
    /// Reading the peer credentials failed with an OS error.
    #[error("peer credentials could not be read ({0}); the connection is refused")]
    CredentialsError(#[source] io::Error),
}

/// The pure rule: `peer` (the kernel's answer, `None` when unreadable) must equal `ours`.
/// Returns the verified uid; minting the proof is left to the functions that asked the
/// kernel.
pub fn check_peer_uid(peer: Option<u32>, ours: u32) -> Result<u32, PeerRejected> {
    match peer {
        // spec[S1-PEER-UID] §1: unreadable credentials are a rejection.
        None => Err(PeerRejected::CredentialsUnreadable),
        // spec[S1-PEER-UID] §1: the peer's uid MUST equal the runtime's effective uid.
        Some(uid) if uid == ours => Ok(uid),
        Some(peer) => Err(PeerRejected::OtherUid { peer, ours }),
    }
}

fn our_euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Check the peer of a connected Unix stream socket (`SO_PEERCRED` on Linux, `getpeereid`
/// elsewhere) and mint the proof. Call it on every accepted stream before reading any byte.
pub fn verify_peer<Fd: AsFd>(socket: Fd) -> Result<PeerVerified, PeerRejected> {
    let uid = check_peer_uid(Some(peer_uid(socket.as_fd())?), our_euid())?;
    Ok(PeerVerified { uid })
}

/// The kernel's answer: the uid of the process at the other end of `socket`.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn peer_uid(socket: BorrowedFd<'_>) -> Result<u32, PeerRejected> {
    let cred = rustix::net::sockopt::socket_peercred(socket)
        .map_err(|e| PeerRejected::CredentialsError(e.into()))?;
    Ok(cred.uid.as_raw())
}

/// The kernel's answer: the uid of the process at the other end of `socket`.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn peer_uid(socket: BorrowedFd<'_>) -> Result<u32, PeerRejected> {
    let (uid, _gid) = nix::unistd::getpeereid(socket)
        .map_err(|e| PeerRejected::CredentialsError(io::Error::from(e)))?;
    Ok(uid.as_raw())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_uid_is_accepted() {
        assert_eq!(check_peer_uid(Some(1000), 1000).unwrap(), 1000);
        assert_eq!(check_peer_uid(Some(0), 0).unwrap(), 0);
    }

    #[test]
    fn other_uid_is_rejected_even_root() {
        assert!(matches!(
            check_peer_uid(Some(0), 1000),
            Err(PeerRejected::OtherUid {
                peer: 0,
                ours: 1000
            })
        ));
        assert!(matches!(
            check_peer_uid(Some(65534), 0),
            Err(PeerRejected::OtherUid {
                peer: 65534,
                ours: 0
            })
        ));
    }

    #[test]
    fn unreadable_credentials_are_rejected() {
        assert!(matches!(
            check_peer_uid(None, 0),
            Err(PeerRejected::CredentialsUnreadable)
        ));
    }

    #[test]
    fn a_socket_that_is_not_connected_has_no_verifiable_peer() {
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        // A connected pair from ourselves is accepted...
        assert_eq!(verify_peer(&a).unwrap().uid(), our_euid());
        // ...but an unconnected socket has no peer to vouch for.
        let lone = rustix::net::socket(
            rustix::net::AddressFamily::UNIX,
            rustix::net::SocketType::STREAM,
            None,
        )
        .unwrap();
        let got = verify_peer(&lone);
        // Linux answers an unconnected socket with the "no peer" credentials (uid -1) or an
        // error; either way the peer is not us.
        assert!(
            got.is_err(),
            "an unconnected socket must not verify: {got:?}"
        );
    }
}
