//! [`BookFile`]: the enrolment book on disk (spec §7 "we persist the enrolment book").
//!
//! The format (JSON, records and digests, never a secret) is the core's
//! ([`devint::auth::decode_book`], [`devint::auth::encode_book`]); this module owns the file: it is `0600` in a `0700` directory, both owned by us, and is replaced
//! atomically and durably (see [`devint_fs::private::write_private_atomically`]).
//!
//! Loading refuses, with an error naming the file and the fix: unparsable or truncated
//! JSON, an unknown `format_version`, a file or directory with group/other permission bits,
//! or one owned by someone else. A refused book never becomes an empty book and never an
//! allow. A **missing** file is an empty book: that is the legitimate state "nothing
//! enrolled yet", and every token then resolves as unknown.
//!
//! Writers (the CLI's `enrol`, `tokens rotate|revoke`) go through [`BookFile::update`],
//! which holds an exclusive `flock` on `<book>.lock` across load-modify-save so two
//! processes never lose each other's changes.

use std::fs::{self, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use devint::auth::{
    decode_book, encode_book, BookDecodeError, EnrolmentBook, EnrolmentError, BOOK_FORMAT_VERSION,
    BOOK_MAX_BYTES,
};
use devint_fs::private::{self as private_fs, Exposure};
use devint_fs::read::{self, FileKind, Follow, Limit, ReadError};

/// The enrolment book file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BookFileError {
    /// An IO operation failed.
    #[error("could not {action} the enrolment book {}: {source}", path.display())]
    Io {
        /// What we were doing.
        action: &'static str,
        /// The file or directory involved.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// The content is not a valid book (truncated, edited, not JSON).
    #[error("the enrolment book {} is corrupt or truncated ({detail}); restore it from a backup, or move it aside and enrol the clients again with `devint enrol`", path.display())]
    Corrupt {
        /// The book file.
        path: PathBuf,
        /// What was wrong.
        detail: String,
    },
    /// Written by a newer or older devint.
    #[error("the enrolment book {} has format_version {found}, this devint reads only {BOOK_FORMAT_VERSION}; use the devint that wrote it, or move it aside and enrol again", path.display())]
    UnsupportedVersion {
        /// The book file.
        path: PathBuf,
        /// The version found.
        found: u64,
    },
    /// Group or other can read or write it.
    #[error("the enrolment book {} has mode {mode:04o}, but must be private to you; run `chmod 600 {}`", path.display(), path.display())]
    FileTooOpen {
        /// The book file.
        path: PathBuf,
        /// Its mode.
        mode: u32,
    },
    /// Group or other can enter or change its directory.
    #[error("the directory {} of the enrolment book has mode {mode:04o}, but must be private to you; run `chmod 700 {}`", dir.display(), dir.display())]
    DirTooOpen {
        /// The directory.
        dir: PathBuf,
        /// Its mode.
        mode: u32,
    },
    /// Someone else owns it.
    #[error("{} is owned by uid {owner}, not by you (uid {us}); the enrolment book and its directory must be yours — fix the ownership or point devint at your own state directory", path.display())]
    NotOwned {
        /// The file or directory.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// Our effective uid.
        us: u32,
    },
    /// Not a regular file (or, for the directory, not a directory), or a symlink.
    #[error("{} is {kind}, not a regular file or directory as expected; the enrolment book must be a plain file in a plain directory", path.display())]
    WrongKind {
        /// The path.
        path: PathBuf,
        /// What it is.
        kind: FileKind,
    },
    /// Larger than any book this devint writes.
    #[error(transparent)]
    TooLarge(ReadError),
    /// The requested change was refused.
    #[error(transparent)]
    Enrolment(#[from] EnrolmentError),
}

/// What `stat` says about the book file; a change means another process replaced it.
/// Atomic replacement always creates a new inode, and `ctime` changes with it, so an
/// unchanged fingerprint means unchanged content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BookFingerprint {
    /// There is no book file.
    Missing,
    /// The file's identity and times.
    Present {
        /// Device.
        dev: u64,
        /// Inode.
        ino: u64,
        /// Size in bytes.
        size: u64,
        /// Modification time (seconds, nanoseconds).
        mtime: (i64, i64),
        /// Status-change time (seconds, nanoseconds).
        ctime: (i64, i64),
    },
}

impl BookFingerprint {
    pub(crate) fn of(meta: &fs::Metadata) -> BookFingerprint {
        BookFingerprint::Present {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// The enrolment book's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookFile {
    path: PathBuf,
}

/// An exclusive lock on the book for a load-modify-save; released on drop.
#[derive(Debug)]
pub struct BookLock {
    _file: fs::File,
}

impl BookFile {
    /// The book at `path` (nothing is read yet).
    pub fn new(path: impl Into<PathBuf>) -> BookFile {
        BookFile { path: path.into() }
    }

    /// The book file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn dir(&self) -> PathBuf {
        private_fs::parent_dir(&self.path)
    }

    fn lock_path(&self) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        self.dir().join(name)
    }

    fn exposure_error(
        &self,
        path: &Path,
        exposure: Exposure,
        is_dir: bool,
        meta: &fs::Metadata,
    ) -> BookFileError {
        let path = path.to_path_buf();
        match exposure {
            Exposure::Mode(mode) if is_dir => BookFileError::DirTooOpen { dir: path, mode },
            Exposure::Mode(mode) => BookFileError::FileTooOpen { path, mode },
            Exposure::Owner { owner, us } => BookFileError::NotOwned { path, owner, us },
            Exposure::Kind => BookFileError::WrongKind {
                kind: FileKind::of(meta),
                path,
            },
        }
    }

    fn io(&self, action: &'static str, path: &Path, source: io::Error) -> BookFileError {
        BookFileError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }

    fn check_dir(&self) -> Result<(), BookFileError> {
        let dir = self.dir();
        let meta =
            fs::symlink_metadata(&dir).map_err(|e| self.io("inspect the directory of", &dir, e))?;
        private_fs::check_private(&meta, true)
            .map_err(|x| self.exposure_error(&dir, x, true, &meta))
    }

    /// The file's current fingerprint (one `stat`).
    pub(crate) fn fingerprint(&self) -> Result<BookFingerprint, BookFileError> {
        match fs::symlink_metadata(&self.path) {
            Ok(meta) => Ok(BookFingerprint::of(&meta)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(BookFingerprint::Missing),
            Err(e) => Err(self.io("inspect", &self.path, e)),
        }
    }

    /// Load the book. A missing file is an empty book (nothing enrolled); anything
    /// unreadable, corrupt or exposed is an error.
    pub fn load(&self) -> Result<EnrolmentBook, BookFileError> {
        self.load_with_fingerprint().map(|(book, _)| book)
    }

    /// Load the book and the fingerprint of exactly the file that was read.
    pub(crate) fn load_with_fingerprint(
        &self,
    ) -> Result<(EnrolmentBook, BookFingerprint), BookFileError> {
        // The open never blocks (a FIFO planted as the book is refused at once: the server
        // resolves tokens on its async workers) and never follows a symlink.
        let (mut file, meta) = match read::open_regular(&self.path, Follow::NoFinalSymlink) {
            Ok(Some(open)) => open,
            Ok(None) => {
                // A missing book is "nothing enrolled", but a missing book in an exposed
                // directory is still refused: anyone could plant one there.
                match self.check_dir() {
                    Ok(()) => {}
                    Err(BookFileError::Io { source, .. })
                        if source.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e),
                }
                return Ok((EnrolmentBook::new(), BookFingerprint::Missing));
            }
            Err(ReadError::NotRegular { kind, .. }) => {
                return Err(BookFileError::WrongKind {
                    path: self.path.clone(),
                    kind,
                })
            }
            Err(ReadError::Io { source, .. }) => return Err(self.io("open", &self.path, source)),
            Err(e) => return Err(BookFileError::TooLarge(e)),
        };
        self.check_dir()?;
        private_fs::check_private(&meta, false)
            .map_err(|x| self.exposure_error(&self.path, x, false, &meta))?;
        let limit = Limit {
            bytes: BOOK_MAX_BYTES,
            what: "enrolment book",
        };
        let bytes = match read::read_capped(&self.path, &mut file, &meta, limit) {
            Ok(bytes) => bytes,
            Err(ReadError::Io { source, .. }) => return Err(self.io("read", &self.path, source)),
            Err(e) => return Err(BookFileError::TooLarge(e)),
        };
        let book = self.decode(&bytes)?;
        Ok((book, BookFingerprint::of(&meta)))
    }

    fn corrupt(&self, detail: String) -> BookFileError {
        BookFileError::Corrupt {
            path: self.path.clone(),
            detail,
        }
    }

    fn decode(&self, bytes: &[u8]) -> Result<EnrolmentBook, BookFileError> {
        decode_book(bytes).map_err(|e| match e {
            BookDecodeError::Corrupt(detail) => self.corrupt(detail),
            BookDecodeError::UnsupportedVersion { found } => BookFileError::UnsupportedVersion {
                path: self.path.clone(),
                found,
            },
            other => self.corrupt(other.to_string()),
        })
    }

    // spec[S7-BOOK-NO-SECRET] §7: the book (records and digests) is persisted 0600, atomically
    // and durably.
    /// Write `book` atomically and durably, creating the `0700` directory if missing.
    /// Writers that first read the book should use [`BookFile::update`] instead.
    pub fn save(&self, book: &EnrolmentBook) -> Result<(), BookFileError> {
        let dir = self.dir();
        private_fs::create_private_dir(&dir)
            .map_err(|e| self.io("create the directory of", &dir, e))?;
        self.check_dir()?;
        let text = encode_book(book);
        private_fs::write_private_atomically(&self.path, text.as_bytes())
            .map_err(|e| self.io("write", &self.path, e))
    }

    /// Take the process-wide exclusive lock (`flock` on `<book>.lock` beside the book),
    /// blocking until it is free.
    pub fn lock(&self) -> Result<BookLock, BookFileError> {
        let dir = self.dir();
        private_fs::create_private_dir(&dir)
            .map_err(|e| self.io("create the directory of", &dir, e))?;
        self.check_dir()?;
        let lock_path = self.lock_path();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&lock_path)
            .map_err(|e| self.io("open the lock file of", &lock_path, e))?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| self.io("lock", &lock_path, e.into()))?;
        Ok(BookLock { _file: file })
    }

    /// Load, change and save the book under the lock, so concurrent writers in other
    /// processes never lose an update. Nothing is written if `change` fails.
    pub fn update<T>(
        &self,
        change: impl FnOnce(&mut EnrolmentBook) -> Result<T, EnrolmentError>,
    ) -> Result<T, BookFileError> {
        let _lock = self.lock()?;
        let mut book = self.load()?;
        let out = change(&mut book)?;
        self.save(&book)?;
        Ok(out)
    }
}
