//! The backend contract: the [`Lifecycle`] trait every runtime implements, the errors it may
//! return, the proofs of authorisation its methods take ([`Authorization`],
//! [`ToolAuthorization`]) and the cancellation they carry ([`CancelSignal`]).
//!
//! This module sits below [`crate::session`]: the session core mints the proofs (their
//! constructors are `pub(crate)`, so no other crate can) and calls the backend; a backend
//! (the reference runtime in `devint-runtime`, or a runtime author's own) implements the
//! trait and reads the proofs. It must never grow a method that decides policy (ADR 0030
//! forbidden design 6), never return a type able to carry a value, a policy document or a
//! credential, and never be reachable without a proof minted by the session.

mod authorization;
mod cancel;
mod contract;

pub use authorization::{Authorization, ToolAuthorization};
pub use cancel::CancelSignal;
pub use contract::{CallKind, Lifecycle, LifecycleError};
