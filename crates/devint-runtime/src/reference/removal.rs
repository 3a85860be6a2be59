//! `remove`: a preview (no plan id) that mutates nothing and stores a removal plan bound to
//! the token; and its execution, journaled: every displaced value restored, every key we
//! added deleted, user changes kept, a file we created deleted when nothing of the user's
//! is left, residuals reported. An untouched file comes back byte-identical.
//!
//! It must never overwrite a value the user set on one of our keys, never remove anything
//! through a corrupt receipt, never execute a removal plan another token authored, and never
//! remove an integration applied or repaired after the preview its plan was made from.

use super::config::{JournalOperation as Op, JournalStage as Stage};
use super::convert::{self, artifact, key_ref};
use super::journal::{self, Journal, ReceiptChange, JOURNAL_VERSION};
use super::plans::{PlanBody, RemovalPlan};
use super::receipt::{self, Receipt};
use super::runtime::ReferenceRuntime;
use super::target::{self, Current};
use super::text::{refuse, say};
use crate::edit::{FileAction, KeyOutcome, OriginalFile, Restoration};
use devint::backend::LifecycleError;
use devint::backend::ToolAuthorization;
use devint::verbs::{
    ActionKind, Digest, ManagedRef, PlanId, Privilege, RemovalView, Requirement, SettingsScope,
    StepId, StepView,
};
use devint::version::LIFECYCLE_SCHEMA_VERSION;
use devint_fs::durable;

/// What removing one scope yields: steps, residuals and warnings for the view.
struct ScopeRemoval {
    steps: Vec<StepView>,
    residual: Vec<ManagedRef>,
    warnings: Vec<String>,
}

impl ReferenceRuntime {
    pub(super) fn do_remove(
        &self,
        auth: &ToolAuthorization,
        plan: Option<&PlanId>,
    ) -> Result<RemovalView, LifecycleError> {
        self.descriptor(auth)?;
        match plan {
            None => self.preview_removal(auth),
            Some(id) => self.execute_removal(auth, id),
        }
    }

    fn preview_removal(&self, auth: &ToolAuthorization) -> Result<RemovalView, LifecycleError> {
        let tool = auth.tool().as_str();
        let mut view = self.empty_removal(auth, PlanId::random());
        let mut scopes = Vec::new();
        // The receipts alone: each settings file is read once, here, not read back first.
        for (scope, receipt) in self.receipts(tool) {
            match receipt {
                Err(why) => view.warnings.push(say(format!(
                    "{} scope: {why}; nothing there can be removed automatically",
                    scope.token()
                ))),
                Ok(receipt) => {
                    let current = Current::read(&receipt.target)
                        .map_err(|e| super::unusable::read_refusal(&e, "retry"))?;
                    match target::restore(&receipt, &current) {
                        Ok(r) => {
                            self.describe(&receipt, &current, &r, &mut view);
                            scopes.push((scope, receipt.receipt_id.clone()));
                        }
                        Err(e) => view.warnings.push(say(format!(
                            "{} scope cannot be removed automatically: {e}",
                            scope.token()
                        ))),
                    }
                }
            }
        }
        if scopes.is_empty() && view.warnings.is_empty() {
            view.warnings.push(say(
                "nothing is installed for this tool; removal would change nothing",
            ));
        }
        self.keep_plan(
            auth,
            view.plan_id.clone(),
            PlanBody::Removal(RemovalPlan { scopes }),
        );
        Ok(view)
    }

    fn execute_removal(
        &self,
        auth: &ToolAuthorization,
        id: &PlanId,
    ) -> Result<RemovalView, LifecycleError> {
        // A request already past its deadline changes nothing, and its plan stays usable.
        auth.cancel_signal().check()?;
        let plan = self
            .plans
            .take_removal(id, auth.tool(), auth.token_id(), auth.now())
            .map_err(|r| {
                refuse(
                    r.to_string(),
                    "preview the removal again, then remove with the new plan id",
                )
            })?;
        self.recover()?;
        let tool = auth.tool().as_str();
        let mut view = self.empty_removal(auth, id.clone());
        let mut written = 0usize;
        for (scope, previewed) in plan.scopes {
            let key = self.scope_key(scope);
            let _lock = self.lock(tool, &key)?;
            let receipt_path = self.layout.receipt(tool, &key);
            let receipt = match receipt::load(&receipt_path) {
                Ok(Some(r)) => r,
                Ok(None) => continue,
                Err(e) => {
                    view.warnings.push(say(e.to_string()));
                    continue;
                }
            };
            if receipt.receipt_id != previewed {
                let why = format!(
                    "the {} scope's integration changed since this removal was previewed (applied or repaired again)",
                    scope.token()
                );
                if written == 0 {
                    return Err(refuse(
                        why,
                        "preview the removal again, then remove with the new plan id",
                    ));
                }
                view.warnings
                    .push(say(format!("{why}; it was not removed: remove again")));
                break;
            }
            self.sweep(tool, &key, &receipt.target);
            let current = Current::read(&receipt.target)
                .map_err(|e| super::unusable::read_refusal(&e, "retry"))?;
            let restoration = target::restore(&receipt, &current).map_err(|e| {
                refuse(
                    e.to_string(),
                    "fix the settings file by hand, then remove again",
                )
            })?;
            // Each scope's journal is its point of no return: past the deadline, a removal
            // that wrote nothing yet stops with nothing changed; one that removed a scope
            // already reports it and names the scope it left.
            if auth.cancel_signal().is_raised() {
                if written == 0 {
                    auth.cancel_signal().check()?;
                }
                view.warnings.push(say(format!(
                    "the {} scope was not removed: the request passed its deadline; remove again",
                    scope.token()
                )));
                break;
            }
            self.describe(&receipt, &current, &restoration, &mut view);
            self.write_removal(&receipt, &receipt_path, &key, &current, &restoration)?;
            written += 1;
        }
        Ok(view)
    }

    fn write_removal(
        &self,
        receipt: &Receipt,
        receipt_path: &std::path::Path,
        scope_key: &str,
        current: &Current,
        restoration: &Restoration,
    ) -> Result<(), LifecycleError> {
        let journal_path = self.layout.journal(receipt.tool.as_str(), scope_key);
        let record = Journal {
            version: JOURNAL_VERSION,
            operation: Op::Remove,
            tool: receipt.tool.clone(),
            scope: scope_key.to_owned(),
            target: receipt.target.clone(),
            pre_digest: current.digest(),
            post_digest: target::action_digest(&restoration.file, current),
            receipt: ReceiptChange::Delete {
                receipt_id: receipt.receipt_id.clone(),
            },
        };
        let fail = |e: &dyn std::fmt::Display| {
            refuse(
                format!("remove failed: {e}"),
                "fix the cause named here, then remove again",
            )
        };
        journal::write(&journal_path, &record).map_err(|e| fail(&e))?;
        self.point(Op::Remove, Stage::JournalWritten);
        let written = match &restoration.file {
            FileAction::Write(text) => self.write_settings(receipt, text),
            FileAction::Delete => durable::remove_durable(&receipt.target).map(|_| ()),
            FileAction::Leave => Ok(()),
        };
        if let Err(e) = written {
            if !e.target_changed() {
                let _ = journal::remove(&journal_path);
                return Err(fail(&e));
            }
        }
        self.point(Op::Remove, Stage::TargetWritten);
        // If the receipt cannot be removed the journal stays: recovery rolls it forward.
        durable::remove_durable(receipt_path).map_err(|e| fail(&e))?;
        let _ = durable::remove_durable(&self.layout.evidence(receipt.tool.as_str(), scope_key));
        self.point(Op::Remove, Stage::ReceiptWritten);
        let _ = journal::remove(&journal_path);
        self.point(Op::Remove, Stage::JournalRemoved);
        Ok(())
    }

    fn empty_removal(&self, auth: &ToolAuthorization, plan_id: PlanId) -> RemovalView {
        RemovalView {
            schema_version: LIFECYCLE_SCHEMA_VERSION,
            plan_id,
            tool_id: auth.tool().clone(),
            steps: Vec::new(),
            residual: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Adds one scope's steps, residuals and warnings to `view`.
    fn describe(
        &self,
        receipt: &Receipt,
        current: &Current,
        restoration: &Restoration,
        view: &mut RemovalView,
    ) {
        let part = self.removal_part(receipt, current, restoration);
        view.steps.extend(part.steps);
        for r in part.residual {
            if !view.residual.contains(&r) {
                view.residual.push(r);
            }
        }
        view.warnings.extend(part.warnings.iter().map(say));
    }

    fn removal_part(
        &self,
        receipt: &Receipt,
        current: &Current,
        restoration: &Restoration,
    ) -> ScopeRemoval {
        let shown = artifact(&receipt.target, &self.config.home);
        let file = shown
            .as_ref()
            .map(|a| a.as_str().to_owned())
            .unwrap_or_else(|| "the settings file".into());
        let privileged = receipt.scope == SettingsScope::Managed;
        let digest =
            target::action_digest(&restoration.file, current).and_then(|d| Digest::parse(&d).ok());
        let mut steps: Vec<StepView> = Vec::new();
        for k in &receipt.keys {
            let id = format!(
                "remove-{}-{}",
                receipt.scope.token(),
                k.capability.token().replace('_', "-")
            );
            let Ok(id) = StepId::parse(&id) else { continue };
            let name = convert::key_name(&k.path);
            if let Some(step) = steps.iter_mut().find(|s| s.id == id) {
                step.managed_keys.extend(name);
                continue;
            }
            let kind = match k.action_kind {
                ActionKind::InstallHook => ActionKind::RemoveHook,
                other => other,
            };
            steps.push(StepView {
                id,
                summary: say(format!("Restore the original {} settings in {file}", k.capability)),
                action_kind: kind,
                requirement: Requirement::Required,
                privilege: if privileged {
                    Privilege::PrivilegedHost
                } else {
                    Privilege::User
                },
                consent_prompt: privileged.then(|| {
                    say(format!(
                        "Consent to this step on its own: it rewrites {file}, a host-wide file that needs administrator rights"
                    ))
                }),
                settings_scope: receipt.scope,
                managed_keys: name.into_iter().collect(),
                artifact_paths: shown.iter().cloned().collect(),
                content_sha256: digest.clone(),
                reversible: false,
            });
        }
        let (residual, mut warnings) = residuals(restoration, &file);
        if let (FileAction::Write(_), false) = (&restoration.file, restoration.exact) {
            warnings.push(if receipt.reversal.withheld {
                format!(
                    "{file} will not come back byte for byte: a value in it looked like a credential, so its original bytes were never stored; our keys are taken out one by one and everything else is left as it is"
                )
            } else if receipt.reversal.original == OriginalFile::Absent {
                format!(
                    "{file} stays: devint created it, but it now also holds settings devint did not write (added since by you or by the tool), so only devint's keys are taken out"
                )
            } else {
                format!(
                    "{file} will not be byte for byte as before devint: what was changed in it since (by you or by the tool) is kept, and only devint's keys are taken out"
                )
            });
        }
        ScopeRemoval {
            steps,
            residual,
            warnings,
        }
    }
}

/// The keys removal cannot give back as they were (withheld priors, values the user changed)
/// and the warnings that say so.
fn residuals(restoration: &Restoration, file: &str) -> (Vec<ManagedRef>, Vec<String>) {
    let mut residual = Vec::new();
    let mut warnings = Vec::new();
    for k in &restoration.keys {
        match k.outcome {
            KeyOutcome::WithheldResidual => {
                residual.extend(key_ref(&k.path));
                warnings.push(format!(
                    "{} held a credential-shaped value before install that was never stored; set it again yourself",
                    k.path
                ));
            }
            KeyOutcome::KeptUserChange => {
                residual.extend(key_ref(&k.path));
                warnings.push(format!(
                    "{} was changed by you since install; your value is kept",
                    k.path
                ));
            }
            KeyOutcome::FileMissing => {
                warnings.push(format!("{file} no longer exists; nothing is recreated"))
            }
            KeyOutcome::Restored | KeyOutcome::Deleted => {}
        }
    }
    if restoration.file == FileAction::Delete {
        warnings.push(format!("{file} will be deleted: it was created for the integration and nothing of yours is in it"));
    }
    warnings.dedup();
    (residual, warnings)
}
