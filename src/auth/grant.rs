//! [`Grant`] (a resolved, in-scope token) and [`AuthDenial`] (why not), plus the one
//! mapping from a denial to its wire code.

use std::sync::Arc;

use super::book::EnrolmentRecord;
use super::ids::{ClientName, TokenId};
use super::scope::Scope;
use crate::verbs::Verb;
use crate::wire::pb::DenyCode;

/// Proof that one request's token resolved, was not expired and covers its verb and tool.
///
/// Only [`super::EnrolmentBook::resolve`] constructs one; the session layer turns it into
/// the authorization its `Connection<Authorized>` state requires.
pub struct Grant {
    token_id: TokenId,
    client_name: ClientName,
    scope: Arc<Scope>,
    verb: Verb,
    tool: String,
}

static_assertions::assert_not_impl_any!(Grant: Clone, serde::Serialize);

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The tool id is client-supplied: shown only through the audit's bounded form.
        f.debug_struct("Grant")
            .field("token_id", &self.token_id)
            .field("client_name", &self.client_name)
            .field("scope", &self.scope)
            .field("verb", &self.verb)
            .field("tool", &crate::verbs::ToolRef::from_request(&self.tool))
            .finish()
    }
}

impl Grant {
    pub(crate) fn new(record: &EnrolmentRecord, verb: Verb, tool: &str) -> Grant {
        Grant {
            token_id: record.token_id.clone(),
            client_name: record.client_name.clone(),
            scope: Arc::clone(&record.scope),
            verb,
            tool: tool.to_owned(),
        }
    }
    /// The token that authorised the request.
    pub fn token_id(&self) -> &TokenId {
        &self.token_id
    }
    /// Who the token was issued to.
    pub fn client_name(&self) -> &ClientName {
        &self.client_name
    }
    /// The token's whole scope.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }
    /// The verb granted.
    pub fn verb(&self) -> Verb {
        self.verb
    }
    /// The tool granted (as the request named it; empty for `list_tools` without a tool).
    pub fn tool(&self) -> &str {
        &self.tool
    }
}

// spec[S10-EVENT-FIELDS] §10: a denial that reached no record carries no token id.
/// Why a token did not authorise a request, with the finer outcome the audit records.
/// Carries a token id only when one resolved (spec §10).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthDenial {
    /// The request carried no token.
    #[error("the request carried no capability token; enrol with `devint enrol` and set AA_DEVINT_TOKEN_FILE")]
    Absent,
    /// The token was not 64 lowercase hex characters.
    #[error("the capability token is malformed; it must be 64 lowercase hex characters")]
    Malformed,
    /// No enrolled record matches (never issued, or revoked).
    #[error("the capability token is not enrolled (unknown or revoked); enrol again with `devint enrol`")]
    Unknown,
    /// The token is past its absolute expiry.
    #[error("token {token_id} of {client} has expired; rotate it with `devint tokens rotate`")]
    Expired {
        /// The token that resolved.
        token_id: TokenId,
        /// Who it belongs to.
        client: ClientName,
    },
    /// The token does not cover the verb or the tool.
    #[error("token {token_id} of {client} does not cover this verb on this tool; enrol a token with a wider scope")]
    OutOfScope {
        /// The token that resolved.
        token_id: TokenId,
        /// Who it belongs to.
        client: ClientName,
    },
}

impl AuthDenial {
    /// The one mapping from a denial to `Denied.code` (spec §6): absent, malformed and
    /// unknown are one code on purpose; the audit records which.
    pub fn wire_code(&self) -> DenyCode {
        match self {
            // spec[S6-ONE-UNAUTH-CODE] §6: absent, malformed and unknown (incl. revoked) MUST
            // be one code.
            AuthDenial::Absent | AuthDenial::Malformed | AuthDenial::Unknown => {
                DenyCode::Unauthenticated
            }
            AuthDenial::Expired { .. } => DenyCode::TokenExpired,
            AuthDenial::OutOfScope { .. } => DenyCode::OutOfScope,
        }
    }

    /// The token id, when the token resolved to a record.
    pub fn token_id(&self) -> Option<&TokenId> {
        match self {
            AuthDenial::Absent | AuthDenial::Malformed | AuthDenial::Unknown => None,
            AuthDenial::Expired { token_id, .. } | AuthDenial::OutOfScope { token_id, .. } => {
                Some(token_id)
            }
        }
    }

    /// The client name, when the token resolved to a record.
    pub fn client_name(&self) -> Option<&ClientName> {
        match self {
            AuthDenial::Absent | AuthDenial::Malformed | AuthDenial::Unknown => None,
            AuthDenial::Expired { client, .. } | AuthDenial::OutOfScope { client, .. } => {
                Some(client)
            }
        }
    }
}
