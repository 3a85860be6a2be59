//! The [`Lifecycle`] trait every runtime implements (its error, [`LifecycleError`], lives
//! in `error.rs`).
//!
//! Every method takes a proof minted by the session core after the spec §6 checks passed
//! ([`Authorization`] for `list_tools`, [`ToolAuthorization`] for the tool-scoped verbs), so
//! the backend cannot be reached unauthorised; and every method returns the crate's own
//! view types, which have no field able to carry a value, a policy document or a
//! credential. This module must never grow a method that decides policy (ADR 0030
//! forbidden design 6).

use super::authorization::{Authorization, ToolAuthorization};
use super::error::LifecycleError;
use crate::time::UnixSecs;
use crate::verbs::{
    ApplyView, ApprovalId, ApprovalRelayAck, PlanArgs, PlanId, PlanView, RemovalView, RepairView,
    ScopedEventList, StatusView, ToolId, ToolList, UserInput, Verb, VerificationView,
};

/// Whether a backend's calls of one verb may block the thread they run on, as the backend
/// declares it ([`Lifecycle::call_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// The call may block (file IO, locks held across IO, child processes, sleeps): a server
    /// shell runs it off its async worker threads. The default, and the only safe answer
    /// for anything that touches the file system.
    Blocking,
    /// The call never blocks and returns in microseconds (in-memory work only): a server
    /// shell may run it on the connection's own task, saving two thread hand-offs. A wrong
    /// declaration stalls every connection that shares the worker thread.
    NonBlocking,
    /// The call blocks briefly: it reads a few small local files, and rarely (a cache
    /// refreshed) waits on something with its own short timeout; it never waits on a lock
    /// held across IO or on a client. A multi-threaded shell may run it on the connection's
    /// own task inside `tokio::task::block_in_place` — the worker's other tasks move to
    /// another thread first, so no other connection waits — saving the two thread hand-offs
    /// of the blocking pool; that call is not cancelled when its client goes away, and the
    /// shell's request deadline is not enforced on it (a stuck file system holds only that
    /// connection). Elsewhere it runs as [`CallKind::Blocking`].
    Brief,
}

/// A lifecycle backend: what a runtime author implements to serve the DI-API.
///
/// Methods may block (file IO, probes): the server shell calls them off its async worker
/// threads, unless [`Lifecycle::call_kind`] declares a verb's calls non-blocking.
/// Implementations must be `Send + Sync`; they are shared by every connection.
pub trait Lifecycle: Send + Sync {
    /// Whether calls of `verb` may block ([`CallKind::Blocking`], the default) or never
    /// block ([`CallKind::NonBlocking`]). A shell still runs a mutating verb's calls off its
    /// async threads whatever is declared: their audit record is made durable before the
    /// answer.
    fn call_kind(&self, verb: Verb) -> CallKind {
        let _ = verb;
        CallKind::Blocking
    }
    /// `status` answered at once, when the backend can prove without blocking that an
    /// answer it keeps is current: no file read, no child process, no lock held across IO,
    /// no wait (a kept answer checked against an `inotify` watch is the intended use).
    /// `None` when it cannot; the shell then runs [`Lifecycle::status`] as
    /// [`Lifecycle::call_kind`] says. A shell calls this on its async worker, before handing
    /// a `status` to a thread that may block, so a wrong implementation stalls every
    /// connection that shares the worker. The default is `None`.
    fn status_at_once(
        &self,
        auth: &ToolAuthorization,
    ) -> Option<Result<StatusView, LifecycleError>> {
        let _ = auth;
        None
    }
    /// Whether an adapter knows `tool` (spec §6 step 6; `UNKNOWN_TOOL` otherwise).
    fn knows_tool(&self, tool: &ToolId) -> bool;
    /// `list_tools`: every tool this runtime has an adapter for.
    fn list_tools(&self, auth: &Authorization) -> Result<ToolList, LifecycleError>;
    /// `plan`: a dry run that mutates nothing.
    fn plan(&self, auth: &ToolAuthorization, args: &PlanArgs) -> Result<PlanView, LifecycleError>;
    /// `apply`: execute a plan this token authored.
    fn apply(&self, auth: &ToolAuthorization, plan: &PlanId) -> Result<ApplyView, LifecycleError>;
    /// `status`: the protection state, derived from evidence now.
    fn status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError>;
    /// `verify`: gather fresh evidence.
    fn verify(&self, auth: &ToolAuthorization) -> Result<VerificationView, LifecycleError>;
    /// `repair`: restore drifted keys we own.
    fn repair(&self, auth: &ToolAuthorization) -> Result<RepairView, LifecycleError>;
    /// `remove`: preview a removal plan (`None`) or execute one.
    fn remove(
        &self,
        auth: &ToolAuthorization,
        plan: Option<&PlanId>,
    ) -> Result<RemovalView, LifecycleError>;
    /// `scoped_events` (v2+): already-redacted verdict records.
    fn scoped_events(
        &self,
        auth: &ToolAuthorization,
        limit: u32,
        since: UnixSecs,
    ) -> Result<ScopedEventList, LifecycleError>;
    /// `approval_relay` (v2+): relay the user's input for adjudication; never a decision.
    fn approval_relay(
        &self,
        auth: &ToolAuthorization,
        approval: &ApprovalId,
        input: UserInput,
    ) -> Result<ApprovalRelayAck, LifecycleError>;
}
