//! [`EnrolmentRecord`]: one enrolled token as the book keeps it — everything but the
//! secret (spec §7).
//!
//! Its own file so that both the book (which holds records) and the grant (which is built
//! from one) depend on it, and not on each other. It must never hold the secret itself.

use std::sync::Arc;

use super::ids::{ClientName, TokenId};
use super::scope::Scope;
use super::secret::TokenDigest;
use crate::time::UnixSecs;

// spec[S7-BOOK-NO-SECRET] §7: the record holds a digest of the secret, never the secret.
/// One enrolled token (spec §7): everything but the secret, which the book never holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnrolmentRecord {
    pub(crate) token_id: TokenId,
    pub(crate) client_name: ClientName,
    pub(crate) issued_at: UnixSecs,
    pub(crate) expires_at: UnixSecs,
    pub(crate) scope: Arc<Scope>,
    pub(crate) digest: TokenDigest,
}

impl EnrolmentRecord {
    /// The token's public id.
    pub fn token_id(&self) -> &TokenId {
        &self.token_id
    }
    /// Who the token was issued to.
    pub fn client_name(&self) -> &ClientName {
        &self.client_name
    }
    /// When it was issued.
    pub fn issued_at(&self) -> UnixSecs {
        self.issued_at
    }
    /// The absolute expiry: the token is valid while `now < expires_at`.
    pub fn expires_at(&self) -> UnixSecs {
        self.expires_at
    }
    /// What the token covers.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }
    // spec[S7-ABSOLUTE-EXPIRY] §7: expiry is absolute, not sliding.
    /// Whether the token has expired at `now` (spec §7: absolute, not sliding).
    pub fn is_expired(&self, now: UnixSecs) -> bool {
        now >= self.expires_at
    }
}
