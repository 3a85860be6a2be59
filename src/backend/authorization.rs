//! The proofs the backend contract requires: [`Authorization`] and [`ToolAuthorization`].
//!
//! Both are minted only by the session core, from a [`Grant`] the enrolment book resolved
//! for a request that passed every spec §6 check; their constructors are private to this
//! crate, so no backend, shell or other crate can call a backend method on a request that
//! skipped the checks (the rustls `HandshakeSignatureValid` pattern). Neither is `Clone`: one proof serves one call.

use super::cancel::CancelSignal;
use crate::auth::{ClientName, Grant, TokenId};
use crate::time::UnixSecs;
use crate::verbs::{ToolId, Verb};
use crate::version::ApiVersion;

/// Proof that one request was authorised for its verb (the `list_tools` proof).
#[derive(Debug)]
pub struct Authorization {
    grant: Grant,
    request_id: u64,
    version: ApiVersion,
    now: UnixSecs,
    cancel: CancelSignal,
}

/// Proof that one request was authorised for its verb on one known tool.
#[derive(Debug)]
pub struct ToolAuthorization {
    base: Authorization,
    tool: ToolId,
}

static_assertions::assert_not_impl_any!(Authorization: Clone);
static_assertions::assert_not_impl_any!(ToolAuthorization: Clone);
static_assertions::assert_impl_all!(Authorization: Send, Sync);
static_assertions::assert_impl_all!(ToolAuthorization: Send, Sync);

impl Authorization {
    pub(crate) fn new(
        grant: Grant,
        request_id: u64,
        version: ApiVersion,
        now: UnixSecs,
    ) -> Authorization {
        Authorization {
            grant,
            request_id,
            version,
            now,
            cancel: CancelSignal::new(),
        }
    }

    pub(crate) fn for_tool(self, tool: ToolId) -> ToolAuthorization {
        ToolAuthorization { base: self, tool }
    }

    /// The token that authorised the call (for binding plans and for audit).
    pub fn token_id(&self) -> &TokenId {
        self.grant.token_id()
    }

    /// The client the token was issued to.
    pub fn client_name(&self) -> &ClientName {
        self.grant.client_name()
    }

    /// The verb authorised.
    pub fn verb(&self) -> Verb {
        self.grant.verb()
    }

    /// The request's id.
    pub fn request_id(&self) -> u64 {
        self.request_id
    }

    /// The DI-API version negotiated on the connection.
    pub fn version(&self) -> ApiVersion {
        self.version
    }

    /// The time the request was admitted; backends use it instead of a clock read so a call
    /// is judged at one instant.
    pub fn now(&self) -> UnixSecs {
        self.now
    }

    /// The request's cancellation: a mutating call checks it before its point of no return
    /// (see [`CancelSignal`]).
    pub fn cancel_signal(&self) -> &CancelSignal {
        &self.cancel
    }
}

impl ToolAuthorization {
    /// The tool the call is for; an adapter knows it.
    pub fn tool(&self) -> &ToolId {
        &self.tool
    }

    /// The proof back as the request's, with its tool, for a call not made after all.
    pub(crate) fn into_parts(self) -> (Authorization, ToolId) {
        (self.base, self.tool)
    }
}

impl std::ops::Deref for ToolAuthorization {
    type Target = Authorization;
    fn deref(&self) -> &Authorization {
        &self.base
    }
}
