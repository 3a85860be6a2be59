//! # devint — the Developer Integration API (DI-API, `assembly.devint.v1`)
//!
//! One local channel through which untrusted clients (an IDE extension, an installer, a
//! CLI) ask a trusted runtime to install, inspect, verify, repair or remove the governance
//! integration of an AI coding tool.
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
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adapters;
pub mod audit;
pub mod auth;
pub mod client;
pub mod lifecycle;
pub mod negotiate;
pub mod provenance;
pub mod server;
pub mod session;
#[cfg(any(test, feature = "test-support"))]
pub mod testing;
pub mod transport;
pub mod verbs;
pub mod wire;
