//! `apply`: executes an install plan this token authored, crash-safely.
//!
//! Order (the write-ahead journal): take the (tool, scope) lock and recover → check the
//! file is as planned → journal (durable) → settings file (atomic, durable, mode kept) →
//! receipt → remove the journal, reporting each point to the observer. A failure before
//! the receipt is written puts the file back as it was. A request cancelled (past its
//! deadline) before the journal is written stops with nothing changed; after, it runs to
//! completion. The outcome is truthful:
//! `changed`, `unchanged` (the end state already held; nothing written) or `failed`.
//!
//! It must never execute a plan another token authored, an expired or consumed plan, or a
//! plan whose settings file changed since it was shown, and never overwrite a corrupt receipt.

use super::config::{JournalOperation as Op, JournalStage as Stage};
use super::journal::{self, Journal, ReceiptChange, JOURNAL_VERSION};
use super::plans::InstallPlan;
use super::receipt::{self, fingerprint, OwnedKey, Receipt};
use super::runtime::ReferenceRuntime;
use super::target::{self, Current, Prepared};
use super::text::{refuse, say};
use crate::edit::{Reversal, SettingsDoc};
use devint::backend::LifecycleError;
use devint::backend::ToolAuthorization;
use devint::verbs::{
    ApplyMutation, ApplyOutcomeView, ApplyView, CapabilityName, Digest, Level, PlanId, ReceiptId,
    SettingsScope, StepId, StepOutcome, StepOutcomeView,
};
use devint::version::APPLY_OUTCOME_SINCE;
use devint_fs::durable;
use std::path::{Path, PathBuf};

/// Everything an apply checked under the target's lock, before it journals anything.
struct Checked {
    /// The settings file as it is now (the plan's digest matched it).
    current: Current,
    /// The receipt in force, if any.
    existing: Option<Receipt>,
    /// What will be written.
    prepared: Prepared,
    /// The written text, parsed (for fingerprints).
    after: SettingsDoc,
    /// The current text, parsed (to tell steps that already held).
    before: Option<SettingsDoc>,
}

impl Checked {
    /// Each step's outcome view; a step whose keys already held is `skipped`.
    fn steps(&self, outcome: StepOutcome) -> Vec<StepOutcomeView> {
        step_ids(&self.prepared.keys)
            .into_iter()
            .map(|(id, cap)| {
                let group: Vec<OwnedKey> = self
                    .prepared
                    .keys
                    .iter()
                    .filter(|k| k.capability == cap)
                    .cloned()
                    .collect();
                let held_before = self
                    .before
                    .as_ref()
                    .is_some_and(|b| group.iter().all(|k| k.holds(b.get(&k.path).as_ref())));
                StepOutcomeView {
                    step_id: id,
                    outcome: match outcome {
                        StepOutcome::Applied if held_before => StepOutcome::Skipped,
                        o => o,
                    },
                    fingerprint: Digest::parse(&fingerprint(&group, |p| self.after.get(p))).ok(),
                }
            })
            .collect()
    }

    /// Whether nothing needs writing: the end state holds and a receipt records these keys.
    fn already_in_place(&self) -> Option<&Receipt> {
        if self.prepared.changed {
            return None;
        }
        self.existing
            .as_ref()
            .filter(|r| covers(r, &self.prepared.keys))
    }
}

impl ReferenceRuntime {
    pub(super) fn do_apply(
        &self,
        auth: &ToolAuthorization,
        plan_id: &PlanId,
    ) -> Result<ApplyView, LifecycleError> {
        // A request already past its deadline changes nothing, and its plan stays usable.
        auth.cancel_signal().check()?;
        let plan = self
            .plans
            .take_install(plan_id, auth.tool(), auth.token_id(), auth.now())
            .map_err(|r| refuse(r.to_string(), "plan again, then apply the new plan id"))?;
        if let Some(why) = &plan.blocked {
            return Err(refuse(
                format!("apply refused: {why}"),
                "fix the settings file by hand, then plan again",
            ));
        }
        self.recover()?;
        let scope = self.scope_key(plan.scope);
        let _lock = self.lock(auth.tool().as_str(), &scope)?;
        self.sweep(auth.tool().as_str(), &scope, &plan.target);
        let receipt_path = self.layout.receipt(auth.tool().as_str(), &scope);
        let checked = self.check_apply(&plan, &receipt_path)?;
        if let Some(r) = checked.already_in_place() {
            return Ok(ApplyView {
                plan_id: plan_id.clone(),
                receipt_id: r.receipt_id.clone(),
                applied_at_unix_secs: auth.now(),
                steps: checked.steps(StepOutcome::Skipped),
                planned_level: plan.planned_level,
                achieved_level: Level::PartiallyIntegrated,
                outcome: Some(ApplyOutcomeView {
                    mutation: ApplyMutation::Unchanged,
                    detail: Some(say(
                        "the integration was already in place; nothing was written",
                    )),
                }),
            });
        }
        let receipt = self.new_receipt(auth, &plan, &checked)?;
        // The point of no return is the journal: a request that passed its deadline while
        // this apply waited for the lock or checked the file stops here, nothing written.
        // Once the journal is written, the apply runs to completion and reports its outcome.
        auth.cancel_signal().check()?;
        let journaled = JournaledApply {
            journal: self.layout.journal(auth.tool().as_str(), &scope),
            receipt_path,
            scope,
        };
        if let Err(detail) = self.write_apply(&plan, &checked, &receipt, &journaled) {
            let steps = checked.steps(StepOutcome::Failed);
            return self.failed_apply(
                auth,
                plan_id,
                &plan,
                checked.existing.as_ref(),
                detail,
                steps,
            );
        }
        let detail = if checked.prepared.changed {
            "the settings were written and a receipt recorded; run verify to record a fresh read-back"
        } else {
            "the settings already held these values; a receipt now records them"
        };
        Ok(ApplyView {
            plan_id: plan_id.clone(),
            receipt_id: receipt.receipt_id,
            applied_at_unix_secs: auth.now(),
            steps: checked.steps(StepOutcome::Applied),
            planned_level: plan.planned_level,
            achieved_level: Level::PartiallyIntegrated,
            outcome: Some(ApplyOutcomeView {
                mutation: ApplyMutation::Changed,
                detail: Some(say(detail)),
            }),
        })
    }

    /// Under the lock: the file is as planned, the receipt in force reads, and the text to
    /// write is exactly the one the plan showed.
    fn check_apply(
        &self,
        plan: &InstallPlan,
        receipt_path: &Path,
    ) -> Result<Checked, LifecycleError> {
        let current =
            Current::read(&plan.target).map_err(|e| super::unusable::read_refusal(&e, "retry"))?;
        let project = (plan.scope == SettingsScope::Project)
            .then_some(self.config.project_dir.as_deref())
            .flatten();
        if let Some(why) = target::Landing::of(&plan.target).write_refusal(project) {
            return Err(refuse(
                format!("{why}; nothing was written"),
                "fix the file as named here, then plan again",
            ));
        }
        if current.digest() != plan.pre_digest {
            return Err(refuse(
                "the settings file changed since this plan was made; nothing was written",
                "plan again so the plan shows what will be written now",
            ));
        }
        let existing = receipt::load(receipt_path).map_err(|e| {
            refuse(
                e.to_string(),
                "a corrupt receipt is never overwritten: restore it or remove the integration by hand",
            )
        })?;
        let prepared = target::prepare(plan.format, &current, &plan.keys).map_err(|e| {
            refuse(
                e.to_string(),
                "fix the settings file by hand, then plan again",
            )
        })?;
        if Some(receipt::text_digest(&prepared.text)) != plan.post_digest {
            return Err(refuse(
                "the content to write differs from what the plan showed; nothing was written",
                "plan again so the plan shows what will be written now",
            ));
        }
        let after = SettingsDoc::parse(plan.format, &prepared.text)
            .map_err(|e| refuse(e.to_string(), "report this settings file shape as a bug"))?;
        let before = SettingsDoc::parse(plan.format, current.text.as_deref().unwrap_or("")).ok();
        Ok(Checked {
            current,
            existing,
            prepared,
            after,
            before,
        })
    }

    /// The receipt this apply records: the first install's originals kept, keys merged.
    fn new_receipt(
        &self,
        auth: &ToolAuthorization,
        plan: &InstallPlan,
        checked: &Checked,
    ) -> Result<Receipt, LifecycleError> {
        let existing = checked.existing.as_ref();
        let reversal = match existing {
            // Keep the first install's originals: later priors are our own values.
            Some(first) => Reversal::compose(&first.reversal, &checked.prepared.reversal)
                .map_err(|e| refuse(e.to_string(), "remove the integration, then install again"))?,
            None => checked.prepared.reversal.clone(),
        };
        let keys = merge_keys(existing.map(|r| r.keys.as_slice()), &checked.prepared.keys);
        Ok(Receipt {
            receipt_id: ReceiptId::random(),
            tool: auth.tool().clone(),
            scope: plan.scope,
            target: plan.target.clone(),
            format: plan.format,
            profile: plan.profile.clone(),
            planned_level: plan.planned_level,
            installed_at: existing.map_or(auth.now(), |r| r.installed_at),
            updated_at: auth.now(),
            fingerprint: fingerprint(&keys, |p| checked.after.get(p)),
            keys,
            reversal,
            file_sha256: receipt::text_digest(&checked.prepared.text),
        })
    }

    /// The journal stages: journal written → settings file written → receipt written →
    /// journal removed. A failure before the receipt puts the file back as it was and
    /// answers why.
    fn write_apply(
        &self,
        plan: &InstallPlan,
        checked: &Checked,
        receipt: &Receipt,
        at: &JournaledApply,
    ) -> Result<(), String> {
        let record = Journal {
            version: JOURNAL_VERSION,
            operation: Op::Apply,
            tool: receipt.tool.clone(),
            scope: at.scope.clone(),
            target: plan.target.clone(),
            pre_digest: checked.current.digest(),
            post_digest: Some(receipt.file_sha256.clone()),
            receipt: ReceiptChange::Write {
                receipt: Box::new(receipt.clone()),
            },
        };
        journal::write(&at.journal, &record)
            .map_err(|e| format!("the journal could not be written: {e}"))?;
        self.point(Op::Apply, Stage::JournalWritten);
        if checked.prepared.changed {
            if let Err(e) = self.write_settings(receipt, &checked.prepared.text) {
                if !e.target_changed() {
                    let _ = journal::remove(&at.journal);
                    return Err(e.to_string());
                }
            }
        }
        self.point(Op::Apply, Stage::TargetWritten);
        if let Err(e) = self.write_receipt(&at.receipt_path, receipt) {
            // Put the file back as it was, then drop the journal; if that fails too, the
            // journal stays and recovery finishes the job.
            let restored = match &checked.current.text {
                Some(text) => self.write_settings(receipt, text),
                None => durable::remove_durable(&plan.target).map(|_| ()),
            };
            if restored.is_ok() {
                let _ = journal::remove(&at.journal);
            }
            return Err(format!("the receipt could not be written: {e}"));
        }
        self.point(Op::Apply, Stage::ReceiptWritten);
        if let Err(e) = journal::remove(&at.journal) {
            tracing::warn!(error = %e, "the journal could not be removed; recovery will");
        }
        self.point(Op::Apply, Stage::JournalRemoved);
        Ok(())
    }

    /// A failed apply: a `failed` view at v5+, a refusal below (where a view could not say
    /// it failed).
    fn failed_apply(
        &self,
        auth: &ToolAuthorization,
        plan_id: &PlanId,
        plan: &InstallPlan,
        existing: Option<&Receipt>,
        detail: String,
        steps: Vec<StepOutcomeView>,
    ) -> Result<ApplyView, LifecycleError> {
        if !auth.version().has(APPLY_OUTCOME_SINCE) {
            return Err(refuse(
                format!("apply failed: {detail}"),
                "fix the cause named here, then plan again",
            ));
        }
        Ok(ApplyView {
            plan_id: plan_id.clone(),
            // The receipt still in force, or a fresh id naming no receipt when none is.
            receipt_id: existing.map_or_else(ReceiptId::random, |r| r.receipt_id.clone()),
            applied_at_unix_secs: auth.now(),
            steps,
            planned_level: plan.planned_level,
            achieved_level: if existing.is_some() {
                Level::PartiallyIntegrated
            } else {
                Level::DetectedNotIntegrated
            },
            outcome: Some(ApplyOutcomeView {
                mutation: ApplyMutation::Failed,
                detail: Some(say(format!("{detail}; the settings file is as it was"))),
            }),
        })
    }
}

/// Where one apply keeps its journal and receipt.
struct JournaledApply {
    journal: PathBuf,
    receipt_path: PathBuf,
    scope: String,
}

/// Whether `receipt` already records exactly these keys and the file as it is.
fn covers(receipt: &Receipt, keys: &[OwnedKey]) -> bool {
    keys.iter().all(|k| receipt.keys.contains(k))
}

/// The receipt's keys after a re-install: earlier keys kept, later ones updated or added.
fn merge_keys(earlier: Option<&[OwnedKey]>, later: &[OwnedKey]) -> Vec<OwnedKey> {
    let mut keys: Vec<OwnedKey> = earlier.map(<[OwnedKey]>::to_vec).unwrap_or_default();
    for k in later {
        match keys.iter_mut().find(|e| e.same_key(k)) {
            Some(e) => *e = k.clone(),
            None => keys.push(k.clone()),
        }
    }
    keys
}

/// The step ids (one per capability, render order) with their capabilities.
pub(super) fn step_ids(keys: &[OwnedKey]) -> Vec<(StepId, CapabilityName)> {
    let mut out: Vec<(StepId, CapabilityName)> = Vec::new();
    for k in keys {
        if !out.iter().any(|(_, c)| *c == k.capability) {
            if let Ok(id) = StepId::parse(k.capability.token()) {
                out.push((id, k.capability));
            }
        }
    }
    out
}
