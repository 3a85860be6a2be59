//! What a runtime author hands [`super::ReferenceRuntime::open`]: the [`RuntimeConfig`],
//! the pluggable evidence and relay traits, and the journal points a crash test observes.
//!
//! Owns the configuration surface only. It must never read the process environment (every
//! path is explicit) and never define a trait method able to return a policy decision
//! (ADR 0030 forbidden design 6): the probe reports observations, the event source
//! already-adjudicated verdict records, and the approval authority only accepts input.

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::policy_url::PolicyUrl;
use devint::auth::ClientName;
use devint::time::UnixSecs;
use devint::verbs::{
    ApprovalId, ExercisedOutcome, HostAttestedOutcome, ScopedEvent, SettingsScope, ToolId,
    UserInput,
};

/// How the reference runtime is opened. Every path is explicit; nothing comes from the
/// process environment.
#[derive(Clone)]
pub struct RuntimeConfig {
    /// The runtime's private state directory (created `0700`).
    pub state_dir: PathBuf,
    /// The user's home directory (user-scope settings live under it).
    pub home: PathBuf,
    /// The project directory for `project` scope, if one was given (never inferred).
    pub project_dir: Option<PathBuf>,
    /// The `PATH` used to detect tools.
    pub path_env: String,
    /// The host's root (default `/`): managed, host-wide settings files (`/etc/…`) and
    /// absolute install directories are looked up under it. Only a sandbox (a test) points
    /// it elsewhere.
    pub system_root: PathBuf,
    /// The gateway base URL the built-in policy profiles route model traffic to (checked
    /// and normalised: see [`PolicyUrl::parse`]).
    pub gateway_base_url: Option<PolicyUrl>,
    /// How long a plan stays valid (default 15 min).
    pub plan_ttl: Duration,
    /// How long evidence counts (default 24 h).
    pub freshness: Duration,
    /// The gateway probe that can raise a tool to `gateway_protected`/`host_enforced`.
    pub probe: Option<Arc<dyn ProtectionProbe>>,
    /// Where verdict records come from (default: the `events/` spool).
    pub events: Option<Arc<dyn EventSource>>,
    /// Who adjudicates relayed approvals (default: the `approvals/queue.jsonl` queue).
    pub approvals: Option<Arc<dyn ApprovalAuthority>>,
    /// Called at every journal point, so a test can kill the process there.
    pub journal_observer: Option<Arc<dyn Fn(JournalPoint) + Send + Sync>>,
}

impl RuntimeConfig {
    /// The default plan lifetime.
    pub const DEFAULT_PLAN_TTL: Duration = Duration::from_secs(15 * 60);
    /// The default evidence freshness window.
    pub const DEFAULT_FRESHNESS: Duration = Duration::from_secs(24 * 3600);

    /// A configuration with the defaults: no project, no gateway, no probe, the spool and
    /// queue under `state_dir`, no observer.
    pub fn new(state_dir: PathBuf, home: PathBuf, path_env: String) -> RuntimeConfig {
        RuntimeConfig {
            state_dir,
            home,
            project_dir: None,
            path_env,
            system_root: PathBuf::from("/"),
            gateway_base_url: None,
            plan_ttl: Self::DEFAULT_PLAN_TTL,
            freshness: Self::DEFAULT_FRESHNESS,
            probe: None,
            events: None,
            approvals: None,
            journal_observer: None,
        }
    }
}

impl RuntimeConfig {
    /// Where the host-wide path `absolute` (`/etc/claude-code/…`) is under
    /// [`RuntimeConfig::system_root`].
    pub fn host_path(&self, absolute: &Path) -> PathBuf {
        absolute
            .components()
            .filter(|c| !matches!(c, Component::RootDir | Component::Prefix(_)))
            .fold(self.system_root.clone(), |p, c| p.join(c))
    }
}

impl fmt::Debug for RuntimeConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeConfig")
            .field("state_dir", &self.state_dir)
            .field("home", &self.home)
            .field("project_dir", &self.project_dir)
            .field("system_root", &self.system_root)
            .field("gateway_base_url", &self.gateway_base_url.is_some())
            .field("plan_ttl", &self.plan_ttl)
            .field("freshness", &self.freshness)
            .field("probe", &self.probe.is_some())
            .field("events", &self.events.is_some())
            .field("approvals", &self.approvals.is_some())
            .field("journal_observer", &self.journal_observer.is_some())
            .finish()
    }
}

/// What a gateway observed when the protection probe was exercised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeObservation {
    /// The verdict the gateway applied to the probe traffic.
    pub outcome: ExercisedOutcome,
    /// When the gateway observed it.
    pub observed_at_unix_secs: UnixSecs,
    /// Whether a gateway (not the probe itself) observed the traffic.
    pub observed_by_gateway: bool,
}

/// A host-level attestation (eBPF, proxy CA) for a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostAttestation {
    /// Healthy or not.
    pub outcome: HostAttestedOutcome,
    /// When it was attested.
    pub observed_at_unix_secs: UnixSecs,
}

/// Exercises a tool's integration through a gateway and reports what was observed. The
/// reference runtime has none by default and says so in `next_level.blocked_because`.
pub trait ProtectionProbe: Send + Sync {
    /// Send probe traffic for `tool` at `scope` and report the gateway's observation, or
    /// `None` when nothing was observed.
    fn exercise(
        &self,
        tool: &ToolId,
        scope: SettingsScope,
        now: UnixSecs,
    ) -> Option<ProbeObservation>;

    /// A host-level attestation for `tool`, if host enforcement is installed.
    fn host_attestation(&self, _tool: &ToolId, _now: UnixSecs) -> Option<HostAttestation> {
        None
    }
}

/// Why an event source or approval authority could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SourceError(pub String);

/// A source of already-redacted verdict records (written by a gateway). Never a decision
/// maker: it only reports verdicts the gateway already made.
pub trait EventSource: Send + Sync {
    /// At most `limit` records for `tool` that occurred at or after `since`, oldest first.
    fn events(
        &self,
        tool: &ToolId,
        limit: u32,
        since: UnixSecs,
    ) -> Result<Vec<ScopedEvent>, SourceError>;
}

/// One relayed approval input, as handed to the authority.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayedApproval<'a> {
    /// The tool.
    pub tool: &'a ToolId,
    /// The approval the input answers.
    pub approval: &'a ApprovalId,
    /// The user's input.
    pub input: UserInput,
    /// The client that relayed it.
    pub client: &'a ClientName,
    /// When it was relayed.
    pub relayed_at_unix_secs: UnixSecs,
}

/// Why an approval authority did not accept a relayed input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelayRefusal {
    /// No approval with this id is waiting for an answer on this tool: never raised, raised
    /// for another tool, or already answered with `approve` or `deny`.
    #[error("no approval with this id is waiting for an answer on this tool")]
    NotPending,
    /// The authority could not answer.
    #[error(transparent)]
    Unavailable(#[from] SourceError),
}

/// Accepts relayed user input for adjudication. It never answers with a decision: the
/// acknowledgement says only that the input was accepted for adjudication.
pub trait ApprovalAuthority: Send + Sync {
    /// Accept `relayed` for adjudication, durably, if its approval is waiting for an answer
    /// on its tool ([`RelayRefusal::NotPending`] otherwise, and nothing is recorded).
    fn accept(&self, relayed: &RelayedApproval<'_>) -> Result<(), RelayRefusal>;
}

/// Which operation a journal point (and a journal record) belongs to. Stored in the journal
/// as its token (`apply`, `repair`, `remove`); an unknown token is a load error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JournalOperation {
    /// `apply`.
    Apply,
    /// `repair`.
    Repair,
    /// `remove` (executed).
    Remove,
}

impl JournalOperation {
    /// The operation's token, as stored in a journal.
    pub const fn token(self) -> &'static str {
        match self {
            JournalOperation::Apply => "apply",
            JournalOperation::Repair => "repair",
            JournalOperation::Remove => "remove",
        }
    }
}

/// Where in a journaled operation the process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JournalStage {
    /// The journal is durable; nothing else has changed yet.
    JournalWritten,
    /// The settings file has been written (or deleted) durably.
    TargetWritten,
    /// The receipt has been written (or deleted) durably.
    ReceiptWritten,
    /// The journal has been removed: the operation is complete.
    JournalRemoved,
}

/// One journal point: an operation and a stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JournalPoint {
    /// The operation.
    pub operation: JournalOperation,
    /// The stage reached.
    pub stage: JournalStage,
}

impl JournalPoint {
    /// Every stage, in order.
    pub const STAGES: [JournalStage; 4] = [
        JournalStage::JournalWritten,
        JournalStage::TargetWritten,
        JournalStage::ReceiptWritten,
        JournalStage::JournalRemoved,
    ];

    /// A stable token, e.g. `apply.target_written`.
    pub fn token(self) -> String {
        let op = self.operation.token();
        let stage = match self.stage {
            JournalStage::JournalWritten => "journal_written",
            JournalStage::TargetWritten => "target_written",
            JournalStage::ReceiptWritten => "receipt_written",
            JournalStage::JournalRemoved => "journal_removed",
        };
        format!("{op}.{stage}")
    }
}
