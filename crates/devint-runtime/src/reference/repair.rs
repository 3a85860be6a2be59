//! `repair`: restores only our drifted keys (and recreates a settings file of ours that is
//! gone), journaled like apply.
//!
//! It must never touch a key that is not ours, never repair through a corrupt receipt, and
//! never keep old evidence valid for a repaired file (the receipt id changes).

use std::ops::ControlFlow;

use super::config::{JournalOperation as Op, JournalStage as Stage};
use super::inspect::ScopeState;
use super::journal::{self, Journal, ReceiptChange, JOURNAL_VERSION};
use super::receipt::{self, fingerprint, Receipt};
use super::runtime::ReferenceRuntime;
use super::target::{self, Current};
use super::text::{refuse, say};
use crate::edit::SettingsDoc;
use devint::backend::LifecycleError;
use devint::backend::ToolAuthorization;
use devint::time::UnixSecs;
use devint::verbs::{
    CapabilityName, ManagedRef, ReceiptId, RepairView, SettingsScope, UnsupportedMechanismView,
};

/// What one repair did so far, across scopes.
#[derive(Default)]
struct Tally {
    repaired: Vec<ManagedRef>,
    unrepairable: Vec<UnsupportedMechanismView>,
    /// Scopes written.
    written: usize,
    /// Each settings file as this request read or wrote it: the answer's status is read
    /// back from these, so no file is read twice.
    known: Vec<Current>,
}

impl Tally {
    /// `capability` could not be repaired, for `reason`.
    fn cannot(&mut self, capability: CapabilityName, reason: String) {
        self.unrepairable.push(UnsupportedMechanismView {
            capability,
            reason: say(reason),
        });
    }
}

impl ReferenceRuntime {
    pub(super) fn do_repair(&self, auth: &ToolAuthorization) -> Result<RepairView, LifecycleError> {
        let descriptor = self.descriptor(auth)?;
        auth.cancel_signal().check()?;
        self.recover()?;
        let tool = auth.tool().as_str();
        let mut tally = Tally::default();
        for scope in SettingsScope::ALL {
            if self.repair_scope(auth, *scope, &mut tally)?.is_break() {
                break;
            }
        }
        let scopes = self.inspect_all_knowing(tool, &tally.known);
        tally.unrepairable.extend(policy_moved(&scopes));
        Ok(RepairView {
            tool_id: auth.tool().clone(),
            repaired: tally.repaired,
            unrepairable: tally.unrepairable,
            status: self.status_of(auth, descriptor, &scopes),
            unrecognized: Vec::new(),
        })
    }

    /// Repairs one scope under its lock, adding what it did or could not do to `tally`;
    /// breaks when the request passed its deadline (the scopes after it are left alone).
    fn repair_scope(
        &self,
        auth: &ToolAuthorization,
        scope: SettingsScope,
        tally: &mut Tally,
    ) -> Result<ControlFlow<()>, LifecycleError> {
        let tool = auth.tool().as_str();
        // Only scopes with a receipt file (trusted or not) are locked and looked at; the
        // settings file is read once, below, under the lock.
        let Some(receipt_path) = self.receipt_path(tool, scope) else {
            return Ok(ControlFlow::Continue(()));
        };
        if std::fs::symlink_metadata(&receipt_path).is_err() {
            return Ok(ControlFlow::Continue(()));
        }
        let key = self.scope_key(scope);
        let _lock = self.lock(tool, &key)?;
        let receipt = match receipt::load(&receipt_path) {
            Ok(Some(r)) => r,
            Ok(None) => return Ok(ControlFlow::Continue(())),
            Err(e) => {
                tally.cannot(CapabilityName::ManagedSettings, format!("{e}"));
                return Ok(ControlFlow::Continue(()));
            }
        };
        self.sweep(tool, &key, &receipt.target);
        let current = Current::read(&receipt.target)
            .map_err(|e| super::unusable::read_refusal(&e, "retry"))?;
        let (text, keys) = match target::repair_text(&receipt, &current) {
            Ok(r) => r,
            Err(e) => {
                let capability = receipt
                    .keys
                    .first()
                    .map_or(CapabilityName::ManagedSettings, |k| k.capability);
                tally.cannot(capability, e.to_string());
                tally.known.push(current);
                return Ok(ControlFlow::Continue(()));
            }
        };
        if keys.is_empty() && current.text.is_some() {
            tally.known.push(current);
            return Ok(ControlFlow::Continue(()));
        }
        // Each scope's journal is its point of no return: past the deadline, a repair that
        // wrote nothing yet stops with nothing changed; one that repaired a scope already
        // reports what it did and what it left.
        if auth.cancel_signal().is_raised() {
            if tally.written == 0 {
                auth.cancel_signal().check()?;
            }
            tally.cannot(
                CapabilityName::ManagedSettings,
                format!(
                    "the {} scope was not repaired: the request passed its deadline; repair again",
                    scope.token()
                ),
            );
            tally.known.push(current);
            return Ok(ControlFlow::Break(()));
        }
        self.write_repair(&receipt, &receipt_path, &key, &current, &text, auth.now())?;
        tally.written += 1;
        tally.known.push(Current {
            path: receipt.target.clone(),
            text: Some(text),
        });
        if current.text.is_none() {
            if let Some(a) = super::convert::artifact(&receipt.target, &self.config.home) {
                tally.repaired.push(ManagedRef::Artifact(a));
            }
        }
        tally
            .repaired
            .extend(keys.iter().filter_map(super::convert::key_ref));
        Ok(ControlFlow::Continue(()))
    }

    fn write_repair(
        &self,
        receipt: &Receipt,
        receipt_path: &std::path::Path,
        scope_key: &str,
        current: &Current,
        text: &str,
        now: UnixSecs,
    ) -> Result<(), LifecycleError> {
        let doc = SettingsDoc::parse(receipt.format, text)
            .map_err(|e| refuse(e.to_string(), "report this settings file shape as a bug"))?;
        let updated = Receipt {
            // A repaired integration needs a fresh verify: evidence is per receipt id.
            receipt_id: ReceiptId::random(),
            fingerprint: fingerprint(&receipt.keys, |p| doc.get(p)),
            file_sha256: receipt::text_digest(text),
            updated_at: now,
            ..receipt.clone()
        };
        let journal_path = self.layout.journal(receipt.tool.as_str(), scope_key);
        let record = Journal {
            version: JOURNAL_VERSION,
            operation: Op::Repair,
            tool: receipt.tool.clone(),
            scope: scope_key.to_owned(),
            target: receipt.target.clone(),
            pre_digest: current.digest(),
            post_digest: Some(updated.file_sha256.clone()),
            receipt: ReceiptChange::Write {
                receipt: Box::new(updated.clone()),
            },
        };
        let fail = |e: &dyn std::fmt::Display| {
            refuse(
                format!("repair failed: {e}"),
                "fix the cause named here, then repair again",
            )
        };
        journal::write(&journal_path, &record).map_err(|e| fail(&e))?;
        self.point(Op::Repair, Stage::JournalWritten);
        if let Err(e) = self.write_settings(receipt, text) {
            if !e.target_changed() {
                let _ = journal::remove(&journal_path);
                return Err(fail(&e));
            }
        }
        self.point(Op::Repair, Stage::TargetWritten);
        // If the receipt cannot be written the journal stays: recovery rolls it forward.
        self.write_receipt(receipt_path, &updated)
            .map_err(|e| fail(&e))?;
        self.point(Op::Repair, Stage::ReceiptWritten);
        let _ = journal::remove(&journal_path);
        self.point(Op::Repair, Stage::JournalRemoved);
        Ok(())
    }
}

/// Keys repair cannot bring in line: they hold what we wrote, but the policy profile asks
/// another value now (only a new plan writes the policy's current value).
fn policy_moved(scopes: &[ScopeState]) -> Vec<UnsupportedMechanismView> {
    scopes
        .iter()
        .filter_map(|s| match s {
            ScopeState::Installed {
                read_back: Ok(rb), ..
            } => Some(rb),
            _ => None,
        })
        .flat_map(|rb| rb.keys.iter().filter(|k| k.policy_moved()))
        .map(|k| UnsupportedMechanismView {
            capability: k.key.capability,
            reason: say(format!(
                "{} holds what was installed, but the policy profile asks a different value now: plan and apply again",
                k.key.path
            )),
        })
        .collect()
}
