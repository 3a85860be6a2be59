//! [`EnrolmentBook`]: the in-memory records and the one resolution function.
//!
//! Plain data: no lock, no file, no clock (`now` is an argument).
//! [`super::LiveBook`] shares it between connections; [`super::BookFile`] persists it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use super::grant::{AuthDenial, Grant};
use super::ids::{ClientName, TokenId};
use super::scope::Scope;
use super::secret::{EntropyError, TokenDigest, TokenSecret};
use crate::time::UnixSecs;
use crate::verbs::Verb;

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

/// The longest a token may live: one year of 366 days (`--ttl 1y` is 365¼ days). Expiry
/// is absolute (spec §7), so an unbounded lifetime would be a token that never expires;
/// a longer-lived client enrols again (or rotates) within the year.
pub const MAX_TOKEN_LIFETIME: Duration = Duration::from_secs(366 * 86_400);

/// Something a book operation refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnrolmentError {
    /// No record has this id (never issued, revoked, or purged).
    #[error("no enrolled token has id {0}; `devint tokens list` shows the enrolled ones")]
    UnknownTokenId(TokenId),
    /// A token must live at least one second.
    #[error("a token's lifetime must be at least one second; pass a positive --ttl")]
    ZeroLifetime,
    /// A token may live at most [`MAX_TOKEN_LIFETIME`].
    #[error("a token may live at most one year (366 days); pass a shorter --ttl and rotate the token before it expires")]
    LifetimeTooLong,
    /// The scope grants nothing, so the token would be useless.
    #[error(
        "the scope grants nothing (an empty tool or verb set); name at least one tool and one verb"
    )]
    EmptyScope,
    /// The OS CSPRNG failed.
    #[error(transparent)]
    Entropy(#[from] EntropyError),
    /// The generated digest or id collided with an enrolled one (astronomically unlikely).
    #[error("a freshly generated token collided with an enrolled one; retry")]
    Collision,
}

/// The enrolment book: every enrolled token's record, indexed by id and by digest.
///
/// Lookup by digest is a hash-map probe whose key comparisons are constant-time
/// ([`TokenDigest`]'s equality), so `resolve` costs the same with 10 or 10,000 records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnrolmentBook {
    records: BTreeMap<TokenId, EnrolmentRecord>,
    by_digest: HashMap<TokenDigest, TokenId>,
}

impl EnrolmentBook {
    /// An empty book: nothing enrolled, every token unknown.
    pub fn new() -> EnrolmentBook {
        EnrolmentBook::default()
    }

    /// Enrol a new token for `client` and return its id and secret. The secret is shown
    /// here once and never stored.
    pub fn issue(
        &mut self,
        client: ClientName,
        scope: Scope,
        ttl: Duration,
        now: UnixSecs,
    ) -> Result<(TokenId, TokenSecret), EnrolmentError> {
        let secret = TokenSecret::generate()?;
        let id = self.issue_with_secret(client, scope, ttl, now, &secret)?;
        Ok((id, secret))
    }

    /// Enrol a secret the caller generated (see `TokenSecret::from_bytes`, feature `test-support`).
    pub fn issue_with_secret(
        &mut self,
        client: ClientName,
        scope: Scope,
        ttl: Duration,
        now: UnixSecs,
        secret: &TokenSecret,
    ) -> Result<TokenId, EnrolmentError> {
        if ttl.as_secs() == 0 {
            return Err(EnrolmentError::ZeroLifetime);
        }
        // issue[16.7]: a bounded lifetime; above it is refused, never clamped silently.
        if ttl > MAX_TOKEN_LIFETIME {
            return Err(EnrolmentError::LifetimeTooLong);
        }
        if scope.is_empty() {
            return Err(EnrolmentError::EmptyScope);
        }
        let record = EnrolmentRecord {
            token_id: TokenId::generate()?,
            client_name: client,
            issued_at: now,
            expires_at: now.saturating_add(ttl),
            scope: Arc::new(scope),
            digest: secret.digest(),
        };
        let id = record.token_id.clone();
        self.insert(record)?;
        Ok(id)
    }

    /// Replace `token_id` with a fresh token for the same client and scope, with the same
    /// lifetime counted from `now`. The new record is inserted before the old one is removed,
    /// inside one `&mut` borrow, so no reader sees neither (spec §7).
    pub fn rotate(
        &mut self,
        token_id: &TokenId,
        now: UnixSecs,
    ) -> Result<(TokenId, TokenSecret), EnrolmentError> {
        let secret = TokenSecret::generate()?;
        let id = self.rotate_with_secret(token_id, now, &secret)?;
        Ok((id, secret))
    }

    /// [`EnrolmentBook::rotate`] to a secret the caller generated.
    pub fn rotate_with_secret(
        &mut self,
        token_id: &TokenId,
        now: UnixSecs,
        secret: &TokenSecret,
    ) -> Result<TokenId, EnrolmentError> {
        let old = self
            .records
            .get(token_id)
            .ok_or_else(|| EnrolmentError::UnknownTokenId(token_id.clone()))?;
        // A record older than the bound keeps at most the bound when rotated.
        let lifetime = old
            .expires_at
            .duration_since(old.issued_at)
            .clamp(Duration::from_secs(1), MAX_TOKEN_LIFETIME);
        let record = EnrolmentRecord {
            token_id: TokenId::generate()?,
            client_name: old.client_name.clone(),
            issued_at: now,
            expires_at: now.saturating_add(lifetime),
            scope: Arc::clone(&old.scope),
            digest: secret.digest(),
        };
        let new_id = record.token_id.clone();
        // spec[S7-ROTATION] §7: issue-new-then-revoke-old.
        self.insert(record)?;
        self.revoke(token_id)?;
        Ok(new_id)
    }

    // spec[S7-REVOCATION] §7: revocation is deleting the record.
    /// Delete the record (spec §7: revocation is deletion).
    pub fn revoke(&mut self, token_id: &TokenId) -> Result<EnrolmentRecord, EnrolmentError> {
        let record = self
            .records
            .remove(token_id)
            .ok_or_else(|| EnrolmentError::UnknownTokenId(token_id.clone()))?;
        self.by_digest.remove(&record.digest);
        Ok(record)
    }

    /// Delete every record expired at `now`; returns how many went.
    pub fn purge_expired(&mut self, now: UnixSecs) -> usize {
        let expired: Vec<TokenId> = self
            .records
            .values()
            .filter(|r| r.is_expired(now))
            .map(|r| r.token_id.clone())
            .collect();
        for id in &expired {
            let _ = self.revoke(id);
        }
        expired.len()
    }

    /// Every record, ordered by id. Records hold no secret.
    pub fn list(&self) -> impl Iterator<Item = &EnrolmentRecord> {
        self.records.values()
    }

    /// The record with this id.
    pub fn get(&self, token_id: &TokenId) -> Option<&EnrolmentRecord> {
        self.records.get(token_id)
    }

    /// How many tokens are enrolled.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether nothing is enrolled.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    // spec[S6-ORDER] §6 steps 2–4: present → well-formed → known → not expired → in scope.
    /// Resolve the token of one request into a [`Grant`] or the finer denial, in the order
    /// of spec §6: present → well-formed → known → not expired → in scope.
    pub fn resolve(
        &self,
        token: &str,
        verb: Verb,
        tool: &str,
        now: UnixSecs,
    ) -> Result<Grant, AuthDenial> {
        if token.is_empty() {
            return Err(AuthDenial::Absent);
        }
        let secret = TokenSecret::parse(token).map_err(|_| AuthDenial::Malformed)?;
        let digest = secret.digest();
        drop(secret);
        // spec[S7-CONSTANT-TIME] §7: a lookup, then a constant-time comparison of fixed-size
        // digests.
        let record = self
            .by_digest
            .get(&digest)
            .and_then(|id| self.records.get(id))
            .filter(|r| r.digest == digest)
            .ok_or(AuthDenial::Unknown)?;
        if record.is_expired(now) {
            return Err(AuthDenial::Expired {
                token_id: record.token_id.clone(),
                client: record.client_name.clone(),
            });
        }
        if !record.scope.covers(verb, tool) {
            return Err(AuthDenial::OutOfScope {
                token_id: record.token_id.clone(),
                client: record.client_name.clone(),
            });
        }
        Ok(Grant::new(record, verb, tool))
    }

    /// The record enrolled for `secret`, if any: the same constant-time digest lookup as
    /// [`EnrolmentBook::resolve`], for the secret's holder to learn which token id, client
    /// and scope it holds (`devint whoami`, a denial that names the token). Never a way in:
    /// it grants nothing.
    pub fn find(&self, secret: &TokenSecret) -> Option<&EnrolmentRecord> {
        let digest = secret.digest();
        self.by_digest
            .get(&digest)
            .and_then(|id| self.records.get(id))
            .filter(|r| r.digest == digest)
    }

    /// Insert a record (used by loading and issuing); refuses a duplicate id or digest.
    pub(crate) fn insert(&mut self, record: EnrolmentRecord) -> Result<(), EnrolmentError> {
        if self.records.contains_key(&record.token_id)
            || self.by_digest.contains_key(&record.digest)
        {
            return Err(EnrolmentError::Collision);
        }
        self.by_digest
            .insert(record.digest, record.token_id.clone());
        self.records.insert(record.token_id.clone(), record);
        Ok(())
    }
}
