//! The tokio server shell: what a runtime author embeds.
//!
//! This module owns sockets, timers, tasks and limits, and nothing else: it makes no
//! protocol decision (every decision is [`devint::session`]'s). It accepts on a socket bound
//! by [`crate::transport::bind_secure`], checks the peer's uid before reading a byte,
//! enforces connection limits (total and per uid; at a limit the longest-idle connection
//! is evicted to make room, so a flood cannot lock the user out), the handshake, idle, per-request and
//! write timeouts, runs authorised calls off the async worker threads with answers in
//! request order, and shuts down gracefully.
//!
//! ## Driver contract
//!
//! 1. Bind: `let socket = transport::bind_secure(&path)?;`
//! 2. Build: `let server = Server::builder(book, backend, audit).limits(..).build();`
//! 3. Serve: `server.serve(socket, shutdown_future).await?;` — returns after shutdown, the
//!    grace period, and removal of the socket (only if its inode is still ours).

// Under `--cfg loom` tokio has no `net`: only the socket-free parts (slots, limits) build,
// which is all the loom model of `ConnectionSlots` needs.
#[cfg(not(loom))]
mod accept;
#[cfg(not(loom))]
mod clock;
mod config;
#[cfg(not(loom))]
mod connection;
#[cfg(not(loom))]
mod intake;
#[cfg(not(loom))]
mod refusals;
mod runtime;
mod slots;

#[cfg(not(loom))]
pub use accept::{Ending, ServeError};
pub use config::{Limits, ServeConfig, ENABLE_ENV};
pub use runtime::{ProvenanceFn, Server, ServerBuilder};
// The loom model (`tests/loom_slots.rs`) drives the slot table from outside the crate; only a
// `--cfg loom` build names it there, never an embedder's.
#[cfg(loom)]
#[doc(hidden)]
pub use slots::{Admission, ConnectionSlots, Evicted, Slot, SlotRefusal, Stage};
