//! The secure bind (spec §1): a `0700` directory owned by us, a `0600` socket from its first
//! instant, no symlinked path component owned by a stranger, a live runtime never stolen
//! from, and a shutdown that removes only our own inode.
//!
//! How the socket is `0600` from its first instant without touching the process-global
//! `umask` (which would race with every other thread creating files): the socket is bound
//! inside a fresh private `0700` directory created next to the target, `chmod`ed to `0600`
//! there, and `rename`d into place (same directory, so the same filesystem and an atomic
//! step). At the target path the socket never exists with any other mode.
//!
//! This module refuses rather than repairs: it never `chmod`s or `chown`s a directory it
//! did not create, never removes a socket a live runtime answers on, and never removes
//! anything but a socket whose inode it created.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::UnixListener;
use std::path::{Component, Path, PathBuf};

use super::probe::{probe_socket, SocketProbe};

/// The longest socket path that fits `sockaddr_un.sun_path` (108 bytes on Linux, including
/// the terminating NUL).
pub const MAX_SOCKET_PATH_BYTES: usize = 107;

/// The mode the socket's directory must have (spec §1).
const DIR_MODE: u32 = 0o700;
/// The mode the socket must have from its first instant (spec §1).
const SOCKET_MODE: u32 = 0o600;
/// Symlinks followed while resolving the directory before giving up (as the kernel's ELOOP).
const MAX_SYMLINKS: usize = 40;
/// Name of the socket inside the private staging directory: one byte, so the staging path
/// (`<dir>/.XXXX/s`) is never longer than the target path for any `devint*.sock` name.
const STAGED_NAME: &str = "s";

/// Why the secure bind refused or failed. Each message names the path and the expected state.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    /// The socket path does not fit `sun_path`.
    #[error(
        "socket path {path} is {len} bytes; a Unix socket path must be at most {max} bytes and \
         its directory at most {} bytes (the bind stages the socket in a subdirectory)",
        .max - .headroom
    )]
    PathTooLong {
        /// The offending path.
        path: PathBuf,
        /// Its length in bytes (after resolving symlinks).
        len: usize,
        /// The limit.
        max: usize,
        /// Extra bytes the staging path needs beyond the target's directory.
        headroom: usize,
    },
    /// The path has no usable file name (ends in `/`, `.` or `..`).
    #[error("socket path {0} does not end in a file name; give a path such as DIR/devint.sock")]
    NoFileName(PathBuf),
    /// The existing directory has the wrong mode.
    #[error(
        "socket directory {path} has mode {mode:04o}; it must be 0700 (we never chmod a \
         directory we did not create): run `chmod 700 {path}` if it is yours, or choose \
         another socket path"
    )]
    DirectoryMode {
        /// The directory.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The existing directory is owned by another uid.
    #[error(
        "socket directory {path} is owned by uid {owner}; it must be owned by this runtime's \
         uid {ours} with mode 0700: choose a socket path under a directory you own"
    )]
    DirectoryOwner {
        /// The directory.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// Our effective uid.
        ours: u32,
    },
    /// A path component is not a directory.
    #[error("{0} is in the socket path but is not a directory; choose another socket path")]
    NotADirectory(PathBuf),
    /// A path component is a symlink owned by neither root nor us.
    #[error(
        "{path} in the socket path is a symlink owned by uid {owner}; a symlinked component \
         must be owned by root or this runtime's uid {ours}: remove the link or choose \
         another socket path"
    )]
    ForeignSymlink {
        /// The symlink.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// Our effective uid.
        ours: u32,
    },
    /// Too many symlinks while resolving the directory.
    #[error("too many symbolic links while resolving {0}; choose a socket path without a loop")]
    SymlinkLoop(PathBuf),
    /// A live runtime answers on the path.
    #[error(
        "another runtime is serving at {path}{}; stop it first or choose another socket path",
        pid.map(|p| format!(", pid {p}")).unwrap_or_default()
    )]
    AlreadyServing {
        /// The socket path.
        path: PathBuf,
        /// The serving process, when the kernel said.
        pid: Option<u32>,
    },
    /// A socket someone else bound (a service manager) has the wrong mode.
    #[error(
        "socket {path} has mode {mode:04o}; it must be 0600: set SocketMode=0600 in the socket \
         unit (`devint service install` writes it so)"
    )]
    SocketMode {
        /// The socket.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// A socket someone else bound is owned by another uid.
    #[error(
        "socket {path} is owned by uid {owner}; it must be owned by this runtime's uid {ours}: \
         run the socket unit as a user unit (`systemctl --user`)"
    )]
    SocketOwner {
        /// The socket.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// Our effective uid.
        ours: u32,
    },
    /// Something that is not a socket is at the path.
    #[error(
        "{0} exists and is not a socket; it was left untouched: remove it or choose another \
         socket path"
    )]
    NotASocket(PathBuf),
    /// The existing socket could not be probed.
    #[error(
        "cannot tell whether a runtime is serving at {path} ({source}); it was left untouched"
    )]
    ProbeFailed {
        /// The socket path.
        path: PathBuf,
        /// The connect error.
        #[source]
        source: io::Error,
    },
    /// An OS call failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What we were doing.
        what: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

fn io_err<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> BindError + 'a {
    move |source| BindError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// What closing a [`SocketGuard`] did to the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// Our socket was at the path and was removed.
    Removed,
    /// Another file is at the path now (another runtime took over); it was left alone.
    NotOurs,
    /// Nothing was at the path any more.
    AlreadyGone,
    /// The path belongs to whoever bound the socket (a service manager): left in place.
    Kept,
}

/// Removes the socket path at shutdown, but only while the inode there is still the one we
/// bound (spec §1). Dropping it does the same as [`SocketGuard::close`], ignoring errors.
#[derive(Debug)]
pub struct SocketGuard {
    path: PathBuf,
    dev: u64,
    ino: u64,
    armed: bool,
}

impl SocketGuard {
    /// The path the socket was bound at (directory symlinks resolved).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The `(device, inode)` of the socket we bound.
    pub fn identity(&self) -> (u64, u64) {
        (self.dev, self.ino)
    }

    /// Never remove the path: another process (the executable this runtime handed the socket
    /// to) serves on it now.
    pub fn disarm(mut self) {
        self.armed = false;
    }

    /// Remove the socket path if the inode there is still ours (and we are the one that
    /// removes it: never a service manager's socket, [`Removal::Kept`]).
    pub fn close(mut self) -> io::Result<Removal> {
        if !self.armed {
            return Ok(Removal::Kept);
        }
        self.armed = false;
        remove_if_ours(&self.path, self.dev, self.ino)
    }
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        if self.armed {
            let _ = remove_if_ours(&self.path, self.dev, self.ino);
        }
    }
}

// spec[S1-LIVE-SOCKET] §1: on shutdown we remove the socket only if the inode at the path
// is still ours.
// The check and the unlink are two steps; the directory is ours and 0700, so only our own
// uid could swap the file in between.
fn remove_if_ours(path: &Path, dev: u64, ino: u64) -> io::Result<Removal> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.dev() == dev && m.ino() == ino => match fs::remove_file(path) {
            Ok(()) => Ok(Removal::Removed),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Removal::AlreadyGone),
            Err(e) => Err(e),
        },
        Ok(_) => Ok(Removal::NotOurs),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Removal::AlreadyGone),
        Err(e) => Err(e),
    }
}

/// A listening socket bound by [`bind_secure`], with the guard that removes it at shutdown.
#[derive(Debug)]
pub struct BoundSocket {
    listener: UnixListener,
    guard: SocketGuard,
}

impl BoundSocket {
    /// The listener (blocking; see [`BoundSocket::into_tokio`]).
    pub fn listener(&self) -> &UnixListener {
        &self.listener
    }

    /// The path the socket is bound at (directory symlinks resolved).
    pub fn path(&self) -> &Path {
        self.guard.path()
    }

    /// The `(device, inode)` of the socket we bound.
    pub fn identity(&self) -> (u64, u64) {
        self.guard.identity()
    }

    /// Split into the std listener and the guard; the guard still removes the path when it
    /// is closed or dropped, so keep it alive as long as the listener serves.
    pub fn into_parts(self) -> (UnixListener, SocketGuard) {
        (self.listener, self.guard)
    }

    /// A socket bound by someone else (socket activation, [`super::activation`]) whose
    /// path passed [`check_bound`]. `remove_at_close`: whether closing removes the path (not
    /// when the service manager owns it).
    pub(super) fn adopted(
        listener: UnixListener,
        bound: CheckedPath,
        remove_at_close: bool,
    ) -> BoundSocket {
        BoundSocket {
            listener,
            guard: SocketGuard {
                path: bound.path,
                dev: bound.dev,
                ino: bound.ino,
                armed: remove_at_close,
            },
        }
    }

    /// Join a listener and its guard again (the server gives back a socket to hand over).
    // The server is not compiled in the loom build (`server/mod.rs`), so nothing calls this
    // there.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn from_parts(listener: UnixListener, guard: SocketGuard) -> BoundSocket {
        BoundSocket { listener, guard }
    }

    /// Whether closing removes the socket path (false for a socket the service manager owns).
    pub fn removes_at_close(&self) -> bool {
        self.guard.armed
    }

    // tokio has no `net` under loom; the loom models never bind a socket.
    #[cfg(not(loom))]
    /// Make the listener non-blocking and hand it to tokio. Must be called within a tokio
    /// runtime.
    pub fn into_tokio(self) -> io::Result<(tokio::net::UnixListener, SocketGuard)> {
        self.listener.set_nonblocking(true)?;
        let listener = tokio::net::UnixListener::from_std(self.listener)?;
        Ok((listener, self.guard))
    }

    /// Stop listening and remove the socket path if the inode there is still ours.
    pub fn close(self) -> io::Result<Removal> {
        drop(self.listener);
        self.guard.close()
    }
}

// spec[S1-UNIX-ONLY] §1: the surface is a Unix stream socket; loopback TCP is never offered.
/// Bind a listening Unix socket at `path` the secure way (spec §1). See the module doc.
///
/// - The socket's directory is created `0700` if missing (with any missing ancestors, each
///   `0700`); an existing one must be a directory of mode `0700` owned by our effective uid.
/// - Every symlink met while resolving the directory must be owned by root or by us.
/// - A socket already at `path` is probed: a live runtime refuses the bind, a dead one is
///   replaced. Anything else at `path` refuses the bind.
pub fn bind_secure(path: &Path) -> Result<BoundSocket, BindError> {
    let ours = rustix::process::geteuid().as_raw();
    let (name, parent) = name_and_parent(path)?;
    let dir = secure_directory(parent, ours)?;
    let target = dir.join(&name);
    check_length(path, &target)?;

    let (listener, dev, ino) = bind_staged(&dir, &target)?;
    Ok(BoundSocket {
        listener,
        guard: SocketGuard {
            path: target,
            dev,
            ino,
            armed: true,
        },
    })
}

/// A socket path that passed the secure bind's checks: directory symlinks resolved, and the
/// socket's `(dev, ino)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CheckedPath {
    pub(super) path: PathBuf,
    pub(super) dev: u64,
    pub(super) ino: u64,
}

/// The secure bind's rules (spec §1) applied to a socket that is already bound at `path` by
/// someone else (a service manager): the same length, directory (`0700`, ours), symlink and
/// ownership checks as [`bind_secure`], then the socket itself must be ours and `0600`.
/// Never creates, repairs or removes anything.
pub(super) fn check_bound(path: &Path) -> Result<CheckedPath, BindError> {
    let ours = rustix::process::geteuid().as_raw();
    let (name, parent) = name_and_parent(path)?;
    if !parent.exists() {
        return Err(BindError::NotADirectory(parent.to_path_buf()));
    }
    let dir = secure_directory(parent, ours)?;
    let target = dir.join(&name);
    let meta = fs::symlink_metadata(&target).map_err(io_err("cannot examine", &target))?;
    if !meta.file_type().is_socket() {
        return Err(BindError::NotASocket(target));
    }
    if meta.uid() != ours {
        return Err(BindError::SocketOwner {
            path: target,
            owner: meta.uid(),
            ours,
        });
    }
    let mode = meta.mode() & 0o777;
    if mode != SOCKET_MODE {
        return Err(BindError::SocketMode { path: target, mode });
    }
    Ok(CheckedPath {
        path: target,
        dev: meta.dev(),
        ino: meta.ino(),
    })
}

/// The socket path's length checked, and split into its file name and directory.
fn name_and_parent(path: &Path) -> Result<(OsString, &Path), BindError> {
    check_length(path, path)?;
    let name = match path.components().next_back() {
        Some(Component::Normal(n)) => n.to_os_string(),
        _ => return Err(BindError::NoFileName(path.to_path_buf())),
    };
    Ok((name, path.parent().unwrap_or_else(|| Path::new("/"))))
}

fn check_length(given: &Path, resolved: &Path) -> Result<(), BindError> {
    // The staging path is `<dir>/.XXXX/s`: 8 bytes beyond the directory.
    let dir_len = resolved.parent().map(|p| p.as_os_str().len()).unwrap_or(0);
    let headroom = 8;
    let len = resolved.as_os_str().len();
    if len > MAX_SOCKET_PATH_BYTES || dir_len + headroom > MAX_SOCKET_PATH_BYTES {
        return Err(BindError::PathTooLong {
            path: given.to_path_buf(),
            len,
            max: MAX_SOCKET_PATH_BYTES,
            headroom,
        });
    }
    Ok(())
}

/// Resolve `dir` component by component, checking every symlink's owner, create what is
/// missing `0700`, and check the final directory's mode and owner. Returns the resolved path.
fn secure_directory(dir: &Path, ours: u32) -> Result<PathBuf, BindError> {
    let absolute = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(io_err("cannot read the working directory to resolve", dir))?
            .join(dir)
    };
    let mut pending: Vec<OsString> = Vec::new();
    push_components(&mut pending, &absolute);
    let mut resolved = PathBuf::from("/");
    let mut links = 0usize;
    let mut created_last = false;
    while let Some(comp) = pending.pop() {
        if comp == "." {
            continue;
        }
        if comp == ".." {
            resolved.pop();
            continue;
        }
        let next = resolved.join(&comp);
        match fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                // spec[S1-DIR-0700] §1: a symlinked component must be owned by root or the
                // runtime's uid.
                if meta.uid() != 0 && meta.uid() != ours {
                    return Err(BindError::ForeignSymlink {
                        path: next,
                        owner: meta.uid(),
                        ours,
                    });
                }
                links += 1;
                if links > MAX_SYMLINKS {
                    return Err(BindError::SymlinkLoop(dir.to_path_buf()));
                }
                let target =
                    fs::read_link(&next).map_err(io_err("cannot read the symlink", &next))?;
                if target.is_absolute() {
                    resolved = PathBuf::from("/");
                }
                push_components(&mut pending, &target);
                created_last = false;
            }
            Ok(meta) if meta.is_dir() => {
                resolved = next;
                created_last = false;
            }
            Ok(_) => return Err(BindError::NotADirectory(next)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if create_private_dir(&next)? {
                    resolved = next;
                    created_last = true;
                } else {
                    // Created by someone else meanwhile: examine it like any existing one.
                    pending.push(comp);
                }
            }
            Err(e) => return Err(io_err("cannot examine", &next)(e)),
        }
    }
    if !created_last {
        check_directory(&resolved, ours)?;
    }
    Ok(resolved)
}

/// Push `path`'s components onto the stack so that the first component is popped first.
fn push_components(stack: &mut Vec<OsString>, path: &Path) {
    let comps: Vec<OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::RootDir | Component::Prefix(_) => None,
            Component::CurDir => Some(OsString::from(".")),
            Component::ParentDir => Some(OsString::from("..")),
            Component::Normal(n) => Some(n.to_os_string()),
        })
        .collect();
    stack.extend(comps.into_iter().rev());
}

/// Create `path` with mode `0700`; `Ok(false)` when it already existed.
fn create_private_dir(path: &Path) -> Result<bool, BindError> {
    match fs::DirBuilder::new().mode(DIR_MODE).create(path) {
        Ok(()) => {
            // We created it, so we may set its mode: the umask can only have narrowed it.
            fs::set_permissions(path, fs::Permissions::from_mode(DIR_MODE)).map_err(io_err(
                "cannot set mode 0700 on the directory we created",
                path,
            ))?;
            Ok(true)
        }
        // Someone created it meanwhile: it is not ours to set up.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(io_err("cannot create the socket directory", path)(e)),
    }
}

// spec[S1-DIR-0700] §1: the directory MUST be mode 0700 and owned by the runtime's uid; we
// refuse rather than repair.
fn check_directory(dir: &Path, ours: u32) -> Result<(), BindError> {
    let meta = fs::symlink_metadata(dir).map_err(io_err("cannot examine", dir))?;
    if !meta.is_dir() {
        return Err(BindError::NotADirectory(dir.to_path_buf()));
    }
    if meta.uid() != ours {
        return Err(BindError::DirectoryOwner {
            path: dir.to_path_buf(),
            owner: meta.uid(),
            ours,
        });
    }
    let mode = meta.mode() & 0o777;
    if mode != DIR_MODE {
        return Err(BindError::DirectoryMode {
            path: dir.to_path_buf(),
            mode,
        });
    }
    Ok(())
}

/// What is at the target before the socket is moved there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Occupant {
    /// Nothing: the rename must not replace anything that appears meanwhile.
    Nothing,
    /// A dead socket: the rename replaces it.
    DeadSocket,
}

/// What is already at the target: nothing and a dead socket are fine; a live runtime, a
/// non-socket or an unprobeable socket refuse the bind.
fn check_existing(target: &Path) -> Result<Occupant, BindError> {
    match fs::symlink_metadata(target) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Occupant::Nothing),
        Err(e) => Err(io_err("cannot examine", target)(e)),
        Ok(meta) if !meta.file_type().is_socket() => {
            Err(BindError::NotASocket(target.to_path_buf()))
        }
        // spec[S1-LIVE-SOCKET] §1: a socket already at the path is probed; only a dead one
        // is replaced.
        Ok(_) => match probe_socket(target) {
            SocketProbe::Live { pid } => Err(BindError::AlreadyServing {
                path: target.to_path_buf(),
                pid,
            }),
            SocketProbe::Dead => Ok(Occupant::DeadSocket),
            SocketProbe::Missing => Ok(Occupant::Nothing),
            SocketProbe::Unreachable(source) => Err(BindError::ProbeFailed {
                path: target.to_path_buf(),
                source,
            }),
        },
    }
}

/// Bind in a private staging directory, set `0600`, rename into place. Returns the listener
/// and the socket's `(dev, ino)`.
fn bind_staged(dir: &Path, target: &Path) -> Result<(UnixListener, u64, u64), BindError> {
    let staging = create_staging_dir(dir)?;
    let result = (|| {
        let staged = staging.join(STAGED_NAME);
        let listener =
            UnixListener::bind(&staged).map_err(io_err("cannot bind the socket at", &staged))?;
        // spec[S1-SOCKET-0600] §1: the socket MUST be 0600 before it appears at the target
        // path.
        fs::set_permissions(&staged, fs::Permissions::from_mode(SOCKET_MODE))
            .map_err(io_err("cannot set mode 0600 on", &staged))?;
        let meta = fs::symlink_metadata(&staged).map_err(io_err("cannot examine", &staged))?;
        move_into_place(&staged, target)?;
        Ok((listener, meta.dev(), meta.ino()))
    })();
    let _ = fs::remove_file(staging.join(STAGED_NAME));
    let _ = fs::remove_dir(&staging);
    result
}

/// Rename the staged socket onto `target`: atomic, on one filesystem. Where nothing was
/// there, the rename refuses to replace a file that appeared meanwhile (another runtime
/// starting at the same moment), and the newcomer is probed like any existing socket.
fn move_into_place(staged: &Path, target: &Path) -> Result<(), BindError> {
    for _ in 0..4 {
        match check_existing(target)? {
            Occupant::DeadSocket => {
                // spec[S1-LIVE-SOCKET] §1: only a dead socket is replaced.
                return fs::rename(staged, target)
                    .map_err(io_err("cannot move the socket into place at", target));
            }
            Occupant::Nothing => match rename_no_replace(staged, target) {
                Ok(()) => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io_err("cannot move the socket into place at", target)(e)),
            },
        }
    }
    Err(io_err("cannot move the socket into place at", target)(
        io::Error::other("the path kept changing while we bound; try again"),
    ))
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        // A filesystem without RENAME_NOREPLACE: fall back to a plain rename (the target was
        // empty a moment ago, and the directory is ours and 0700).
        Err(rustix::io::Errno::INVAL) | Err(rustix::io::Errno::NOSYS) => fs::rename(from, to),
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    fs::rename(from, to)
}

fn create_staging_dir(dir: &Path) -> Result<PathBuf, BindError> {
    let mut last_err = None;
    for _ in 0..16 {
        let tag: u16 = rand::random();
        let staging = dir.join(format!(".{tag:04x}"));
        match fs::DirBuilder::new().mode(DIR_MODE).create(&staging) {
            Ok(()) => {
                fs::set_permissions(&staging, fs::Permissions::from_mode(DIR_MODE))
                    .map_err(io_err("cannot set mode 0700 on", &staging))?;
                return Ok(staging);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_err = Some(e),
            Err(e) => return Err(io_err("cannot create a staging directory in", dir)(e)),
        }
    }
    Err(io_err("cannot create a staging directory in", dir)(
        last_err.unwrap_or_else(|| io::Error::other("name collisions")),
    ))
}
