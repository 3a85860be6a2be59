//! # devint-sidecar — the DI-API client for hosts in any language
//!
//! `devint sidecar` speaks `devint.sidecar.v1`: NDJSON JSON-RPC 2.0 on its own stdin and
//! stdout (one JSON value per line, at most 1 MiB per line, logs only on stderr). A host in
//! any language — an IDE extension in TypeScript, an installer in Go, an admin tool in
//! Python — spawns it and gets exactly the behaviour of devint's Rust client: discovery,
//! negotiation (degradation reported), the provenance standing check of spec §8 decided as
//! the `devint` command decides it, the token loaded from a `0600` file by path or client
//! name (the secret never crosses stdio, in either direction), every verb, and the same
//! typed results as the Rust views, rendered as the command's `--output json` renders them.
//! `docs/sidecar-protocol.md` is the protocol; `devint sidecar --schema` prints its JSON
//! Schema.
//!
//! Everything an embedder names is at the crate root; the modules are private. What each
//! one owns:
//!
//! | module | owns |
//! |---|---|
//! | `framing` | bounded NDJSON lines: a line over the cap ([`MAX_LINE_BYTES`]) is skipped, never buffered whole |
//! | `credential` | what counts as token-shaped in a host's message |
//! | `follow` | the cursor that turns polls of `scoped_events` into ordered, once-only events |
//! | `config` | the environment, the bounds, the client timeouts: [`Options`], [`Environment`] |
//! | `method` | the method table and the protocol name: [`Method`], [`PROTOCOL`], [`EVENTS_EVENT`] |
//! | `rpc` | JSON-RPC 2.0 messages as lines, in and out |
//! | `error` | the one error type and the table of codes, exit codes and deny codes: [`SidecarError`], [`ErrorKind`] |
//! | `outbox` | the single writer of stdout, bounded |
//! | `params` | every method's params, typed through the core's parsers |
//! | `session` | opening a session (connect → negotiate → standing → token) and its task |
//! | `dispatch` | the main loop: initialize, the session registry, the end of input: [`serve`], [`serve_stdio`] |
//! | `schema` | the JSON Schema printed by `devint sidecar --schema`: [`SCHEMA`] |
//!
//! It depends on the core (`devint`) and the client (`devint-net`) only: never on the
//! reference runtime, never on a command-line parser (`.ci/run` checks with `cargo tree`).
//!
//! ```no_run
//! # async fn run() -> Result<(), devint_sidecar::ServeError> {
//! use devint_sidecar::{serve_stdio, Environment, Options};
//! let options = Options { environment: Environment::from_process(), ..Options::default() };
//! serve_stdio(options).await
//! # }
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Every type the public API returns or holds can be named by an embedder.
#![deny(unnameable_types)]

mod config;
mod credential;
mod dispatch;
mod error;
mod follow;
mod framing;
#[cfg(feature = "fuzzing")]
pub mod fuzz_harness;
mod method;
mod outbox;
mod params;
mod rpc;
mod schema;
mod session;

/// `docs/sidecar-protocol.md`, compiled as this crate's doctests (`cargo test --doc`): a
/// Rust block in it that names a moved or renamed item fails the build, not the reader, and
/// the last block names the items its prose cites. Only `rustdoc --test` sees this module.
#[cfg(doctest)]
pub mod docs {
    #[doc = include_str!("../../../docs/sidecar-protocol.md")]
    /// ```
    /// use devint_net::client::{decide, token_file, ClientIoError, RuntimeReport};
    ///
    /// let _ = (decide, token_file, ClientIoError::exit, devint::exit::Exit::Ok);
    /// fn report(_: RuntimeReport) {}
    /// ```
    pub struct SidecarProtocol;
}

// The entry points and the types a host-facing embedder names have one path each: the crate
// root; the modules that define them are private.
pub use config::{Environment, Options};
pub use dispatch::{serve, serve_stdio, ServeError};
pub use error::{ErrorKind, SidecarError};
pub use framing::MAX_LINE_BYTES;
pub use method::{Method, EVENTS_EVENT, PROTOCOL};
pub use schema::SCHEMA;
