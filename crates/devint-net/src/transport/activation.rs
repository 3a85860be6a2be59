//! Socket activation and the service manager's notifications: adopting the listening socket
//! a service manager (systemd's `LISTEN_FDS`/`LISTEN_PID`, fd 3) or this runtime's own
//! previous executable (an upgrade's hand-over) passed, handing it over to a new executable
//! by the same mechanism, and `READY=1`/`STOPPING=1` on `NOTIFY_SOCKET`.
//!
//! An adopted socket is checked exactly as the secure bind checks its own
//! ([`super::bind_secure`]'s one set of rules): the directory `0700` and ours, no stranger's
//! symlink on the way, the socket ours and `0600`, and it must be the path this runtime
//! serves at (clients look there). It must also be a listening Unix stream socket.
//!
//! This module must never adopt a descriptor twice, never accept descriptors meant for
//! another process (`LISTEN_PID` must be ours), and never repair what it refuses. The one
//! `unsafe` of this crate is here: taking ownership of the inherited descriptor.

use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::bind::{check_bound, BindError, BoundSocket};

/// The first descriptor of socket activation (`SD_LISTEN_FDS_START`).
pub const LISTEN_FDS_START: RawFd = 3;

/// `LISTEN_FDNAMES` of a socket a devint runtime handed to its next executable: that runtime
/// bound it itself, so the adopter removes it at shutdown (a service manager's socket is
/// left to the service manager).
pub const HANDOVER_NAME: &str = "devint-handover";

/// Whether the passed descriptors were taken already (each is owned once).
static TAKEN: AtomicBool = AtomicBool::new(false);

/// Why a passed socket was refused. Each message names what was wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum AdoptError {
    /// The activation variables could not be read.
    #[error("the socket activation variables (LISTEN_FDS/LISTEN_PID) are malformed: {0}")]
    Malformed(#[source] io::Error),
    /// More than one descriptor was passed.
    #[error(
        "the service manager passed {0} sockets (LISTEN_FDS={0}); devint serve takes exactly \
         one: give its socket unit a single ListenStream= path"
    )]
    Count(usize),
    /// The descriptor is not a Unix stream socket with a path.
    #[error(
        "the descriptor passed as fd {LISTEN_FDS_START} is not a Unix stream socket bound to \
         a path ({0}): the socket unit needs ListenStream=/path/to/devint.sock"
    )]
    NotUnixStream(String),
    /// The socket is not listening.
    #[error(
        "the socket passed as fd {LISTEN_FDS_START} ({0}) is not listening; pass a listening \
         socket (systemd's ListenStream= does), not an accepted connection"
    )]
    NotListening(PathBuf),
    /// The socket is bound somewhere else than this runtime's socket path.
    #[error(
        "the socket passed as fd {LISTEN_FDS_START} is bound at {passed}, but this runtime \
         serves at {expected} (clients look there): make the socket unit's ListenStream= and \
         AA_DEVINT_SOCKET (or --socket) name the same path"
    )]
    WrongPath {
        /// Where the passed socket is bound.
        passed: PathBuf,
        /// Where this runtime serves.
        expected: PathBuf,
    },
    /// The socket's path fails the secure bind's checks.
    #[error("the socket passed as fd {LISTEN_FDS_START} is refused: {0}")]
    Insecure(#[source] BindError),
}

/// Who bound an adopted socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A service manager (systemd socket activation); it keeps the path.
    ServiceManager,
    /// This runtime's previous executable, at an upgrade or a restart; we remove it at
    /// shutdown as if we had bound it.
    Handover,
}

/// A socket adopted from the environment, checked.
#[derive(Debug)]
pub struct Adopted {
    /// The listening socket.
    pub socket: BoundSocket,
    /// Who bound it.
    pub origin: Origin,
}

/// Adopt the listening socket passed by socket activation, when `LISTEN_PID` is ours and
/// `LISTEN_FDS` is set; `Ok(None)` when nothing was passed to this process. The socket must
/// be a listening Unix stream socket at `expected` that passes the secure bind's checks.
pub fn adopt_from_env(expected: &Path) -> Result<Option<Adopted>, AdoptError> {
    let fds: Vec<(RawFd, String)> = sd_notify::listen_fds_with_names()
        .map_err(AdoptError::Malformed)?
        .collect();
    if fds.is_empty() {
        return Ok(None);
    }
    if fds.len() != 1 {
        return Err(AdoptError::Count(fds.len()));
    }
    let (fd, name) = fds.into_iter().next().expect("one descriptor");
    if fd != LISTEN_FDS_START || TAKEN.swap(true, Ordering::SeqCst) {
        return Ok(None);
    }
    // SAFETY: `LISTEN_PID` names this process, so by the socket activation protocol fd 3 was
    // opened for this process by whoever exec'd it, and nothing in this process owns it: the
    // standard library and our dependencies never open a descriptor without owning it, and
    // `TAKEN` makes this the only place that ever takes it, once.
    #[allow(unsafe_code)]
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let origin = if name == HANDOVER_NAME {
        Origin::Handover
    } else {
        Origin::ServiceManager
    };
    let socket = check(UnixListener::from(owned), expected, origin)?;
    Ok(Some(Adopted { socket, origin }))
}

/// Check a listener someone else bound, as the secure bind checks its own.
fn check(
    listener: UnixListener,
    expected: &Path,
    origin: Origin,
) -> Result<BoundSocket, AdoptError> {
    let kind = rustix::net::sockopt::socket_type(&listener)
        .map_err(|e| AdoptError::NotUnixStream(e.to_string()))?;
    if kind != rustix::net::SocketType::STREAM {
        return Err(AdoptError::NotUnixStream(format!("socket type {kind:?}")));
    }
    let addr = listener
        .local_addr()
        .map_err(|e| AdoptError::NotUnixStream(e.to_string()))?;
    let passed = addr
        .as_pathname()
        .ok_or_else(|| AdoptError::NotUnixStream("it has no path".to_owned()))?
        .to_path_buf();
    let listening = rustix::net::sockopt::socket_acceptconn(&listener)
        .map_err(|e| AdoptError::NotUnixStream(e.to_string()))?;
    if !listening {
        return Err(AdoptError::NotListening(passed));
    }
    // A runtime's own socket was bound in a staging directory and renamed into place, so
    // its name is the staging path: at a hand-over the path checked is the one we serve at.
    // A service manager binds at the path itself, and must have bound ours.
    let at = match origin {
        Origin::Handover => expected,
        Origin::ServiceManager => passed.as_path(),
    };
    let checked = check_bound(at).map_err(AdoptError::Insecure)?;
    let same = std::fs::symlink_metadata(expected)
        .map(|m| (m.dev(), m.ino()) == (checked.dev, checked.ino))
        .unwrap_or(false);
    if !same {
        return Err(AdoptError::WrongPath {
            passed,
            expected: expected.to_path_buf(),
        });
    }
    Ok(BoundSocket::adopted(
        listener,
        checked,
        origin == Origin::Handover,
    ))
}

/// Why a hand-over did not happen.
#[derive(Debug)]
pub enum HandOverFailed {
    /// The executable cannot be run (missing, not a file, not executable by us): nothing was
    /// attempted, and the socket is given back, still ours and listening.
    NotRun(io::Error, BoundSocket),
    /// The exec itself failed after the descriptors were arranged for it: this process's
    /// descriptor table may no longer be what it was, so it must not go on serving.
    Exec(io::Error),
}

/// Hand `socket` over to `executable` (with `args`): exec it in this process (same pid, so a
/// service manager keeps tracking it) with the listener at fd 3, `LISTEN_FDS=1` and
/// `LISTEN_PID` ours, so it adopts the socket by [`adopt_from_env`]. The socket stays bound
/// and listening throughout; connections that arrive meanwhile wait in its backlog.
/// Returns only if the hand-over did not happen.
pub fn exec_with_socket(
    socket: BoundSocket,
    executable: &Path,
    args: &[std::ffi::OsString],
) -> HandOverFailed {
    use command_fds::{CommandFdExt, FdMapping};
    use std::os::unix::process::CommandExt;
    if let Err(e) = runnable(executable) {
        return HandOverFailed::NotRun(e, socket);
    }
    let name = if socket.removes_at_close() {
        HANDOVER_NAME.to_owned()
    } else {
        // A service manager's socket stays the service manager's.
        std::env::var("LISTEN_FDNAMES")
            .ok()
            .filter(|n| n != HANDOVER_NAME)
            .unwrap_or_else(|| "devint.socket".to_owned())
    };
    // The exec replaces this process, so the socket's guard never runs: the new executable
    // owns the path from then on.
    let duplicate = match socket.listener().try_clone() {
        Ok(d) => d,
        Err(e) => return HandOverFailed::NotRun(e, socket),
    };
    let mut command = std::process::Command::new(executable);
    command
        .args(args)
        .env("LISTEN_FDS", "1")
        .env("LISTEN_PID", std::process::id().to_string())
        .env("LISTEN_FDNAMES", name);
    if let Err(e) = command.fd_mappings(vec![FdMapping {
        parent_fd: OwnedFd::from(duplicate),
        child_fd: LISTEN_FDS_START,
    }]) {
        return HandOverFailed::NotRun(io::Error::other(e), socket);
    }
    let error = command.exec();
    // The socket's path now belongs to nobody new: let this process remove it as it exits.
    drop(socket);
    HandOverFailed::Exec(error)
}

/// Whether `path` is a regular file this process may execute.
fn runnable(path: &Path) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    rustix::fs::access(path, rustix::fs::Access::EXEC_OK).map_err(io::Error::from)
}

/// Tell the service manager the runtime is ready (`READY=1`), when `NOTIFY_SOCKET` is set.
pub fn notify_ready(status: &str) {
    notify(&[
        sd_notify::NotifyState::Ready,
        sd_notify::NotifyState::Status(status),
    ]);
}

/// Tell the service manager the runtime is stopping (`STOPPING=1`), when `NOTIFY_SOCKET` is
/// set.
pub fn notify_stopping() {
    notify(&[sd_notify::NotifyState::Stopping]);
}

fn notify(states: &[sd_notify::NotifyState<'_>]) {
    if let Err(error) = sd_notify::notify(states) {
        tracing::warn!(%error, "could not notify the service manager (NOTIFY_SOCKET)");
    }
}
