//! The one function from a session, auth, call or lifecycle failure to what goes on the
//! wire: a `Denied` with its code, a short coarse sentence and a non-empty remediation
//! (spec §6). Nothing else in the crate builds a `Denied`.
//!
//! Messages never echo the presented token, never say how close it came to matching, and
//! never copy client-supplied text.

// spec[S6-NO-TOKEN-ECHO] §6: `Denied.message` never echoes the token and never says how close
// it came to matching; the sentences below are fixed text.
use crate::auth::{AuthDenial, ResolveError};
use crate::backend::LifecycleError;
use crate::verbs::{CallError, Verb};
use crate::version::ApiVersion;
use crate::wire::pb::{self, DenyCode};

/// Why a frame was answered with `Denied`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum DenialCause {
    // spec[S5-R1-HELLO-FIRST] §5 rule 1: "the first frame must be Hello", request_id 0.
    /// spec §5 rule 1: the first frame was not `Hello`.
    HelloExpected,
    // spec[S5-R7-NO-RENEGOTIATION] §5 rule 7: PROTOCOL_VIOLATION, request_id 0.
    /// spec §5 rule 7: a second `Hello` on a negotiated connection.
    Renegotiation,
    /// A frame that could not be read (spec §2); the connection closes.
    UnreadableFrame,
    /// spec §6 step 1: verb 0 or outside the enum.
    UnknownVerb,
    /// spec §6 steps 2–4: the token did not resolve, expired, or is out of scope.
    Auth(ResolveError),
    /// spec §6 step 5: the verb does not exist at the negotiated version.
    UnavailableAtVersion {
        /// The verb.
        verb: Verb,
        /// The negotiated version.
        version: ApiVersion,
        /// The first version with the verb.
        first: ApiVersion,
    },
    /// spec §6 step 6: no adapter knows the tool.
    UnknownTool,
    /// The request's arguments do not fit its verb (`LIFECYCLE_ERROR`, or `UNKNOWN_TOOL`
    /// for a malformed tool id).
    Call(CallError),
    /// The backend refused or failed.
    Lifecycle(LifecycleError),
    /// The backend call did not finish within the server's per-request deadline.
    Deadline,
    /// The backend call panicked or was cancelled.
    Internal,
}

impl From<AuthDenial> for DenialCause {
    fn from(d: AuthDenial) -> Self {
        DenialCause::Auth(ResolveError::Denied(d))
    }
}

const VERB_LIST: &str = "list_tools, plan, apply, status, verify, repair, remove, \
                         scoped_events, approval_relay";

// spec[S6-ECHO] §6: `Denied.request_id` echoes the request's id (0 for protocol violations).
/// Build the `Denied` for `cause`, echoing `request_id` (0 for protocol violations).
pub fn denied(request_id: u64, cause: &DenialCause) -> pb::Denied {
    let (code, message, remediation): (DenyCode, String, String) = match cause {
        DenialCause::HelloExpected => (
            DenyCode::ProtocolViolation,
            "the first frame must be Hello".into(),
            "open a new connection and send Hello before any Request".into(),
        ),
        DenialCause::Renegotiation => (
            DenyCode::ProtocolViolation,
            "the DI-API version is fixed for the connection; a second Hello is not allowed".into(),
            "open a new connection to negotiate again".into(),
        ),
        DenialCause::UnreadableFrame => (
            DenyCode::ProtocolViolation,
            "the frame could not be read".into(),
            "send frames as [tag][LEB128 length][protobuf payload] with a known tag and at \
             most 1 MiB of payload, on a new connection"
                .into(),
        ),
        DenialCause::UnknownVerb => (
            DenyCode::UnknownVerb,
            "the verb is not one of the DI-API verbs".into(),
            format!("use one of: {VERB_LIST}"),
        ),
        DenialCause::Auth(error) => auth_denial(error),
        DenialCause::UnavailableAtVersion {
            verb,
            version,
            first,
        } => (
            DenyCode::UnavailableAtVersion,
            format!("{verb} is not available at DI-API version {version}"),
            format!("reconnect offering DI-API version {first} or later"),
        ),
        DenialCause::UnknownTool => (
            DenyCode::UnknownTool,
            "no adapter of this runtime knows the tool".into(),
            "call list_tools for the tool ids this runtime knows".into(),
        ),
        DenialCause::Call(error) => (error.deny_code(), error.to_string(), error.remediation()),
        DenialCause::Lifecycle(LifecycleError::UnknownTool) => (
            DenyCode::UnknownTool,
            "no adapter of this runtime knows the tool".into(),
            "call list_tools for the tool ids this runtime knows".into(),
        ),
        DenialCause::Lifecycle(LifecycleError::Lifecycle {
            message,
            remediation,
        }) => (
            DenyCode::LifecycleError,
            message.as_str().to_owned(),
            remediation.as_str().to_owned(),
        ),
        DenialCause::Deadline => (
            DenyCode::LifecycleError,
            "the call did not finish within the runtime's deadline".into(),
            "retry later; if it persists, check the runtime's log".into(),
        ),
        DenialCause::Internal => (
            DenyCode::LifecycleError,
            "the runtime failed while answering".into(),
            "check the runtime's log, then retry".into(),
        ),
    };
    // spec[S6-REMEDIATION] §6: the remediation says what to do and is never empty.
    debug_assert!(
        !remediation.is_empty(),
        "spec §6: remediation is never empty"
    );
    pb::Denied {
        request_id,
        code: code as i32,
        message,
        remediation,
    }
}

fn auth_denial(error: &ResolveError) -> (DenyCode, String, String) {
    match error {
        // spec[S6-ONE-UNAUTH-CODE] §6: absent, malformed and unknown are one code and one
        // sentence on purpose; only the audit record says which.
        ResolveError::Denied(AuthDenial::Absent | AuthDenial::Malformed | AuthDenial::Unknown) => (
            DenyCode::Unauthenticated,
            "the request is not authenticated".into(),
            "present an enrolled capability token: run `devint enrol` and point \
             AA_DEVINT_TOKEN_FILE at its token file"
                .into(),
        ),
        ResolveError::Denied(AuthDenial::Expired { .. }) => (
            DenyCode::TokenExpired,
            "the capability token has expired".into(),
            "rotate it with `devint tokens rotate TOKEN_ID` or enrol again".into(),
        ),
        ResolveError::Denied(AuthDenial::OutOfScope { .. }) => (
            DenyCode::OutOfScope,
            "the capability token does not cover this verb on this tool".into(),
            "enrol a token whose scope covers it (`devint enrol --tool ID --verbs ...`)".into(),
        ),
        ResolveError::BookUnavailable(_) => (
            error.wire_code(),
            "the request is not authenticated".into(),
            "the runtime cannot read its enrolment book; its operator must fix it (see the \
             runtime's log)"
                .into(),
        ),
    }
}
