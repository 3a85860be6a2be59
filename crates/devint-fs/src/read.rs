//! The one safe way devint reads a file it did not just write: settings files, receipts,
//! journals, evidence, policy profiles, the event spool, the enrolment book, token files and
//! the audit log all come through here.
//!
//! Owns opening without blocking and without being fooled about what the path is: the open
//! uses `O_NONBLOCK` (a FIFO with no writer opens at once instead of hanging the thread) and,
//! where the caller asks, `O_NOFOLLOW`; then `fstat` on the open descriptor decides — a
//! regular file is read, anything else (FIFO, character or block device, socket, directory)
//! is a typed [`ReadError::NotRegular`] naming the path and what it is. Reads are capped
//! ([`Limit`]): a file larger than its kind allows is refused with the size and the limit,
//! never read into memory (`settings.json → /dev/zero` is a device, refused; a huge regular
//! file is over its limit, refused).
//!
//! It must never block on a FIFO, never read from a device, never read past a limit, and
//! never echo a file's content in an error.

use std::fmt;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::OFlags;
use rustix::io::Errno;

#[cfg(any(test, feature = "test-support"))]
pub mod tally;

/// What a path turned out to be, when it is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A directory.
    Directory,
    /// A named pipe (FIFO).
    Fifo,
    /// A character device (`/dev/zero`, a terminal…).
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A Unix socket.
    Socket,
    /// A symbolic link (where links are not followed).
    Symlink,
    /// Something else.
    Other,
}

impl FileKind {
    /// What `meta` describes (a regular file is [`FileKind::Other`]: this names the rest).
    pub fn of(meta: &Metadata) -> FileKind {
        let t = meta.file_type();
        if t.is_dir() {
            FileKind::Directory
        } else if t.is_fifo() {
            FileKind::Fifo
        } else if t.is_char_device() {
            FileKind::CharDevice
        } else if t.is_block_device() {
            FileKind::BlockDevice
        } else if t.is_socket() {
            FileKind::Socket
        } else if t.is_symlink() {
            FileKind::Symlink
        } else {
            FileKind::Other
        }
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Directory => "a directory",
            FileKind::Fifo => "a named pipe (FIFO)",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Socket => "a socket",
            FileKind::Symlink => "a symbolic link",
            FileKind::Other => "not a regular file",
        })
    }
}

/// The most bytes devint reads from one kind of file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The cap, in bytes.
    pub bytes: u64,
    /// What kind of file it caps, for the error ("settings file").
    pub what: &'static str,
}

impl Limit {
    /// A tool's settings file: 4 MiB. Real settings files are kilobytes; a larger one is
    /// refused rather than edited (the editors hold the whole document in memory).
    pub const SETTINGS: Limit = Limit {
        bytes: 4 * 1024 * 1024,
        what: "settings file",
    };
    /// One of the runtime's own state records (receipt, journal, evidence): 16 MiB, room
    /// for a receipt's reversal of a settings file at its own limit.
    pub const STATE: Limit = Limit {
        bytes: 16 * 1024 * 1024,
        what: "state file",
    };
    /// A policy profile document: 1 MiB.
    pub const PROFILE: Limit = Limit {
        bytes: 1024 * 1024,
        what: "policy profile",
    };
    /// One file of the gateway's event spool: 64 MiB.
    pub const EVENT_SPOOL: Limit = Limit {
        bytes: 64 * 1024 * 1024,
        what: "event spool file",
    };
}

/// Whether the final path component may be a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// Follow symlinks (a dotfile manager's settings link, say).
    Symlinks,
    /// Refuse a symlink at the final component (`O_NOFOLLOW`): private state.
    NoFinalSymlink,
}

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The path is not a regular file.
    #[error("{path} is {kind}, not a regular file; devint reads only regular files — replace it with the file itself")]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is.
        kind: FileKind,
    },
    /// The file is larger than its limit.
    #[error("{path} is larger than the {limit} bytes devint reads from a {what} ({size} bytes or more); nothing was read — shrink it or move it aside")]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its size as far as it was seen.
        size: u64,
        /// The limit.
        limit: u64,
        /// What kind of file.
        what: &'static str,
    },
    /// The file is not UTF-8 text.
    #[error("{path} is not UTF-8 text; nothing was read")]
    NotText {
        /// The path.
        path: PathBuf,
    },
    /// The OS refused the open or the read.
    #[error("{path}: could not {op}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// The OS error.
        #[source]
        source: io::Error,
    },
}

impl ReadError {
    /// The OS error, when that is what failed.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            ReadError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Opens `path` for reading without blocking and checks it is a regular file. Answers
/// `Ok(None)` when nothing is at `path`. The descriptor is returned with its metadata, for
/// callers that check more (mode and owner of a private file).
pub fn open_regular(path: &Path, follow: Follow) -> Result<Option<(File, Metadata)>, ReadError> {
    let mut flags = OFlags::NONBLOCK | OFlags::NOCTTY;
    if follow == Follow::NoFinalSymlink {
        flags |= OFlags::NOFOLLOW;
    }
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(open_refusal(path, follow, e)),
    };
    let meta = file.metadata().map_err(|source| ReadError::Io {
        path: path.to_owned(),
        op: "inspect the file",
        source,
    })?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            path: path.to_owned(),
            kind: FileKind::of(&meta),
        });
    }
    Ok(Some((file, meta)))
}

/// Checks, without opening, that whatever is at `path` is a regular file (absent is fine):
/// for files opened for writing, where an open of a FIFO would wait for a reader. The caller
/// still checks the descriptor it opens (the path can change in between).
pub fn check_regular_or_absent(path: &Path, follow: Follow) -> Result<(), ReadError> {
    let meta = match follow {
        Follow::Symlinks => std::fs::metadata(path),
        Follow::NoFinalSymlink => std::fs::symlink_metadata(path),
    };
    match meta {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(meta) => Err(ReadError::NotRegular {
            path: path.to_owned(),
            kind: FileKind::of(&meta),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(ReadError::Io {
            path: path.to_owned(),
            op: "inspect the file",
            source,
        }),
    }
}

/// An open that failed: a symlink under `O_NOFOLLOW` (`ELOOP`) or a socket (`ENXIO`) is a
/// [`ReadError::NotRegular`]; anything else an [`ReadError::Io`].
fn open_refusal(path: &Path, follow: Follow, e: io::Error) -> ReadError {
    let errno = e.raw_os_error().map(Errno::from_raw_os_error);
    let kind = match errno {
        Some(Errno::LOOP) if follow == Follow::NoFinalSymlink => Some(FileKind::Symlink),
        Some(Errno::NXIO | Errno::OPNOTSUPP) => {
            let meta = match follow {
                Follow::Symlinks => std::fs::metadata(path),
                Follow::NoFinalSymlink => std::fs::symlink_metadata(path),
            };
            meta.ok().map(|m| FileKind::of(&m))
        }
        _ => None,
    };
    match kind {
        Some(kind) => ReadError::NotRegular {
            path: path.to_owned(),
            kind,
        },
        None => ReadError::Io {
            path: path.to_owned(),
            op: "open the file",
            source: e,
        },
    }
}

/// Reads all of an open regular file, refusing more than `limit` bytes.
pub fn read_capped(
    path: &Path,
    file: &mut File,
    meta: &Metadata,
    limit: Limit,
) -> Result<Vec<u8>, ReadError> {
    let too_large = |size| ReadError::TooLarge {
        path: path.to_owned(),
        size,
        limit: limit.bytes,
        what: limit.what,
    };
    #[cfg(any(test, feature = "test-support"))]
    tally::record(path);
    if meta.len() > limit.bytes {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit.bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| ReadError::Io {
            path: path.to_owned(),
            op: "read the file",
            source,
        })?;
    // The file grew between fstat and read.
    if bytes.len() as u64 > limit.bytes {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Reads the regular file at `path` (`None`: nothing there), within `limit`.
pub fn read_bytes(path: &Path, follow: Follow, limit: Limit) -> Result<Option<Vec<u8>>, ReadError> {
    match open_regular(path, follow)? {
        None => Ok(None),
        Some((mut file, meta)) => read_capped(path, &mut file, &meta, limit).map(Some),
    }
}

/// Reads the regular file at `path` as UTF-8 text (`None`: nothing there), within `limit`.
pub fn read_text(path: &Path, follow: Follow, limit: Limit) -> Result<Option<String>, ReadError> {
    match read_bytes(path, follow, limit)? {
        None => Ok(None),
        Some(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| ReadError::NotText {
                path: path.to_owned(),
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Runs `f` on another thread and fails the test if it does not answer within two
    /// seconds: a read that blocks on a FIFO fails here instead of hanging the suite.
    fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(Duration::from_secs(2))
            .expect("the read blocked instead of refusing")
    }

    fn dir() -> tempfile::TempDir {
        tempfile::Builder::new().tempdir_in("/tmp").unwrap()
    }

    fn kind_of(err: Result<Option<String>, ReadError>) -> FileKind {
        match err {
            Err(ReadError::NotRegular { kind, .. }) => kind,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let d = dir();
        let fifo = d.path().join("settings.json");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        for follow in [Follow::Symlinks, Follow::NoFinalSymlink] {
            let path = fifo.clone();
            let result = within(move || read_text(&path, follow, Limit::SETTINGS));
            assert_eq!(kind_of(result), FileKind::Fifo);
        }
    }

    #[test]
    fn a_device_behind_a_symlink_is_refused_not_read() {
        let d = dir();
        let link = d.path().join("settings.json");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let result = within(move || read_text(&link, Follow::Symlinks, Limit::SETTINGS));
        let err = result.unwrap_err();
        assert!(matches!(
            err,
            ReadError::NotRegular {
                kind: FileKind::CharDevice,
                ..
            }
        ));
        assert!(err.to_string().contains("a character device"), "{err}");
    }

    #[test]
    fn a_symlink_is_refused_where_links_are_not_followed() {
        let d = dir();
        let target = d.path().join("real");
        std::fs::write(&target, "x").unwrap();
        let link = d.path().join("receipt.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(
            kind_of(read_text(&link, Follow::NoFinalSymlink, Limit::STATE)),
            FileKind::Symlink
        );
        assert_eq!(
            read_text(&link, Follow::Symlinks, Limit::STATE).unwrap(),
            Some("x".into())
        );
    }

    #[test]
    fn a_socket_and_a_directory_are_refused() {
        let d = dir();
        let sock = d.path().join("s.json");
        let _listener = UnixListener::bind(&sock).unwrap();
        assert_eq!(
            kind_of(read_text(&sock, Follow::Symlinks, Limit::SETTINGS)),
            FileKind::Socket
        );
        assert_eq!(
            kind_of(read_text(d.path(), Follow::Symlinks, Limit::SETTINGS)),
            FileKind::Directory
        );
    }

    #[test]
    fn an_oversize_file_is_refused_with_its_size_and_the_limit() {
        let d = dir();
        let big = d.path().join("profile.toml");
        let file = File::create(&big).unwrap();
        file.set_len(Limit::PROFILE.bytes + 1).unwrap();
        let err = read_text(&big, Follow::Symlinks, Limit::PROFILE).unwrap_err();
        assert!(matches!(err, ReadError::TooLarge { .. }), "{err:?}");
        assert!(
            err.to_string().contains("1048576 bytes") && err.to_string().contains("policy profile"),
            "{err}"
        );
        file.set_len(Limit::PROFILE.bytes).unwrap();
        assert!(read_bytes(&big, Follow::Symlinks, Limit::PROFILE).is_ok());
    }

    #[test]
    fn absent_is_none_and_text_must_be_utf8() {
        let d = dir();
        assert!(
            read_text(&d.path().join("none"), Follow::Symlinks, Limit::SETTINGS)
                .unwrap()
                .is_none()
        );
        let bin = d.path().join("bin");
        std::fs::write(&bin, [0xff, 0xfe]).unwrap();
        assert!(matches!(
            read_text(&bin, Follow::Symlinks, Limit::SETTINGS),
            Err(ReadError::NotText { .. })
        ));
    }
}
