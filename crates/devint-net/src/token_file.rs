//! The client's copy of its token (spec §7): a `0600` file holding the 64 hex characters and
//! a newline. Which file a client reads is [`crate::client::token_file`]'s rule.
//!
//! This is the one file a secret may be written to. It owns reading, writing and staging
//! that file, never which file it is, and never reads the environment.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use devint::auth::{TokenSecret, SECRET_HEX_LEN};
use devint_fs::private::{self as private_fs, Exposure};
use devint_fs::read::{self, FileKind, Follow, ReadError};

/// The environment variable naming the client's token file.
pub const TOKEN_FILE_ENV: &str = "AA_DEVINT_TOKEN_FILE";
/// The environment variable holding a token itself (64 lowercase hex characters), for a
/// client that cannot read a file. Any process of the same user can read another's
/// environment (`/proc/PID/environ`), so a token here is exactly as private as that.
pub const TOKEN_ENV: &str = "AA_DEVINT_TOKEN";

/// The client's token file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TokenFileError {
    /// An IO operation failed.
    #[error("could not {action} the token file {}: {source}", path.display())]
    Io {
        /// What we were doing.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// Group or others may read or write it.
    #[error("the token file {} has mode {mode:04o}: group or others can read or write it, so the token may be known to others; run `chmod 600 {}` and rotate the token with `devint tokens rotate`", path.display(), path.display())]
    TooOpen {
        /// The file.
        path: PathBuf,
        /// Its mode.
        mode: u32,
    },
    /// Someone else owns it.
    #[error("the token file {} is owned by uid {owner}, not by you (uid {us}); use a token file you own", path.display())]
    NotOwned {
        /// The file.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// Our effective uid.
        us: u32,
    },
    /// Not a regular file (a symlink, FIFO, device, socket or directory).
    #[error("the token file {} is {kind}, not a regular file; point AA_DEVINT_TOKEN_FILE at the file itself", path.display())]
    WrongKind {
        /// The path.
        path: PathBuf,
        /// What it is.
        kind: FileKind,
    },
    /// The content is not one token.
    #[error("the token file {} does not hold one token (64 lowercase hex characters and a newline); write it again from `devint enrol`", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
    },
}

/// Write the token (64 hex characters and a newline) to `path`: mode `0600`, atomically,
/// creating the parent directory with mode `0700` if missing.
pub fn write_token_file(path: &Path, secret: &TokenSecret) -> Result<(), TokenFileError> {
    stage_token_file(path, secret)?.commit()
}

/// A token written and fsynced beside its token file, not yet in place
/// ([`stage_token_file`]); dropped uncommitted, it is removed.
#[derive(Debug)]
pub struct StagedTokenFile(private_fs::StagedFile);

/// Write the token to a `0600` temp file beside `path` (creating the directory with mode
/// `0700` if missing) and fsync it; the token file itself is unchanged until
/// [`StagedTokenFile::commit`]. So a writer can have the token on disk before it records it
/// anywhere, and record it before the file a client reads holds it.
pub fn stage_token_file(
    path: &Path,
    secret: &TokenSecret,
) -> Result<StagedTokenFile, TokenFileError> {
    let io_err = |action, source| TokenFileError::Io {
        action,
        path: path.to_path_buf(),
        source,
    };
    let dir = private_fs::parent_dir(path);
    private_fs::create_private_dir(&dir).map_err(|e| io_err("create the directory of", e))?;
    let mut content = zeroize::Zeroizing::new(String::with_capacity(SECRET_HEX_LEN + 1));
    content.push_str(&secret.expose_secret_hex());
    content.push('\n');
    private_fs::stage_private(path, content.as_bytes())
        .map(StagedTokenFile)
        .map_err(|e| io_err("write", e))
}

impl StagedTokenFile {
    /// Put the staged token in place. An error that came after the rename (the directory
    /// could not be fsynced) still leaves the new token in the file: that is not an error
    /// a caller could undo, so it is not one.
    pub fn commit(self) -> Result<(), TokenFileError> {
        let path = self.0.path().to_path_buf();
        match self.0.commit() {
            Ok(()) | Err(private_fs::CommitError::NotDurable(_)) => Ok(()),
            Err(private_fs::CommitError::NotMoved(source)) => Err(TokenFileError::Io {
                action: "move into place",
                path,
                source,
            }),
        }
    }
}

/// Read the token from `path`, refusing a file that group or others can read or write, or
/// that we do not own. One trailing newline is trimmed; anything else around the token is
/// malformed.
pub fn read_token_file(path: &Path) -> Result<TokenSecret, TokenFileError> {
    let io_err = |action, source| TokenFileError::Io {
        action,
        path: path.to_path_buf(),
        source,
    };
    // A FIFO named as the token file is refused at once, never waited on.
    let (file, meta) = match read::open_regular(path, Follow::NoFinalSymlink) {
        Ok(Some(open)) => open,
        Ok(None) => return Err(io_err("open", io::Error::from(io::ErrorKind::NotFound))),
        Err(ReadError::NotRegular { kind, .. }) => {
            return Err(TokenFileError::WrongKind {
                path: path.to_path_buf(),
                kind,
            })
        }
        Err(ReadError::Io { source, .. }) => return Err(io_err("open", source)),
        Err(e) => return Err(io_err("open", io::Error::other(e.to_string()))),
    };
    // spec[S7-TOKEN-FILE] §7: a client MUST refuse a token file readable by group or others.
    private_fs::check_private(&meta, false).map_err(|x| match x {
        Exposure::Mode(mode) => TokenFileError::TooOpen {
            path: path.to_path_buf(),
            mode,
        },
        Exposure::Owner { owner, us } => TokenFileError::NotOwned {
            path: path.to_path_buf(),
            owner,
            us,
        },
        Exposure::Kind => TokenFileError::WrongKind {
            path: path.to_path_buf(),
            kind: FileKind::of(&meta),
        },
    })?;
    let mut buf = zeroize::Zeroizing::new(Vec::with_capacity(SECRET_HEX_LEN + 2));
    file.take(SECRET_HEX_LEN as u64 + 2)
        .read_to_end(&mut buf)
        .map_err(|e| io_err("read", e))?;
    let malformed = || TokenFileError::Malformed {
        path: path.to_path_buf(),
    };
    let body = buf.strip_suffix(b"\n").unwrap_or(&buf);
    let text = std::str::from_utf8(body).map_err(|_| malformed())?;
    TokenSecret::parse(text).map_err(|_| malformed())
}
