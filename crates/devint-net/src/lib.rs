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
#![deny(missing_docs)]
// Every type the public API returns or holds can be named by an embedder.
#![deny(unnameable_types)]

pub mod audit_log;
pub mod book;
pub mod client;
pub mod provenance;
pub mod server;
pub mod token_file;
pub mod transport;

/// The prose documents about this crate, compiled as its doctests (`cargo test --doc`): a
/// Rust block in them that names a moved or renamed item fails the build, not the reader,
/// and each document's last block names the items its prose cites, so those are checked
/// too. Only `rustdoc --test` sees this module.
#[cfg(doctest)]
pub mod docs {
    #[doc = include_str!("../../../docs/client.md")]
    /// ```
    /// use devint::provenance::upgrade_in_progress;
    /// use devint::session::client::ClientError;
    /// use devint::verbs::{ResponseError, ViewError};
    /// use devint_net::client::{AuthorizedClient, ClientIoError, DevIntClient};
    ///
    /// let _ = (upgrade_in_progress, DevIntClient::connect_through_handover);
    /// let _ = (ClientIoError::may_send_again, ClientIoError::exit);
    /// fn cited(e: &ClientIoError, a: Option<AuthorizedClient>) -> bool {
    ///     drop(a);
    ///     matches!(
    ///         e,
    ///         ClientIoError::NotRunning(_)
    ///             | ClientIoError::Timeout(_)
    ///             | ClientIoError::ClosedMidCall
    ///             | ClientIoError::ClosedBeforeSending
    ///             | ClientIoError::Frame(_)
    ///             | ClientIoError::TokenFile(_)
    ///             | ClientIoError::Session(ClientError::UnavailableLocally { .. })
    ///             | ClientIoError::Session(ClientError::Response(ResponseError::View(
    ///                 ViewError::OutsideVocabulary { .. }
    ///             )))
    ///     )
    /// }
    /// ```
    pub struct Client;
    #[doc = include_str!("../../../docs/embedding.md")]
    /// ```
    /// use devint::backend::{Authorization, CallKind, Lifecycle, LifecycleError, ToolAuthorization};
    /// use devint_net::server::{Limits, ServeConfig};
    ///
    /// let _ = (LifecycleError::refused, LifecycleError::UnknownTool, ServeConfig::from_env);
    /// let _ = (CallKind::NonBlocking, CallKind::Brief, Limits::default().request_deadline);
    /// let _ = (<dyn Lifecycle>::call_kind, <dyn Lifecycle>::knows_tool);
    /// fn proofs(_: &Authorization, _: &ToolAuthorization) {}
    /// ```
    pub struct Embedding;
    #[doc = include_str!("../../../docs/protocol.md")]
    /// ```
    /// let _ = devint_net::client::token_file;
    /// ```
    pub struct Protocol;
    #[doc = include_str!("../../../docs/cli.md")]
    /// ```
    /// let _ = devint_net::client::token_file;
    /// ```
    pub struct Cli;
    #[doc = include_str!("../../../docs/service.md")]
    pub struct Service;
}
