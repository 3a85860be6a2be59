//! # devint-net — the OS and tokio layer of devint
//!
//! The socket side of the DI-API (`assembly.devint.v1`) around the sans-IO core of the
//! `devint` crate: where the socket lives and how it is bound so that only our uid can reach
//! it, the tokio server runtime authors embed in front of their own
//! [`Lifecycle`](devint::backend::Lifecycle) backend, the tokio client, and the files of
//! that layer (the enrolment book file, the client's token file, the hash-chained audit log).
//!
//! | module | owns |
//! |---|---|
//! | [`transport`] | socket path discovery, the secure bind and stale probe (the peer check is the core's `devint::peer`) |
//! | [`server`] | the accept loop, limits, timeouts, pipelining with in-order answers, dispatch to the backend |
//! | [`client`] | `DevIntClient`: discover → connect → negotiate → authorise → verbs |
//! | [`book`] | the enrolment book file and the server's reloading copy |
//! | [`token_file`] | the client's `0600` token file |
//! | [`audit_log`] | the durable, hash-chained JSON-lines audit log |
//! | [`provenance`] | the runtime's self-description and the multiplicity scan |
//!
//! It makes no protocol decision: every frame goes through the core's session.
//!
//! ## Quick start: embed a server (runtime authors)
//!
//! Implement [`devint::backend::Lifecycle`] (or use the reference runtime of
//! `devint-runtime`), then bind securely and serve. `crates/devint-net/examples/embed_server.rs` is a
//! complete program.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # async fn run(backend: Arc<dyn devint::backend::Lifecycle>) -> Result<(), Box<dyn std::error::Error>> {
//! use devint_net::{audit_log::JsonLinesAuditLog, book, server::Server, transport};
//!
//! let state = std::path::Path::new("/home/me/.aa/devint");
//! let book = Arc::new(book::SharedBook::open(book::BookFile::new(state.join("enrolment.json")))?);
//! let audit = Arc::new(JsonLinesAuditLog::open(state.join("audit.jsonl"))?);
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
//! use devint::verbs::ToolId;
//! use devint::auth::ClientName;
//! use devint_net::client::{load_token, DevIntClient};
//! use devint_net::transport::SocketDiscovery;
//!
//! let SocketDiscovery::Present(path) = DevIntClient::discover()? else {
//!     return Err("the runtime is not running: start it with `devint serve`".into());
//! };
//! let negotiated = DevIntClient::connect(&path, "my-extension", "1.0.0").await?;
//! if negotiated.is_degraded() {
//!     eprintln!("{}", negotiated.ack().degraded_reason);
//! }
//! // The token file of the client enrolled as `my-extension` (`devint enrol --client
//! // my-extension …`): my-extension.token beside the socket, or AA_DEVINT_TOKEN_FILE.
//! let mut client = negotiated.authorize(load_token(&path, &ClientName::parse("my-extension")?)?);
//! let status = client.status(ToolId::parse("claude-code")?).await?;
//! println!("{} (verified at {})", status.achieved_level, status.observed_at_unix_secs);
//! # Ok(()) }
//! ```
//!
//! See `docs/client.md` for the five duties of a correct client.
// `deny`, not `forbid`: one item, the adoption of a socket passed by the service manager
// (`transport::activation`), takes ownership of an inherited descriptor, with its SAFETY note.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod audit_log;
pub mod book;
pub mod client;
pub mod provenance;
pub mod server;
pub mod token_file;
pub mod transport;
