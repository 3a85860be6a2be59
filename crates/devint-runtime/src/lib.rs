//! # devint-runtime — the reference runtime of the DI-API
//!
//! A real [`Lifecycle`](devint::backend::Lifecycle) backend on real files — the one
//! `devint serve` runs — with what it needs and nothing more: no tokio, no sockets, no
//! command-line parser. It implements the core's backend contract and reads the proofs the
//! session mints; it never sees a frame.
//!
//! | module | owns |
//! |---|---|
//! | [`reference`](mod@reference) | the backend: plans, the write-ahead journal, receipts, drift, repair, removal, the protection ladder |
//! | [`edit`] | format-preserving settings edits (JSON, JSONC, TOML) with exact reversal |
//! | [`adapters`] | one descriptor per tool (a4aa's rule: tool knowledge lives here, never in the core) and the shared engine |
//!
//! It must never decide policy (ADR 0030 forbidden design 6), never report a protection
//! state that evidence does not support (forbidden design 4), never reserialise a user's
//! whole settings document, overwrite a file that does not parse, or store a prior value
//! marked as withheld. Adapters are linked at build time; nothing is loaded dynamically
//! (forbidden design 8).
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Every type the public API returns or holds can be named by an embedder. Not under
// `--cfg loom`: that build re-exports part of the plan store for its model only.
#![cfg_attr(not(loom), deny(unnameable_types))]

pub mod adapters;
pub mod edit;
pub mod reference;

/// The prose documents about this crate, compiled as its doctests (`cargo test --doc`): a
/// Rust block in them that names a moved or renamed item fails the build, not the reader,
/// and each document's last block names the items its prose cites, so those are checked
/// too. Only `rustdoc --test` sees this module.
#[cfg(doctest)]
pub mod docs {
    #[doc = include_str!("../../../docs/lifecycle.md")]
    /// ```
    /// use devint_runtime::reference::{
    ///     ApprovalAuthority, EventSource, ProtectionProbe, ReferenceRuntime, RelayRefusal,
    ///     RuntimeConfig,
    /// };
    ///
    /// let _ = (ReferenceRuntime::open, RelayRefusal::NotPending);
    /// fn config_fields(c: RuntimeConfig) {
    ///     let RuntimeConfig {
    ///         state_dir: _, home: _, project_dir: _, path_env: _, system_root: _,
    ///         gateway_base_url: _, plan_ttl: _, freshness: _, probe: _, events: _,
    ///         approvals: _, journal_observer: _,
    ///     } = c;
    /// }
    /// fn traits(_: &dyn ProtectionProbe, _: &dyn EventSource, _: &dyn ApprovalAuthority) {}
    /// ```
    pub struct Lifecycle;
    #[doc = include_str!("../../../docs/tools.md")]
    pub struct Tools;
    #[doc = include_str!("../../../docs/assurance.md")]
    /// ```
    /// # #[cfg(feature = "fuzzing")] {
    /// let _ = (devint::wire::fuzz_harness::decode_both, devint::auth::fuzz_harness::load_book);
    /// let _ = devint::session::fuzz_harness::server_sequence;
    /// let _ = devint::session::fuzz_harness::client_frames;
    /// let _ = devint_runtime::edit::fuzz_harness::edit_roundtrip;
    /// let _ = devint_runtime::reference::fuzz_harness::receipt;
    /// # }
    /// ```
    pub struct Assurance;
}
