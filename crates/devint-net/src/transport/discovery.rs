//! Where the runtime's socket is (spec §1): `AA_DEVINT_SOCKET` (an empty value counts as
//! unset), else `$HOME/.aa/run/devint.sock`. No `HOME` and no override is an error, never a
//! `/tmp` fallback.
//!
//! The pure functions take the environment values as arguments so that tests never touch
//! the real environment; [`socket_path_from_env`] and [`discover_from_env`] are the thin
//! wrappers that read it.

use std::ffi::OsString;
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// The environment variable that overrides the socket path (spec §1).
pub const ENV_SOCKET: &str = "AA_DEVINT_SOCKET";

/// The default socket path relative to `$HOME` (spec §1).
pub const DEFAULT_SOCKET_UNDER_HOME: &str = ".aa/run/devint.sock";

/// Why no usable socket path could be worked out. Each message says what is wrong with the
/// path, never where it came from (a command line, the environment, `HOME`): the caller
/// knows that, and words the fix.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    /// Neither `AA_DEVINT_SOCKET` nor `HOME` is set.
    #[error(
        "cannot locate the devint socket: HOME is not set and AA_DEVINT_SOCKET is empty or \
         unset; set HOME, or set AA_DEVINT_SOCKET to the socket's absolute path"
    )]
    NoHome,
    /// `HOME` is set but is not an absolute path.
    #[error(
        "cannot locate the devint socket: HOME ({0}) is not an absolute path; set HOME to \
         your home directory or AA_DEVINT_SOCKET to the socket's absolute path"
    )]
    RelativeHome(PathBuf),
    /// `AA_DEVINT_SOCKET` is set but is not an absolute path.
    #[error(
        "AA_DEVINT_SOCKET ({0}) is not an absolute path; set it to the socket's absolute path \
         or unset it to use $HOME/.aa/run/devint.sock"
    )]
    RelativeOverride(PathBuf),
    /// An environment variable holds bytes that are not UTF-8.
    #[error("{0} is not valid UTF-8; set it to a plain absolute path")]
    NotUnicode(&'static str),
    /// Something that is not a socket exists at the socket path.
    #[error("{0} exists but is not a Unix socket, so no runtime can serve there")]
    NotASocket(PathBuf),
    /// The path does not fit a Unix socket address (`sockaddr_un.sun_path`).
    #[error(
        "the socket path {path} is {len} bytes; a Unix socket path can be at most {max} bytes"
    )]
    TooLong {
        /// The path.
        path: PathBuf,
        /// Its length in bytes.
        len: usize,
        /// The longest a socket path can be.
        max: usize,
    },
    /// The socket path could not be examined.
    #[error("cannot examine the devint socket at {path}: {source}")]
    Unreadable {
        /// The socket path.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

/// Whether a socket file exists at the discovered path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SocketDiscovery {
    /// A socket file is at the path (it may still be a dead one: connecting decides).
    Present(PathBuf),
    /// Nothing is at the path: the runtime is not running. A caller reports this once and
    /// never retries in a loop.
    Absent(PathBuf),
}

impl SocketDiscovery {
    /// Classify what is at `path` (following symlinks, as `connect` would).
    pub fn at(path: PathBuf) -> Result<SocketDiscovery, DiscoveryError> {
        match std::fs::metadata(&path) {
            Ok(meta) if meta.file_type().is_socket() => Ok(SocketDiscovery::Present(path)),
            Ok(_) => Err(DiscoveryError::NotASocket(path)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(SocketDiscovery::Absent(path)),
            Err(source) => Err(DiscoveryError::Unreadable { path, source }),
        }
    }

    /// [`discover`] with `AA_DEVINT_SOCKET` and `HOME` read from this process's environment.
    pub fn from_env() -> Result<SocketDiscovery, DiscoveryError> {
        discover_from_env()
    }

    /// The path, present or not.
    pub fn path(&self) -> &Path {
        match self {
            SocketDiscovery::Present(p) | SocketDiscovery::Absent(p) => p,
        }
    }
}

/// The socket path from the override and the home directory (spec §1).
///
/// `env_socket` is the value of `AA_DEVINT_SOCKET` (an empty value counts as unset); `home`
/// is `$HOME`. **We** require both to be absolute: a relative path would depend on the
/// working directory of whichever process reads it.
pub fn socket_path(
    env_socket: Option<&str>,
    home: Option<&Path>,
) -> Result<PathBuf, DiscoveryError> {
    // spec[S1-SOCKET-PATH] §1: an empty AA_DEVINT_SOCKET counts as unset.
    if let Some(over) = env_socket.filter(|s| !s.is_empty()) {
        let over = PathBuf::from(over);
        if !over.is_absolute() {
            return Err(DiscoveryError::RelativeOverride(over));
        }
        return Ok(over);
    }
    // spec[S1-SOCKET-PATH] §1: no HOME and no override → error, never a /tmp fallback.
    let home = home
        .filter(|h| !h.as_os_str().is_empty())
        .ok_or(DiscoveryError::NoHome)?;
    if !home.is_absolute() {
        return Err(DiscoveryError::RelativeHome(home.to_path_buf()));
    }
    Ok(home.join(DEFAULT_SOCKET_UNDER_HOME))
}

/// [`socket_path`] with `AA_DEVINT_SOCKET` and `HOME` read from this process's environment.
pub fn socket_path_from_env() -> Result<PathBuf, DiscoveryError> {
    let over = env_str(ENV_SOCKET)?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    socket_path(over.as_deref(), home.as_deref())
}

/// Work out the socket path and whether a socket file is there.
pub fn discover(
    env_socket: Option<&str>,
    home: Option<&Path>,
) -> Result<SocketDiscovery, DiscoveryError> {
    SocketDiscovery::at(socket_path(env_socket, home)?)
}

/// [`discover`] with the values read from this process's environment.
pub fn discover_from_env() -> Result<SocketDiscovery, DiscoveryError> {
    SocketDiscovery::at(socket_path_from_env()?)
}

fn env_str(name: &'static str) -> Result<Option<String>, DiscoveryError> {
    match std::env::var_os(name) {
        None => Ok(None),
        Some(v) => v
            .into_string()
            .map(Some)
            .map_err(|_: OsString| DiscoveryError::NotUnicode(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_wins_over_home() {
        let p = socket_path(Some("/run/x/devint.sock"), Some(Path::new("/home/a"))).unwrap();
        assert_eq!(p, PathBuf::from("/run/x/devint.sock"));
    }

    #[test]
    fn empty_override_counts_as_unset() {
        let p = socket_path(Some(""), Some(Path::new("/home/a"))).unwrap();
        assert_eq!(p, PathBuf::from("/home/a/.aa/run/devint.sock"));
    }

    #[test]
    fn no_home_and_no_override_is_an_error_never_tmp() {
        assert!(matches!(
            socket_path(None, None),
            Err(DiscoveryError::NoHome)
        ));
        assert!(matches!(
            socket_path(Some(""), None),
            Err(DiscoveryError::NoHome)
        ));
        assert!(matches!(
            socket_path(None, Some(Path::new(""))),
            Err(DiscoveryError::NoHome)
        ));
    }

    #[test]
    fn relative_values_are_refused() {
        assert!(matches!(
            socket_path(Some("devint.sock"), None),
            Err(DiscoveryError::RelativeOverride(_))
        ));
        assert!(matches!(
            socket_path(None, Some(Path::new("home"))),
            Err(DiscoveryError::RelativeHome(_))
        ));
    }
}
