//! [`ResolveError`]: why resolving one request's token produced no [`Grant`](super::Grant)
//! — the token was refused, or the book it would be checked against is unavailable.
//!
//! The book's storage lives above this crate (the `devint-net` book file); its failure
//! reaches the session as an opaque error so an unreadable book denies everything and is
//! never mistaken for an empty one.

use std::sync::Arc;

use super::grant::{AuthDenial, Grant};
use super::live::LiveBook;
use crate::time::UnixSecs;
use crate::verbs::Verb;
use crate::wire::pb::DenyCode;

/// The error of the storage behind a resolver (an unreadable or corrupt book file).
pub type BookStorageError = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// Why resolving a token produced no grant.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// The token was refused.
    #[error(transparent)]
    Denied(#[from] AuthDenial),
    /// The book could not be read; nothing resolves until it is fixed.
    #[error("no token can be checked: {0}")]
    BookUnavailable(BookStorageError),
}

impl ResolveError {
    /// The `Denied.code`: an unreadable book authenticates no one (`UNAUTHENTICATED`).
    pub fn wire_code(&self) -> DenyCode {
        match self {
            ResolveError::Denied(d) => d.wire_code(),
            ResolveError::BookUnavailable(_) => DenyCode::Unauthenticated,
        }
    }
}

/// Resolves a request's token against the enrolment book *now* (so revocation is
/// immediate): the session core's only way to learn who is calling.
pub trait TokenResolver: Send + Sync {
    /// Resolve `token` for `verb` on `tool` at `now` (spec §6 steps 2–4).
    fn resolve(
        &self,
        token: &str,
        verb: Verb,
        tool: &str,
        now: UnixSecs,
    ) -> Result<Grant, ResolveError>;
}

impl TokenResolver for LiveBook {
    fn resolve(
        &self,
        token: &str,
        verb: Verb,
        tool: &str,
        now: UnixSecs,
    ) -> Result<Grant, ResolveError> {
        LiveBook::resolve(self, token, verb, tool, now).map_err(ResolveError::Denied)
    }
}
