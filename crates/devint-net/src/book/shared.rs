//! [`SharedBook`]: the server's view of the book file, shared by all its connections.
//!
//! At every `resolve` it takes one `stat` of the book file and compares it with the
//! fingerprint of the copy it holds; if another process (the CLI) replaced the file, it
//! reloads before answering. So a `devint tokens revoke` is seen by the next request on
//! every connection, already open or not (spec §7).
//!
//! If the file cannot be read or is corrupt, every `resolve` is refused with
//! [`ResolveError::BookUnavailable`] (logged at `error`, and returned so the caller can
//! audit it) until the file is fixed; the previously loaded copy is never used again.

use std::sync::{Arc, Mutex};

use devint::auth::{EnrolmentBook, Grant, LiveBook, ResolveError, TokenResolver};
use devint::time::UnixSecs;
use devint::verbs::Verb;

use super::file::{BookFile, BookFileError, BookFingerprint};

#[derive(Debug)]
enum Loaded {
    Fresh(BookFingerprint),
    Broken(BookFingerprint, Arc<BookFileError>),
}

/// The book file plus the in-memory copy resolved against, kept in step with the file.
#[derive(Debug)]
pub struct SharedBook {
    file: BookFile,
    live: LiveBook,
    loaded: Mutex<Loaded>,
}

impl SharedBook {
    /// Load `file` now; a corrupt or exposed book is an error at start-up.
    pub fn open(file: BookFile) -> Result<SharedBook, BookFileError> {
        let (book, fingerprint) = file.load_with_fingerprint()?;
        Ok(SharedBook {
            file,
            live: LiveBook::new(book),
            loaded: Mutex::new(Loaded::Fresh(fingerprint)),
        })
    }

    /// The book file.
    pub fn file(&self) -> &BookFile {
        &self.file
    }

    /// Bring the in-memory copy in step with the file. Returns the load error if the file
    /// is (still) unreadable.
    pub fn refresh(&self) -> Result<(), Arc<BookFileError>> {
        let now_fp = self.file.fingerprint();
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        let now_fp = match now_fp {
            Ok(fp) => fp,
            Err(e) => {
                let e = Arc::new(e);
                tracing::error!(error = %e, "enrolment book unavailable; denying every token");
                // Force a reload once stat works again.
                *loaded = Loaded::Broken(BookFingerprint::Missing, Arc::clone(&e));
                self.live.replace(EnrolmentBook::new());
                return Err(e);
            }
        };
        match &*loaded {
            Loaded::Fresh(fp) if *fp == now_fp => return Ok(()),
            Loaded::Broken(fp, e) if *fp == now_fp && now_fp != BookFingerprint::Missing => {
                return Err(Arc::clone(e))
            }
            _ => {}
        }
        match self.file.load_with_fingerprint() {
            Ok((book, fp)) => {
                self.live.replace(book);
                *loaded = Loaded::Fresh(fp);
                Ok(())
            }
            Err(e) => {
                let e = Arc::new(e);
                tracing::error!(error = %e, "enrolment book unavailable; denying every token");
                // Never keep answering from the old copy.
                self.live.replace(EnrolmentBook::new());
                *loaded = Loaded::Broken(now_fp, Arc::clone(&e));
                Err(e)
            }
        }
    }

    // spec[S7-REVOCATION] §7: after a revocation, the next request on any connection, already
    // open or not, is denied.
    /// Resolve one request's token against the book as it is on disk now.
    pub fn resolve(
        &self,
        token: &str,
        verb: Verb,
        tool: &str,
        now: UnixSecs,
    ) -> Result<Grant, ResolveError> {
        self.refresh()
            .map_err(|e| ResolveError::BookUnavailable(e))?;
        Ok(self.live.resolve(token, verb, tool, now)?)
    }

    /// The in-memory copy (as of the last refresh).
    pub fn live(&self) -> &LiveBook {
        &self.live
    }
}

impl TokenResolver for SharedBook {
    fn resolve(
        &self,
        token: &str,
        verb: Verb,
        tool: &str,
        now: UnixSecs,
    ) -> Result<Grant, ResolveError> {
        SharedBook::resolve(self, token, verb, tool, now)
    }
}
