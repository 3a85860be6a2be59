//! A liveness probe of a Unix socket path: one non-blocking `connect()` and a close. It
//! never sends or reads a byte, so it can never be mistaken for a client's `Hello`.
//!
//! Used by the secure bind (is a runtime already serving here?) and by the provenance
//! multiplicity scan (how many runtimes are reachable?).

use std::io;
use std::path::Path;

use rustix::io::Errno;
use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};

/// What a single non-blocking `connect()` to a socket path found.
#[derive(Debug)]
pub enum SocketProbe {
    /// A listener accepted the connection (or its backlog was full, which equally proves a
    /// listener exists). `pid` is the listener's pid from `SO_PEERCRED` when it was readable.
    Live {
        /// The pid of the process that called `listen()`, when known.
        pid: Option<u32>,
    },
    /// A socket file is there but nothing listens on it (`ECONNREFUSED`): a stale socket.
    Dead,
    /// Nothing is at the path.
    Missing,
    /// The connect failed for another reason (permissions, not a socket, path too long …).
    Unreachable(io::Error),
}

impl SocketProbe {
    /// Whether a runtime answered.
    pub fn is_live(&self) -> bool {
        matches!(self, SocketProbe::Live { .. })
    }
}

/// Probe `path` with one non-blocking `connect()`, then close. Never sends a byte and never
/// blocks: a full backlog answers `EAGAIN` at once and counts as live.
pub fn probe_socket(path: &Path) -> SocketProbe {
    let addr = match SocketAddrUnix::new(path) {
        Ok(a) => a,
        Err(e) => return SocketProbe::Unreachable(e.into()),
    };
    let fd = match rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::NONBLOCK | SocketFlags::CLOEXEC,
        None,
    ) {
        Ok(fd) => fd,
        Err(e) => return SocketProbe::Unreachable(e.into()),
    };
    match rustix::net::connect(&fd, &addr) {
        Ok(()) => SocketProbe::Live {
            pid: listener_pid(&fd),
        },
        // A full backlog: a listener exists but did not accept yet.
        Err(Errno::AGAIN) | Err(Errno::INPROGRESS) => SocketProbe::Live { pid: None },
        Err(Errno::CONNREFUSED) => SocketProbe::Dead,
        Err(Errno::NOENT) => SocketProbe::Missing,
        Err(e) => SocketProbe::Unreachable(e.into()),
    }
    // `fd` is dropped (closed) here without a byte written.
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn listener_pid(fd: &rustix::fd::OwnedFd) -> Option<u32> {
    rustix::net::sockopt::socket_peercred(fd)
        .ok()
        .and_then(|c| u32::try_from(c.pid.as_raw_nonzero().get()).ok())
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn listener_pid(_fd: &rustix::fd::OwnedFd) -> Option<u32> {
    None
}
