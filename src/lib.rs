//! # devint — the Developer Integration API (DI-API, `assembly.devint.v1`)
//!
//! One local channel through which untrusted clients (an IDE extension, an installer, a
//! CLI) ask a trusted runtime to install, inspect, verify, repair or remove the governance
//! integration of an AI coding tool. This crate is a sans-IO, typestate-checked protocol
//! core, a tokio server and client over a secured Unix socket, a reference lifecycle
//! runtime with adapters for real tools, and the `devint` command.
//!
//! Layers, bottom up (see `docs/architecture.md`):
//!
//! | module | owns |
//! |---|---|
//! | [`wire`] | the generated `assembly.devint.v1` types and sans-IO framing |
//! | [`negotiate`] | pure version negotiation (spec §5) |
//! | [`verbs`] | the closed verb set, typed calls, views, `Sentence` |
//! | [`auth`] | capability tokens, scope, the enrolment book, resolution |
//! | [`audit`] | the typed audit event and its sinks |
//! | [`session`] | the typestate connection, server and client sides (sans-IO) |
//! | [`provenance`] | build identity, runtime provenance, standing |
//! | [`transport`] | socket discovery, secure bind, peer credentials |
//! | [`server`] / [`client`] | the tokio shells |
//! | [`lifecycle`] | the backend contract and the reference backend |
//! | [`adapters`] | one descriptor per tool and the shared engine |
//!
//! ## Quick start: embed a server (runtime authors)
//!
//! Implement [`lifecycle::Lifecycle`] (or use [`lifecycle::reference::ReferenceRuntime`]),
//! then bind securely and serve. `examples/embed_server.rs` is a complete program.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # async fn run(backend: Arc<dyn devint::lifecycle::Lifecycle>) -> Result<(), Box<dyn std::error::Error>> {
//! use devint::{audit, auth, server::Server, transport};
//!
//! let state = std::path::Path::new("/home/me/.aa/devint");
//! let book = Arc::new(auth::SharedBook::open(auth::BookFile::new(state.join("enrolment.json")))?);
//! let audit = Arc::new(audit::JsonLinesAuditLog::open(state.join("audit.jsonl"))?);
//! let socket = transport::bind_secure(&transport::socket_path_from_env()?)?;
//! Server::builder(book, backend, audit)
//!     .build()
//!     .serve(socket, async { tokio::signal::ctrl_c().await.ok(); })
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! ## Quick start: write a client (client authors)
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use devint::client::{load_token, DevIntClient};
//! use devint::transport::SocketDiscovery;
//! use devint::verbs::ToolId;
//!
//! let SocketDiscovery::Present(path) = DevIntClient::discover()? else {
//!     return Err("the runtime is not running: start it with `devint serve`".into());
//! };
//! let negotiated = DevIntClient::connect(&path, "my-extension", "1.0.0").await?;
//! if negotiated.is_degraded() {
//!     eprintln!("{}", negotiated.ack().degraded_reason);
//! }
//! let mut client = negotiated.authorize(load_token(&path)?);
//! let status = client.status(ToolId::parse("claude-code")?).await?;
//! println!("{} (verified at {})", status.achieved_level, status.observed_at_unix_secs);
//! # Ok(()) }
//! ```
//!
//! See `docs/client.md` for the five duties of a correct client.
//!
//! ## Quick start: drive the core without a socket (fuzzers, property tests)
//!
//! Negotiation is a pure function:
//!
//! ```
//! use devint::negotiate::{negotiate, IncompatibleReason, Outcome};
//!
//! let agreement = negotiate(&[3, 1, 5, 5], &[1]).unwrap();
//! assert_eq!((agreement.version(), agreement.outcome()), (5, Outcome::Supported));
//! assert_eq!(negotiate(&[], &[1]), Err(IncompatibleReason::NoVersionOffered));
//! ```
//!
//! With the `test-support` feature, a whole server connection runs in memory: frames and
//! `now` in, frames and audit events out (`tests/session_pair.rs` wires a client core to it).
//!
//! ```
//! # #[cfg(feature = "test-support")] {
//! use devint::session::{Connection, Handshake};
//! use devint::transport::PeerVerified;
//! use devint::wire::pb;
//!
//! let conn = Connection::new(PeerVerified::for_tests(1000), 1);
//! let hello = pb::Hello { di_api_versions: vec![1], lifecycle_schema_versions: vec![1], ..Default::default() };
//! let Handshake::Negotiated { ack, .. } = conn.handle_hello(&hello, "0.1.0", || unreachable!("no provenance at v1"), 0) else {
//!     panic!("v1 is in the window");
//! };
//! assert_eq!(ack.unavailable_verbs, ["scoped_events", "approval_relay"]);
//! assert!(ack.provenance.is_none());
//! # }
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adapters;
pub mod audit;
pub mod auth;
pub mod client;
pub mod lifecycle;
pub mod negotiate;
pub mod provenance;
mod scratch;
pub mod server;
pub mod session;
#[cfg(any(test, feature = "test-support"))]
pub mod testing;
pub mod transport;
pub mod verbs;
pub mod wire;
