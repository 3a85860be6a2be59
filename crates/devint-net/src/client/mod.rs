//! The tokio client shell: what a client author calls.
//!
//! `DevIntClient::connect` → [`NegotiatedClient`] (versions, degradation, provenance; no
//! verbs) → `authorize(token)` → [`AuthorizedClient`] (one async method per verb). Every
//! decision is the sans-IO [`devint::session::Client`]'s; this module owns the socket, the
//! timeouts (connect, handshake, each call) and the token file loading.

// Under `--cfg loom` tokio has no `net`, so the socket client is left out.
#[cfg(not(loom))]
mod connection;
mod error;

#[cfg(not(loom))]
pub use connection::{load_token, AuthorizedClient, ClientOptions, DevIntClient, NegotiatedClient};
pub use error::{ClientIoError, Stage};
