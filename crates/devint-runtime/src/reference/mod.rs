//! The reference lifecycle backend: a real [`Lifecycle`] on real files, the one
//! `devint serve` runs.
//!
//! | file | owns |
//! |---|---|
//! | `config` | [`RuntimeConfig`], the probe / event / approval traits, journal points |
//! | `runtime` | [`ReferenceRuntime::open`], recovery, the lock, durable writes |
//! | `layout` | the state directory (`0700`) and per-(tool, scope) file names |
//! | `modes` | the modes a settings file and its new directories are written with, per scope and tool |
//! | `profile` | policy profiles (built-ins and `profiles/*.toml`) → intent |
//! | `enforcement` | how strongly a policy's controls hold in one tool (enforced, advisory, not enforceable) and the ceiling that leaves |
//! | `policy_url` | [`PolicyUrl`]: a gateway or proxy URL, checked and normalised once |
//! | `planner`, `plans` | `plan` (a dry run) and the bounded, token-bound plan store |
//! | `sync` | the plan store's lock (`loom`'s under `cfg(loom)`, for `crates/devint-runtime/tests/loom_plans.rs`) |
//! | `apply`, `repair`, `removal` | the journaled mutations |
//! | `journal` | the write-ahead journal and recovery |
//! | `receipt` | receipts: first originals, withheld keys, integrity digest |
//! | `stored` | typed state files: core tokens read back by the core's parsers, unknown values a load error naming the field |
//! | `target` | our keys in one settings file: prepare, repair, restore |
//! | `unusable` | a settings file that cannot be read, in words naming it, with the fix for that cause |
//! | `inspect`, `ladder`, `status`, `evidence` | drift, the protection ladder, verify |
//! | `events` | the reference event spool and approval queue |
//! | `reads`, `status_memo` | the files an answer was read from, and the `status` answers kept while they stand (watched through `devint_fs::watch`) |
//! | `summaries` | each tool's `list_tools` entry, remembered while its detection listing stands |
//! | `fuzz_harness` (feature `fuzzing`) | the receipt parser's invariants, for the `receipt` fuzz target |
//!
//! This module must never decide policy (ADR 0030 forbidden design 6), never report a
//! protection state evidence does not support (forbidden design 4), never write a settings
//! file without the target's lock and a journal, never overwrite a file that does not
//! parse, and never put a settings value, policy document or credential into a view.

mod apply;
mod config;
mod convert;
mod credential;
mod enforcement;
mod events;
mod evidence;
#[cfg(feature = "fuzzing")]
pub mod fuzz_harness;
mod inspect;
mod journal;
mod ladder;
mod layout;
mod modes;
mod planner;
mod plans;
mod policy_url;
mod profile;
mod pure_memo;
mod reads;
mod receipt;
mod removal;
mod repair;
mod runtime;
mod status;
mod status_memo;
mod stored;
mod summaries;
mod sync;
mod target;
mod text;
mod unusable;

pub use config::{
    ApprovalAuthority, EventSource, HostAttestation, JournalOperation, JournalPoint, JournalStage,
    ProbeObservation, ProtectionProbe, RelayRefusal, RelayedApproval, RuntimeConfig, SourceError,
};
pub use credential::withhold as withholds_prior_value;
pub use events::{QueueAuthority, SpoolEventSource};
pub use journal::{JournalDefect, RecoveryError};
pub use layout::LayoutError;
pub use plans::PLAN_CAPACITY;
pub use policy_url::{PolicyUrl, PolicyUrlError};
// The loom model (`crates/devint-runtime/tests/loom_plans.rs`) drives the plan store directly; ordinary builds keep
// it internal, so the public API is unchanged.
#[cfg(loom)]
pub use plans::{PlanBody, PlanRefusal, PlanStore, RemovalPlan, StoredPlan};
pub use profile::{
    LoadedProfile, PolicyCatalogue, PolicyDocument, ProfileError, BUILT_INS as BUILT_IN_PROFILES,
};
pub use runtime::{OpenError, ReferenceRuntime, WriteSite, LOCK_WAIT};
pub use stored::StoredValueError;

use crate::adapters;
use devint::backend::{Authorization, ToolAuthorization};
use devint::backend::{CallKind, Lifecycle, LifecycleError};
use devint::time::UnixSecs;
use devint::verbs::{
    ApprovalId, ApprovalRelayAck, PlanArgs, PlanId, PlanView, RemovalView, RepairView,
    ScopedEventList, StatusView, ToolId, ToolList, UserInput, Verb, VerificationView,
};
use text::refuse;

impl Lifecycle for ReferenceRuntime {
    /// `status`, `list_tools` and `plan` read a few small state and settings files (and take
    /// no lock): brief. A detection cache refreshed on the way runs a tool's `--version` under
    /// its own timeout (`adapters::detect`). Everything else may wait longer.
    fn call_kind(&self, verb: Verb) -> CallKind {
        match verb {
            Verb::Status | Verb::ListTools | Verb::Plan => CallKind::Brief,
            _ => CallKind::Blocking,
        }
    }

    fn knows_tool(&self, tool: &ToolId) -> bool {
        adapters::find(tool.as_str()).is_some()
    }

    fn list_tools(&self, _auth: &Authorization) -> Result<ToolList, LifecycleError> {
        let listings = self.detector.list_tools();
        // Sized up front: growing this vector of large summaries by doubling showed as ~7 %
        // of a `list_tools` (glibc's realloc and malloc_consolidate; docs/benchmarks.md,
        // "answers sized and written straight from their views").
        let mut tools = Vec::with_capacity(listings.len());
        tools.extend(listings.iter().filter_map(|l| self.summaries.of(l)));
        Ok(ToolList { tools })
    }

    fn plan(&self, auth: &ToolAuthorization, args: &PlanArgs) -> Result<PlanView, LifecycleError> {
        self.do_plan(auth, args)
    }

    fn apply(&self, auth: &ToolAuthorization, plan: &PlanId) -> Result<ApplyView, LifecycleError> {
        self.do_apply(auth, plan)
    }

    fn status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError> {
        self.do_status(auth)
    }

    /// The remembered `status`, when a watch on its files and the detector's cache show
    /// without blocking that nothing it rests on changed (`status_memo`).
    fn status_at_once(
        &self,
        auth: &ToolAuthorization,
    ) -> Option<Result<StatusView, LifecycleError>> {
        self.status_remembered(auth).map(Ok)
    }

    fn verify(&self, auth: &ToolAuthorization) -> Result<VerificationView, LifecycleError> {
        self.do_verify(auth)
    }

    fn repair(&self, auth: &ToolAuthorization) -> Result<RepairView, LifecycleError> {
        self.do_repair(auth)
    }

    fn remove(
        &self,
        auth: &ToolAuthorization,
        plan: Option<&PlanId>,
    ) -> Result<RemovalView, LifecycleError> {
        self.do_remove(auth, plan)
    }

    fn scoped_events(
        &self,
        auth: &ToolAuthorization,
        limit: u32,
        since: UnixSecs,
    ) -> Result<ScopedEventList, LifecycleError> {
        let events = self
            .events
            .events(auth.tool(), limit, since)
            .map_err(|e| refuse(e.to_string(), "check the gateway's event spool, then retry"))?;
        Ok(ScopedEventList { events })
    }

    fn approval_relay(
        &self,
        auth: &ToolAuthorization,
        approval: &ApprovalId,
        input: UserInput,
    ) -> Result<ApprovalRelayAck, LifecycleError> {
        // Accepted for adjudication only: never a verdict or a decision.
        self.approvals
            .accept(&RelayedApproval {
                tool: auth.tool(),
                approval,
                input,
                client: auth.client_name(),
                relayed_at_unix_secs: auth.now(),
            })
            .map_err(|e| match e {
                // Spec §6: whether an id is known is the backend's answer, LIFECYCLE_ERROR.
                RelayRefusal::NotPending => refuse(
                    e.to_string(),
                    "relay the approval id the tool shows for a request still waiting for an answer",
                ),
                RelayRefusal::Unavailable(e) => {
                    refuse(e.to_string(), "check the approval queue, then relay again")
                }
            })?;
        Ok(ApprovalRelayAck {
            approval_id: approval.clone(),
            relayed_input: input,
            accepted_at_unix_secs: auth.now(),
        })
    }
}

use devint::verbs::ApplyView;
