//! [`LiveBook`]: one [`EnrolmentBook`] shared by every connection of a server, behind a
//! read-write lock. No file IO here (the loom model in `tests/loom_book.rs` runs this type).
//!
//! Every operation holds the lock for its whole duration, so each is atomic to readers:
//! after `revoke` returns, a `resolve` that starts later cannot see the record; `rotate`
//! swaps old for new under one write lock, so a reader sees one or the other.

use std::time::Duration;

use super::book::{EnrolmentBook, EnrolmentError, EnrolmentRecord};
use super::grant::{AuthDenial, Grant};
use super::ids::{ClientName, TokenId};
use super::scope::Scope;
use super::secret::TokenSecret;
use super::sync::RwLock;
use crate::time::UnixSecs;
use crate::verbs::Verb;

/// An [`EnrolmentBook`] behind a read-write lock.
///
/// A poisoned lock (a panic while it was held) is recovered rather than propagated: every
/// book operation completes its change before anything that could panic, so the data is
/// consistent.
pub struct LiveBook {
    book: RwLock<EnrolmentBook>,
}

impl Default for LiveBook {
    fn default() -> LiveBook {
        LiveBook::new(EnrolmentBook::new())
    }
}

impl std::fmt::Debug for LiveBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveBook")
            .field("book", &*self.read())
            .finish()
    }
}

impl LiveBook {
    /// Share `book`.
    pub fn new(book: EnrolmentBook) -> LiveBook {
        LiveBook {
            book: RwLock::new(book),
        }
    }

    fn read(&self) -> impl std::ops::Deref<Target = EnrolmentBook> + '_ {
        self.book.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> impl std::ops::DerefMut<Target = EnrolmentBook> + '_ {
        self.book.write().unwrap_or_else(|p| p.into_inner())
    }

    /// See [`EnrolmentBook::resolve`].
    pub fn resolve(
        &self,
        token: &str,
        verb: Verb,
        tool: &str,
        now: UnixSecs,
    ) -> Result<Grant, AuthDenial> {
        self.read().resolve(token, verb, tool, now)
    }

    /// See [`EnrolmentBook::issue`].
    pub fn issue(
        &self,
        client: ClientName,
        scope: Scope,
        ttl: Duration,
        now: UnixSecs,
    ) -> Result<(TokenId, TokenSecret), EnrolmentError> {
        self.write().issue(client, scope, ttl, now)
    }

    /// See [`EnrolmentBook::issue_with_secret`].
    pub fn issue_with_secret(
        &self,
        client: ClientName,
        scope: Scope,
        ttl: Duration,
        now: UnixSecs,
        secret: &TokenSecret,
    ) -> Result<TokenId, EnrolmentError> {
        self.write()
            .issue_with_secret(client, scope, ttl, now, secret)
    }

    /// See [`EnrolmentBook::rotate`].
    pub fn rotate(
        &self,
        token_id: &TokenId,
        now: UnixSecs,
    ) -> Result<(TokenId, TokenSecret), EnrolmentError> {
        self.write().rotate(token_id, now)
    }

    /// See [`EnrolmentBook::rotate_with_secret`].
    pub fn rotate_with_secret(
        &self,
        token_id: &TokenId,
        now: UnixSecs,
        secret: &TokenSecret,
    ) -> Result<TokenId, EnrolmentError> {
        self.write().rotate_with_secret(token_id, now, secret)
    }

    /// See [`EnrolmentBook::revoke`].
    pub fn revoke(&self, token_id: &TokenId) -> Result<EnrolmentRecord, EnrolmentError> {
        self.write().revoke(token_id)
    }

    /// See [`EnrolmentBook::purge_expired`].
    pub fn purge_expired(&self, now: UnixSecs) -> usize {
        self.write().purge_expired(now)
    }

    /// A copy of every record (no secrets).
    pub fn list(&self) -> Vec<EnrolmentRecord> {
        self.read().list().cloned().collect()
    }

    /// A copy of the whole book.
    pub fn snapshot(&self) -> EnrolmentBook {
        self.read().clone()
    }

    /// Replace the whole book atomically (a reload from disk).
    pub fn replace(&self, book: EnrolmentBook) {
        *self.write() = book;
    }
}
