//! [`ReferenceRuntime`]: the reference backend's handle — its configuration, state layout,
//! plan store and the shared steps every mutation takes (recovery, the target lock, the
//! journal points, durable writes).
//!
//! Owns opening the runtime (state directories, recovery) and the mutation preamble. It
//! must never mutate a target without holding that target's [`TargetLock`], and never skip
//! recovery before a mutation.

use std::path::Path;
use std::sync::Arc;
#[cfg(feature = "test-support")]
use std::sync::Mutex;
use std::time::Duration;

use super::config::{
    ApprovalAuthority, EventSource, JournalOperation, JournalPoint, JournalStage, RuntimeConfig,
};
use super::events::{QueueAuthority, SpoolEventSource};
use super::journal::{self, RecoveryError};
use super::layout::{LayoutError, StateLayout};
use super::plans::PlanStore;
use super::receipt::Receipt;
use super::status_memo::StatusMemo;
use super::summaries::Summaries;
use super::text::refuse;
use crate::adapters::Detector;
use devint::backend::LifecycleError;
use devint::verbs::SettingsScope;
use devint_fs::durable::{self, DurableError};
use devint_fs::lock::{LockError, TargetLock};
use devint_fs::mode::Modes;

/// How long a mutation waits for another process's operation on the same target.
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

/// Why the runtime could not open.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The state directory could not be prepared.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// An interrupted operation could not be recovered.
    #[error("{0}; the runtime will not start until it is resolved")]
    Recovery(#[from] RecoveryError),
}

/// Where a test can make the next durable write fail (feature `test-support`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteSite {
    /// The settings file.
    Settings,
    /// The receipt.
    Receipt,
}

fn report_swept(removed: &[std::path::PathBuf]) {
    for path in removed {
        tracing::info!(file = %path.display(), "removed a temporary file an interrupted write left");
    }
}

static_assertions::assert_impl_all!(ReferenceRuntime: Send, Sync);

/// The reference lifecycle backend behind `devint serve`.
pub struct ReferenceRuntime {
    pub(super) config: RuntimeConfig,
    pub(super) layout: StateLayout,
    pub(super) plans: PlanStore,
    pub(super) events: Arc<dyn EventSource>,
    pub(super) approvals: Arc<dyn ApprovalAuthority>,
    /// Tool detection and its one cache, on the configured `PATH` and `HOME`.
    pub(super) detector: Detector,
    /// Each tool's `list_tools` entry, while the detector's listing behind it stands.
    pub(super) summaries: Summaries,
    /// Each tool's last `status` answer, while everything it was derived from is unchanged.
    pub(super) statuses: StatusMemo,
    /// The next write to fail (fault injection, feature `test-support` only).
    #[cfg(feature = "test-support")]
    fault: Mutex<Option<(WriteSite, i32)>>,
}

impl std::fmt::Debug for ReferenceRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReferenceRuntime")
            .field("config", &self.config)
            .field("plans", &self.plans.len())
            .finish()
    }
}

impl ReferenceRuntime {
    /// Opens the runtime: creates the state layout (`0700`), recovers every journal an
    /// interrupted operation left, then removes the temporary files a crash mid-write left
    /// (in the state directories, and beside each settings file a receipt names).
    pub fn open(config: RuntimeConfig) -> Result<ReferenceRuntime, OpenError> {
        let layout = StateLayout::prepare(&config.state_dir)?;
        for outcome in journal::recover_all(&layout) {
            outcome?;
        }
        let events = config
            .events
            .clone()
            .unwrap_or_else(|| Arc::new(SpoolEventSource::new(layout.events())));
        let approvals = config
            .approvals
            .clone()
            .unwrap_or_else(|| Arc::new(QueueAuthority::new(layout.approvals())));
        let detector = Detector::new(config.path_env.clone(), config.home.clone())
            .with_root(config.system_root.clone());
        let runtime = ReferenceRuntime {
            detector,
            summaries: Summaries::default(),
            statuses: StatusMemo::default(),
            config,
            layout,
            plans: PlanStore::default(),
            events,
            approvals,
            #[cfg(feature = "test-support")]
            fault: Mutex::new(None),
        };
        runtime.sweep_at_start();
        Ok(runtime)
    }

    /// Start-up sweep of a crash's temporary files: the private state directories whole
    /// (only this runtime writes there), and beside every settings file one of this
    /// runtime's receipts names, under that target's lock (skipped when the lock is held:
    /// a live operation owns it, and sweeps before it writes).
    fn sweep_at_start(&self) {
        let mut removed = Vec::new();
        for dir in [
            self.layout.receipts_dir(),
            self.layout.journal_dir(),
            self.layout.root().join("evidence"),
        ] {
            removed.extend(durable::sweep_directory(&dir));
        }
        for tool in crate::adapters::all().iter().map(|d| d.id) {
            for scope in SettingsScope::ALL {
                let key = self.scope_key(*scope);
                let Ok(Some(receipt)) = super::receipt::load(&self.layout.receipt(tool, &key))
                else {
                    continue;
                };
                if let Ok(_lock) = TargetLock::try_acquire(&self.layout.locks(), tool, &key) {
                    removed.extend(durable::sweep_temporaries(&receipt.target));
                }
            }
        }
        report_swept(&removed);
    }

    /// Before a mutation of (tool, scope), holding its lock: the temporary files a crash
    /// left beside its state files and its settings file.
    pub(super) fn sweep(&self, tool: &str, scope: &str, target: &Path) {
        let mut removed = durable::sweep_temporaries(target);
        for state in [
            self.layout.receipt(tool, scope),
            self.layout.journal(tool, scope),
            self.layout.evidence(tool, scope),
        ] {
            removed.extend(durable::sweep_temporaries(&state));
        }
        report_swept(&removed);
    }

    /// The configuration it was opened with.
    pub fn config(&self) -> &RuntimeConfig {
        &self.config
    }

    /// The state directory.
    pub fn state_dir(&self) -> &Path {
        self.layout.root()
    }

    /// Makes the next durable write at `site` fail with the OS error `raw_os_error`
    /// (`ENOSPC` for a full disk, `EROFS` for a read-only file system).
    #[cfg(feature = "test-support")]
    pub fn fail_next_write(&self, site: WriteSite, raw_os_error: i32) {
        *self.fault.lock().unwrap_or_else(|p| p.into_inner()) = Some((site, raw_os_error));
    }

    /// Recovery before a mutation: every journal whose lock is free.
    pub(super) fn recover(&self) -> Result<(), LifecycleError> {
        for outcome in journal::recover_all(&self.layout) {
            outcome.map_err(|e| {
                refuse(
                    e.to_string(),
                    "resolve the interrupted operation named here, then retry",
                )
            })?;
        }
        Ok(())
    }

    /// Takes the (tool, scope) lock and recovers that target's journal under it.
    pub(super) fn lock(&self, tool: &str, scope: &str) -> Result<TargetLock, LifecycleError> {
        let lock = TargetLock::acquire(&self.layout.locks(), tool, scope, LOCK_WAIT).map_err(
            |e| match e {
                LockError::TimedOut { .. } | LockError::Busy { .. } => refuse(
                    e.to_string(),
                    "wait for the other operation on this tool to finish, then retry",
                ),
                LockError::Io { .. } => refuse(
                    e.to_string(),
                    "check the runtime's state directory permissions",
                ),
            },
        )?;
        journal::recover_locked(&self.layout, &self.layout.journal(tool, scope)).map_err(|e| {
            refuse(
                e.to_string(),
                "resolve the interrupted operation named here, then retry",
            )
        })?;
        Ok(lock)
    }

    /// Reports a journal point to the observer.
    pub(super) fn point(&self, operation: JournalOperation, stage: JournalStage) {
        if let Some(observer) = &self.config.journal_observer {
            observer(JournalPoint { operation, stage });
        }
    }

    #[cfg(feature = "test-support")]
    fn take_fault(&self, site: WriteSite) -> Option<i32> {
        let mut fault = self.fault.lock().unwrap_or_else(|p| p.into_inner());
        match *fault {
            Some((s, errno)) if s == site => {
                *fault = None;
                Some(errno)
            }
            _ => None,
        }
    }

    /// Writes `receipt`'s settings file durably with the modes of its tool and scope
    /// (`modes`), creating missing directories with them.
    pub(super) fn write_settings(&self, receipt: &Receipt, text: &str) -> Result<(), DurableError> {
        let modes = super::modes::settings_modes(receipt.tool.as_str(), receipt.scope);
        self.write_with_fault(
            WriteSite::Settings,
            &receipt.target,
            text.as_bytes(),
            &modes,
        )
    }

    /// Writes a receipt durably (`0600`).
    pub(super) fn write_receipt(&self, path: &Path, receipt: &Receipt) -> Result<(), DurableError> {
        let text = super::receipt::seal(receipt);
        self.write_with_fault(WriteSite::Receipt, path, text.as_bytes(), &Modes::PRIVATE)
    }

    fn write_with_fault(
        &self,
        site: WriteSite,
        path: &Path,
        bytes: &[u8],
        modes: &Modes,
    ) -> Result<(), DurableError> {
        #[cfg(feature = "test-support")]
        if let Some(errno) = self.take_fault(site) {
            return durable::write_atomic_with(path, bytes, modes, &mut |file, bytes| {
                use std::io::Write;
                file.write_all(&bytes[..bytes.len() / 2])?;
                Err(std::io::Error::from_raw_os_error(errno))
            });
        }
        #[cfg(not(feature = "test-support"))]
        let _ = site;
        durable::write_atomic(path, bytes, modes)
    }
}
