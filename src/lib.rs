//! # devint — the Developer Integration API (DI-API, `assembly.devint.v1`): the core
//!
//! One local channel through which untrusted clients (an IDE extension, an installer, a
//! CLI) ask a trusted runtime to install, inspect, verify, repair or remove the governance
//! integration of an AI coding tool. This crate is the protocol's **sans-IO,
//! typestate-checked core**: it does no socket IO, reads no clock and spawns nothing;
//! frames and `now` come in as arguments. It has no tokio, no command-line parser and no
//! settings-file editors; the layers that do live beside it in the workspace:
//!
//! | crate | owns |
//! |---|---|
//! | `devint` (this one) | framing, negotiation, verbs and views, tokens and the enrolment book's logic, audit events, the backend contract and its proofs, the session typestates, provenance comparison |
//! | `devint-fs` | owner-only files, durable atomic writes, the cross-process target lock |
//! | `devint-net` | socket discovery and the secure bind, the tokio server and client, the book file, the token file, the audit log, runtime provenance |
//! | `devint-runtime` | the reference lifecycle backend, the settings editors, one adapter per tool |
//! | `devint-cli` | the `devint` command |
//!
//! Modules, bottom up (see `docs/architecture.md`):
//!
//! | module | owns |
//! |---|---|
//! | [`time`] | [`time::UnixSecs`], a point in time (every `*_unix_secs`, token expiry, audit time) |
//! | [`version`] | [`version::ApiVersion`], the window, the schema version and every version gate (spec §5) |
//! | [`wire`] | the generated `assembly.devint.v1` types and sans-IO framing |
//! | [`verbs`] | the closed verb set and its one table, typed calls, views, `Sentence` |
//! | [`negotiate`] | pure version negotiation (spec §5) |
//! | [`auth`] | capability tokens, scope, the enrolment book's logic and format, resolution |
//! | [`audit`] | the typed audit event and the sink trait |
//! | [`backend`] | the `Lifecycle` contract and the proofs its methods take |
//! | [`peer`] | the peer-credential check and the `PeerVerified` proof |
//! | [`session`] | the typestate connection, server and client sides (sans-IO) |
//! | [`provenance`] | build identity, the three-state comparison, standing |
//! | [`exit`] | the exit codes of spec §9 and the deny-code mapping every surface reports |
//!
//! ## Quick start: drive the core without a socket (fuzzers, property tests)
//!
//! Negotiation is a pure function:
//!
//! ```
//! use devint::negotiate::{negotiate, IncompatibleReason, Outcome};
//!
//! let agreement = negotiate(&[3, 1, 5, 5], &[1]).unwrap();
//! assert_eq!((agreement.version().get(), agreement.outcome()), (5, Outcome::Supported));
//! assert_eq!(negotiate(&[], &[1]), Err(IncompatibleReason::NoVersionOffered));
//! ```
//!
//! With the `test-support` feature, a whole server connection runs in memory: frames and
//! `now` in, frames and audit events out (`tests/session_pair.rs` wires a client core to it).
//!
//! ```
//! # #[cfg(feature = "test-support")] {
//! use devint::peer::PeerVerified;
//! use devint::session::{Connection, Handshake};
//! use devint::time::UnixSecs;
//! use devint::wire::pb;
//!
//! let conn = Connection::new(PeerVerified::for_tests(1000), 1);
//! let hello = pb::Hello { di_api_versions: vec![1], lifecycle_schema_versions: vec![1], ..Default::default() };
//! let Handshake::Negotiated { ack, .. } = conn.handle_hello(&hello, "0.1.0", || unreachable!("no provenance at v1"), UnixSecs::EPOCH) else {
//!     panic!("v1 is in the window");
//! };
//! assert_eq!(ack.unavailable_verbs, ["scoped_events", "approval_relay"]);
//! assert!(ack.provenance.is_none());
//! # }
//! ```
//!
//! Runtime authors embed the server of `devint-net` in front of their own [`backend::Lifecycle`];
//! client authors use its `DevIntClient` (or `devint sidecar` from any language).
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Every type the public API returns or holds can be named by an embedder.
#![deny(unnameable_types)]

pub mod audit;
pub mod auth;
pub mod backend;
pub mod exit;
pub mod negotiate;
pub mod peer;
pub mod provenance;
pub mod session;
#[cfg(any(test, feature = "test-support"))]
pub mod testing;
pub mod time;
pub mod verbs;
pub mod version;
pub mod wire;

/// The prose documents about this crate, compiled as its doctests (`cargo test --doc`): a
/// Rust block in them that names a moved or renamed item fails the build, not the reader.
/// Only `rustdoc --test` sees this module; `tests/docs_compiled.rs` checks that every
/// document of the workspace belongs to one crate's `docs` module.
#[cfg(doctest)]
pub mod docs {
    #[doc = include_str!("../README.md")]
    pub struct Readme;
    #[doc = include_str!("../docs/architecture.md")]
    pub struct Architecture;
    #[doc = include_str!("../docs/benchmarks.md")]
    pub struct Benchmarks;
    #[doc = include_str!("../docs/spec-rules.md")]
    pub struct SpecRules;
    #[doc = include_str!("../docs/threat-model.md")]
    pub struct ThreatModel;
}
