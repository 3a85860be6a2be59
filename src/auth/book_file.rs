//! [`BookFile`]: the enrolment book on disk (spec §7 "we persist the enrolment book").
//!
//! Format: JSON `{"format_version": 1, "records": [...]}`; each record holds the token id,
//! client name, issue and expiry times, scope and the SHA-256 digest of the secret — never
//! the secret. The file is `0600` in a `0700` directory, both owned by us, and is replaced
//! atomically and durably (see `private_fs::write_private_atomically`).
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

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::book::{EnrolmentBook, EnrolmentError, EnrolmentRecord};
use super::ids::{ClientName, TokenId};
use super::private_fs::{self, Exposure};
use super::scope::{Scope, ToolScope};
use super::secret::TokenDigest;
use crate::verbs::{Verb, VerbSet};

/// The only `format_version` this build reads and writes.
pub const BOOK_FORMAT_VERSION: u32 = 1;
/// A book file larger than this is refused as corrupt (10,000 records take about 4 MiB).
pub const BOOK_MAX_BYTES: u64 = 64 * 1024 * 1024;

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
    #[error("{} is not a regular file or directory as expected (a symlink?); the enrolment book must be a plain file in a plain directory", path.display())]
    WrongKind {
        /// The path.
        path: PathBuf,
    },
    /// The requested change was refused.
    #[error(transparent)]
    Enrolment(#[from] EnrolmentError),
}

/// What `stat` says about the book file; a change means another process replaced it.
/// Atomic replacement always creates a new inode, and `ctime` changes with it, so an
/// unchanged fingerprint means unchanged content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BookFingerprint {
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
    fn of(meta: &fs::Metadata) -> BookFingerprint {
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

    fn exposure_error(&self, path: &Path, exposure: Exposure, is_dir: bool) -> BookFileError {
        let path = path.to_path_buf();
        match exposure {
            Exposure::Mode(mode) if is_dir => BookFileError::DirTooOpen { dir: path, mode },
            Exposure::Mode(mode) => BookFileError::FileTooOpen { path, mode },
            Exposure::Owner { owner, us } => BookFileError::NotOwned { path, owner, us },
            Exposure::Kind => BookFileError::WrongKind { path },
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
        private_fs::check_private(&meta, true).map_err(|x| self.exposure_error(&dir, x, true))
    }

    /// The file's current fingerprint (one `stat`).
    pub fn fingerprint(&self) -> Result<BookFingerprint, BookFileError> {
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
    pub fn load_with_fingerprint(&self) -> Result<(EnrolmentBook, BookFingerprint), BookFileError> {
        let mut file = match private_fs::open_no_follow(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
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
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
                return Err(BookFileError::WrongKind {
                    path: self.path.clone(),
                })
            }
            Err(e) => return Err(self.io("open", &self.path, e)),
        };
        self.check_dir()?;
        let meta = file
            .metadata()
            .map_err(|e| self.io("inspect", &self.path, e))?;
        private_fs::check_private(&meta, false)
            .map_err(|x| self.exposure_error(&self.path, x, false))?;
        if meta.len() > BOOK_MAX_BYTES {
            return Err(self.corrupt(format!("larger than {BOOK_MAX_BYTES} bytes")));
        }
        let mut text = String::new();
        (&mut file)
            .take(BOOK_MAX_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| match e.kind() {
                io::ErrorKind::InvalidData => self.corrupt("not UTF-8".into()),
                _ => self.io("read", &self.path, e),
            })?;
        let book = self.parse(&text)?;
        Ok((book, BookFingerprint::of(&meta)))
    }

    fn corrupt(&self, detail: String) -> BookFileError {
        BookFileError::Corrupt {
            path: self.path.clone(),
            detail,
        }
    }

    fn parse(&self, text: &str) -> Result<EnrolmentBook, BookFileError> {
        #[derive(Deserialize)]
        struct VersionProbe {
            format_version: u64,
        }
        let probe: VersionProbe =
            serde_json::from_str(text).map_err(|e| self.corrupt(e.to_string()))?;
        if probe.format_version != u64::from(BOOK_FORMAT_VERSION) {
            return Err(BookFileError::UnsupportedVersion {
                path: self.path.clone(),
                found: probe.format_version,
            });
        }
        let model: FileModel =
            serde_json::from_str(text).map_err(|e| self.corrupt(e.to_string()))?;
        let mut book = EnrolmentBook::new();
        for (i, r) in model.records.into_iter().enumerate() {
            let record = r
                .into_record()
                .map_err(|d| self.corrupt(format!("record {i}: {d}")))?;
            book.insert(record)
                .map_err(|_| self.corrupt(format!("record {i}: duplicate token id or digest")))?;
        }
        Ok(book)
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
        let model = FileModel {
            format_version: BOOK_FORMAT_VERSION,
            records: book.list().map(FileRecord::from_record).collect(),
        };
        let mut text =
            serde_json::to_string_pretty(&model).map_err(|e| self.corrupt(e.to_string()))?;
        text.push('\n');
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

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileModel {
    format_version: u32,
    records: Vec<FileRecord>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRecord {
    token_id: TokenId,
    client_name: ClientName,
    issued_at: u64,
    expires_at: u64,
    scope: FileScope,
    /// SHA-256 of the secret, lowercase hex.
    digest_sha256: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileScope {
    tools: FileTools,
    verbs: Vec<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum FileTools {
    All,
    Only(BTreeSet<String>),
}

impl FileRecord {
    fn from_record(r: &EnrolmentRecord) -> FileRecord {
        FileRecord {
            token_id: r.token_id.clone(),
            client_name: r.client_name.clone(),
            issued_at: r.issued_at,
            expires_at: r.expires_at,
            scope: FileScope {
                tools: match &r.scope.tools {
                    ToolScope::All => FileTools::All,
                    ToolScope::Only(set) => FileTools::Only(set.clone()),
                },
                verbs: r.scope.verbs.iter().map(|v| v.token().to_owned()).collect(),
            },
            digest_sha256: r.digest.to_hex(),
        }
    }

    fn into_record(self) -> Result<EnrolmentRecord, String> {
        let digest = TokenDigest::from_hex(&self.digest_sha256)
            .ok_or_else(|| "digest_sha256 is not 64 lowercase hex characters".to_owned())?;
        let mut verbs = VerbSet::EMPTY;
        for v in &self.scope.verbs {
            let verb = Verb::from_token(v).ok_or_else(|| format!("unknown verb {v:?}"))?;
            verbs = verbs.with(verb);
        }
        if self.expires_at < self.issued_at {
            return Err("expires_at is before issued_at".into());
        }
        Ok(EnrolmentRecord {
            token_id: self.token_id,
            client_name: self.client_name,
            issued_at: self.issued_at,
            expires_at: self.expires_at,
            scope: Arc::new(Scope {
                tools: match self.scope.tools {
                    FileTools::All => ToolScope::All,
                    FileTools::Only(set) => ToolScope::Only(set),
                },
                verbs,
            }),
            digest,
        })
    }
}
