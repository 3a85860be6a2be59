//! `apply`: executes an install plan this token authored, crash-safely.
//!
//! Order (the write-ahead journal): take the (tool, scope) lock and recover → check the
//! file is as planned → journal (durable) → settings file (atomic, durable, mode kept) →
//! receipt → remove the journal, reporting each point to the observer. A failure before
//! the receipt is written puts the file back as it was. The outcome is truthful:
//! `changed`, `unchanged` (the end state already held; nothing written) or `failed`.
//!
//! It must never execute a plan another token authored, an expired or consumed plan, or a
//! plan whose settings file changed since it was shown, and never overwrite a corrupt receipt.

use super::config::{JournalOperation as Op, JournalStage as Stage};
use super::journal::{self, Journal, ReceiptChange, JOURNAL_VERSION};
use super::plans::{InstallPlan, PlanBody};
use super::receipt::{self, fingerprint, OwnedKey, Receipt};
use super::runtime::ReferenceRuntime;
use super::target::{self, Current};
use super::text::{refuse, say};
use crate::edit::{Reversal, SettingsDoc};
use devint::backend::LifecycleError;
use devint::backend::ToolAuthorization;
use devint::verbs::{
    ApplyMutation, ApplyOutcomeView, ApplyView, Level, PlanId, ReceiptId, Sha256Hex, StepId,
    StepOutcome, StepOutcomeView,
};
use devint::version::APPLY_OUTCOME_SINCE;
use devint_fs::durable;

impl ReferenceRuntime {
    pub(super) fn do_apply(
        &self,
        auth: &ToolAuthorization,
        plan_id: &PlanId,
    ) -> Result<ApplyView, LifecycleError> {
        let plan = self
            .plans
            .take(
                plan_id,
                auth.tool(),
                auth.token_id(),
                auth.now().get(),
                false,
            )
            .map_err(|r| refuse(r.to_string(), "plan again, then apply the new plan id"))?;
        let PlanBody::Install(plan) = plan.body else {
            return Err(refuse("not an install plan", "apply takes an install plan"));
        };
        if let Some(why) = &plan.blocked {
            return Err(refuse(
                format!("apply refused: {why}"),
                "fix the settings file by hand, then plan again",
            ));
        }
        self.recover()?;
        let tool = auth.tool().as_str();
        let scope = self.scope_key(plan.scope);
        let _lock = self.lock(tool, &scope)?;

        let current = Current::read(&plan.target)
            .map_err(|e| refuse(e.to_string(), "make the settings file readable, then retry"))?;
        if current.digest() != plan.pre_digest {
            return Err(refuse(
                "the settings file changed since this plan was made; nothing was written",
                "plan again so the plan shows what will be written now",
            ));
        }
        let receipt_path = self.layout.receipt(tool, &scope);
        let existing = receipt::load(&receipt_path).map_err(|e| {
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
        let doc = SettingsDoc::parse(plan.format, &prepared.text)
            .map_err(|e| refuse(e.to_string(), "report this settings file shape as a bug"))?;
        let before = SettingsDoc::parse(plan.format, current.text.as_deref().unwrap_or("")).ok();
        let step_ids = step_ids(&prepared.keys);
        let step_view = |outcome: StepOutcome| -> Vec<StepOutcomeView> {
            step_ids
                .iter()
                .map(|(id, cap)| {
                    let group: Vec<OwnedKey> = prepared
                        .keys
                        .iter()
                        .filter(|k| &k.capability == cap)
                        .cloned()
                        .collect();
                    let held_before = before
                        .as_ref()
                        .is_some_and(|b| group.iter().all(|k| k.holds(b.get(&k.path).as_ref())));
                    StepOutcomeView {
                        step_id: id.clone(),
                        outcome: match outcome {
                            StepOutcome::Applied if held_before => StepOutcome::Skipped,
                            o => o,
                        },
                        fingerprint: Sha256Hex::parse(&fingerprint(&group, |p| doc.get(p))).ok(),
                    }
                })
                .collect()
        };

        // Unchanged: the end state already holds and a receipt already records it.
        if !prepared.changed {
            if let Some(r) = existing.as_ref().filter(|r| covers(r, &prepared.keys)) {
                return Ok(ApplyView {
                    plan_id: plan_id.clone(),
                    receipt_id: ReceiptId::parse(&r.receipt_id)
                        .unwrap_or_else(|_| ReceiptId::random()),
                    applied_at_unix_secs: auth.now(),
                    steps: step_view(StepOutcome::Skipped),
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
        }

        let reversal = match &existing {
            // Keep the first install's originals: later priors are our own values.
            Some(first) => Reversal::compose(&first.reversal, &prepared.reversal)
                .map_err(|e| refuse(e.to_string(), "remove the integration, then install again"))?,
            None => prepared.reversal.clone(),
        };
        let keys = merge_keys(existing.as_ref().map(|r| r.keys.as_slice()), &prepared.keys);
        let receipt_id = ReceiptId::random();
        let new_receipt = Receipt {
            receipt_id: receipt_id.as_str().to_owned(),
            tool: tool.to_owned(),
            scope: plan.scope.token().to_owned(),
            target: plan.target.clone(),
            format: plan.format,
            profile: plan.profile.clone(),
            planned_level: plan.planned_level.token().to_owned(),
            installed_at: existing
                .as_ref()
                .map_or(auth.now().get(), |r| r.installed_at),
            updated_at: auth.now().get(),
            fingerprint: fingerprint(&keys, |p| doc.get(p)),
            keys,
            reversal,
            file_sha256: receipt::text_digest(&prepared.text),
        };
        let journal_path = self.layout.journal(tool, &scope);
        let record = Journal {
            version: JOURNAL_VERSION,
            operation: "apply".into(),
            tool: tool.to_owned(),
            scope: scope.clone(),
            target: plan.target.clone(),
            pre_digest: current.digest(),
            post_digest: Some(new_receipt.file_sha256.clone()),
            receipt: ReceiptChange::Write {
                receipt: Box::new(new_receipt.clone()),
            },
        };
        let failed = |detail: String, auth: &ToolAuthorization| {
            self.failed_apply(
                auth,
                plan_id,
                &plan,
                existing.as_ref(),
                detail,
                step_view(StepOutcome::Failed),
            )
        };
        if let Err(e) = journal::write(&journal_path, &record) {
            return failed(format!("the journal could not be written: {e}"), auth);
        }
        self.point(Op::Apply, Stage::JournalWritten);
        if prepared.changed {
            if let Err(e) = self.write_settings(&plan.target, &prepared.text) {
                if !e.target_changed() {
                    let _ = journal::remove(&journal_path);
                    return failed(e.to_string(), auth);
                }
            }
        }
        self.point(Op::Apply, Stage::TargetWritten);
        if let Err(e) = self.write_receipt(&receipt_path, &new_receipt) {
            // Put the file back as it was, then drop the journal; if that fails too, the
            // journal stays and recovery finishes the job.
            let restored = match &current.text {
                Some(text) => self.write_settings(&plan.target, text),
                None => durable::remove_durable(&plan.target).map(|_| ()),
            };
            if restored.is_ok() {
                let _ = journal::remove(&journal_path);
            }
            return failed(format!("the receipt could not be written: {e}"), auth);
        }
        self.point(Op::Apply, Stage::ReceiptWritten);
        if let Err(e) = journal::remove(&journal_path) {
            tracing::warn!(error = %e, "the journal could not be removed; recovery will");
        }
        self.point(Op::Apply, Stage::JournalRemoved);
        let detail = if prepared.changed {
            "the settings were written and a receipt recorded; run verify to record a fresh read-back"
        } else {
            "the settings already held these values; a receipt now records them"
        };
        Ok(ApplyView {
            plan_id: plan_id.clone(),
            receipt_id,
            applied_at_unix_secs: auth.now(),
            steps: step_view(StepOutcome::Applied),
            planned_level: plan.planned_level,
            achieved_level: Level::PartiallyIntegrated,
            outcome: Some(ApplyOutcomeView {
                mutation: ApplyMutation::Changed,
                detail: Some(say(detail)),
            }),
        })
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
            receipt_id: existing
                .and_then(|r| ReceiptId::parse(&r.receipt_id).ok())
                .unwrap_or_else(ReceiptId::random),
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

/// Whether `receipt` already records exactly these keys and the file as it is.
fn covers(receipt: &Receipt, keys: &[OwnedKey]) -> bool {
    keys.iter().all(|k| receipt.key(&k.path) == Some(k))
}

/// The receipt's keys after a re-install: earlier keys kept, later ones updated or added.
fn merge_keys(earlier: Option<&[OwnedKey]>, later: &[OwnedKey]) -> Vec<OwnedKey> {
    let mut keys: Vec<OwnedKey> = earlier.map(<[OwnedKey]>::to_vec).unwrap_or_default();
    for k in later {
        match keys.iter_mut().find(|e| e.path == k.path) {
            Some(e) => *e = k.clone(),
            None => keys.push(k.clone()),
        }
    }
    keys
}

/// The step ids (one per capability, render order) with their capability tokens.
pub(super) fn step_ids(keys: &[OwnedKey]) -> Vec<(StepId, String)> {
    let mut out: Vec<(StepId, String)> = Vec::new();
    for k in keys {
        if !out.iter().any(|(_, c)| c == &k.capability) {
            if let Ok(id) = StepId::parse(&k.capability) {
                out.push((id, k.capability.clone()));
            }
        }
    }
    out
}
