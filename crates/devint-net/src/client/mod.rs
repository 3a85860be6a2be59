//! The tokio client shell: what a client author calls.
//!
//! `DevIntClient::connect` → [`NegotiatedClient`] (versions, degradation, provenance; no
//! verbs) → `authorize(token)` → [`AuthorizedClient`] (one async method per verb). Every
//! decision is the sans-IO [`devint::session::client::Client`]'s; this module owns the socket, the
//! timeouts (connect, handshake, each call), which token file a client reads and loading it
//! (`token_rule`: the one rule of spec §7 every client we ship applies), the provenance
//! standing check every client runs before a verb (`standing`), meeting a runtime that
//! hands its socket over (`handover`: connect again, wait out an upgrade to this binary),
//! and what a failure means in spec §9's exit codes and whether a call may be sent again
//! (`ClientIoError::exit`, `ClientIoError::may_send_again`).

// Under `--cfg loom` tokio has no `net`, so the socket client is left out.
#[cfg(not(loom))]
mod connection;
mod error;
mod exit;
#[cfg(not(loom))]
mod handover;
mod standing;
mod token_rule;

#[cfg(not(loom))]
pub use connection::{AuthorizedClient, ClientOptions, DevIntClient, NegotiatedClient, VerbAnswer};
pub use error::{ClientIoError, Stage};
#[cfg(not(loom))]
pub use handover::sight_executable;
pub use standing::{
    assess_standing, decide, decide_for_verb, standing_reason, Decision, ProvenanceReport,
    RuntimeReport, SCAN_TIMEOUT,
};
pub use token_rule::{load_token, own_token_file, token_file, TokenFileChoice};
