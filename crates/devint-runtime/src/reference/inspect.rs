//! Inspection of one (tool, scope) as it is now: its receipt (or why it cannot be
//! trusted), the settings file, and for each key we own whether it still holds our value.
//!
//! Owns the drift read, against what the policy asks **now**: the installed policy profile
//! is loaded and rendered again, and each key we own must hold the policy's current value
//! (our recorded value where the policy no longer sets that key or no longer loads). Our
//! value changed or gone → repairable drift; the policy's value changed since install → drift
//! that only a new plan fixes; other keys changed → reported, never touched; receipt missing
//! or corrupt → reported. It must never write anything, never treat a file's existence as
//! evidence of integration, and never let a file that differs from the policy read as
//! matching it.

use super::enforcement::Holding;
use super::policy_url::PolicyUrl;
use super::profile::{self, LoadedProfile, ProfileError};
use super::receipt::{self, fingerprint, OwnedKey, Receipt};
use super::runtime::ReferenceRuntime;
use super::target::{self, Current};
use crate::adapters;
use crate::edit::SettingsDoc;
use devint::verbs::{PolicyProfileId, SettingsScope};
use serde_json::Value;
use std::path::PathBuf;

/// One key we own, read back.
#[derive(Debug, Clone)]
pub struct KeyCheck {
    /// The key as recorded.
    pub key: OwnedKey,
    /// Whether it holds the value the policy asks for now.
    pub holds: bool,
    /// Whether it holds the value we recorded (`false`: changed since we wrote it, which
    /// repair restores; `true` while `holds` is `false`: the policy moved since install).
    pub recorded: bool,
}

impl KeyCheck {
    /// Whether only the policy moved: the file still holds what we wrote, which is no
    /// longer what the policy asks (repair cannot help; a new plan does).
    pub fn policy_moved(&self) -> bool {
        self.recorded && !self.holds
    }
}

/// The settings file read back against a receipt.
#[derive(Debug, Clone)]
pub struct ReadBack {
    /// Per key.
    pub keys: Vec<KeyCheck>,
    /// The fingerprint of our keys now.
    pub fingerprint: String,
    /// Whether bytes other than ours changed since we last wrote the file.
    pub others_changed: bool,
    /// Whether the file is gone.
    pub file_missing: bool,
}

impl ReadBack {
    /// Whether every key of ours holds our value.
    pub fn all_hold(&self) -> bool {
        self.keys.iter().all(|k| k.holds)
    }
}

/// What one (tool, scope) looks like now.
#[derive(Debug)]
pub enum ScopeState {
    /// A trusted receipt and the file read back against it.
    Installed {
        /// The scope.
        scope: SettingsScope,
        /// The receipt.
        receipt: Box<Receipt>,
        /// The read-back, or why the file could not be read or parsed.
        read_back: Result<ReadBack, String>,
        /// The receipt's policy profile as it loads now.
        policy: Box<Result<LoadedProfile, ProfileError>>,
        /// How that policy's controls hold in the tool at this scope now (`None` when it no
        /// longer loads or renders).
        holding: Option<Holding>,
    },
    /// A receipt that fails its integrity check.
    Corrupt {
        /// The scope.
        scope: SettingsScope,
        /// Why.
        why: String,
    },
}

impl ScopeState {
    /// The scope.
    pub fn scope(&self) -> SettingsScope {
        match self {
            ScopeState::Installed { scope, .. } | ScopeState::Corrupt { scope, .. } => *scope,
        }
    }
}

/// Reads `current` back against `receipt` and the keys the policy asks for now (`wanted`:
/// empty when the policy no longer loads, so each key is held to our recorded value).
pub fn read_back(
    receipt: &Receipt,
    current: &Current,
    wanted: &[OwnedKey],
) -> Result<ReadBack, String> {
    let text = current.text.as_deref().unwrap_or("");
    let doc = current
        .guarded(receipt.format, || SettingsDoc::parse(receipt.format, text))
        .map_err(|e| super::unusable::parse_sentence(&e, &current.path).unwrap_or(e.to_string()))?;
    let present = current.text.is_some();
    let keys = receipt
        .keys
        .iter()
        .map(|k| {
            let now = doc.get(&k.path);
            let recorded = present && k.holds(now.as_ref());
            let holds = match wanted.iter().find(|w| w.same_key(k)) {
                Some(w) if !same_value(&w.ours, &k.ours) => {
                    let asked = OwnedKey {
                        ours: w.ours.clone(),
                        ..k.clone()
                    };
                    present && asked.holds(now.as_ref())
                }
                _ => recorded,
            };
            KeyCheck {
                key: k.clone(),
                holds,
                recorded,
            }
        })
        .collect();
    Ok(ReadBack {
        keys,
        fingerprint: fingerprint(&receipt.keys, |p| doc.get(p)),
        others_changed: current.text.is_some() && receipt::text_digest(text) != receipt.file_sha256,
        file_missing: current.text.is_none(),
    })
}

/// Whether the policy's value now and the value we recorded are the same: equal, or two
/// strings naming the same URL (a gateway recorded before URLs were normalised has not moved).
fn same_value(wanted: &Value, recorded: &Value) -> bool {
    match (wanted, recorded) {
        (Value::String(a), Value::String(b)) => PolicyUrl::same(a, b),
        _ => wanted == recorded,
    }
}

impl ReferenceRuntime {
    /// The scope text used for a (tool, scope)'s files and lock: the project directory is
    /// part of the project scope, so two projects never share a receipt.
    pub(super) fn scope_key(&self, scope: SettingsScope) -> String {
        match (scope, &self.config.project_dir) {
            (SettingsScope::Project, Some(dir)) => format!("project:{}", dir.display()),
            _ => scope.token().to_owned(),
        }
    }

    /// The keys `policy` asks of the receipt's tool at its scope now, as a plan would render
    /// them for the version installed now, and how its controls hold there (no keys and no
    /// holding when it no longer renders).
    fn wanted(
        &self,
        receipt: &Receipt,
        policy: &LoadedProfile,
    ) -> (Vec<OwnedKey>, Option<Holding>) {
        let Some(descriptor) = adapters::find(receipt.tool.as_str()) else {
            return (Vec::new(), None);
        };
        let detected = self.detector.detect(descriptor);
        let Ok(rendered) = adapters::render(
            descriptor,
            &policy.intent(receipt.profile.profile),
            receipt.scope,
            &self.config.home,
            self.config.project_dir.as_deref(),
            detected.version.as_ref(),
        ) else {
            return (Vec::new(), None);
        };
        let keys = target::owned_keys(&rendered).unwrap_or_default();
        (keys, Some(Holding::of(&rendered)))
    }

    /// Every scope of `tool` that has a receipt (trusted or not), in scope order. Each
    /// settings file is read once, and each policy profile loaded once however many scopes
    /// it was installed at (one request reads a file at most once).
    pub(super) fn inspect_all(&self, tool: &str) -> Vec<ScopeState> {
        self.inspect_all_knowing(tool, &[])
    }

    /// [`Self::inspect_all`], taking a settings file's text from `known` (what this request
    /// read or wrote already) instead of reading it again.
    pub(super) fn inspect_all_knowing(&self, tool: &str, known: &[Current]) -> Vec<ScopeState> {
        let mut policies = Vec::new();
        self.receipts(tool)
            .into_iter()
            .map(|(scope, receipt)| match receipt {
                Ok(receipt) => self.inspect(scope, receipt, known, &mut policies),
                Err(why) => ScopeState::Corrupt { scope, why },
            })
            .collect()
    }

    /// Every scope of `tool` that has a receipt file, in scope order: the receipt, or why it
    /// cannot be trusted. Reads no settings file.
    pub(super) fn receipts(&self, tool: &str) -> Vec<(SettingsScope, Result<Receipt, String>)> {
        SettingsScope::ALL
            .iter()
            .filter_map(|scope| {
                let path = self.receipt_path(tool, *scope)?;
                match receipt::load(&path) {
                    Ok(None) => None,
                    Ok(Some(receipt)) => Some((*scope, Ok(receipt))),
                    Err(e) => Some((*scope, Err(e.to_string()))),
                }
            })
            .collect()
    }

    /// The receipt file of `tool` at `scope`, when that scope can have one (the project
    /// scope needs a project directory).
    pub(super) fn receipt_path(&self, tool: &str, scope: SettingsScope) -> Option<PathBuf> {
        if scope == SettingsScope::Project && self.config.project_dir.is_none() {
            return None;
        }
        Some(self.layout.receipt(tool, &self.scope_key(scope)))
    }

    /// One scope with a trusted receipt, its settings file read back against the policy;
    /// `policies` holds the profiles this request loaded already.
    fn inspect(
        &self,
        scope: SettingsScope,
        receipt: Receipt,
        known: &[Current],
        policies: &mut Vec<(PolicyProfileId, Result<LoadedProfile, ProfileError>)>,
    ) -> ScopeState {
        let id = &receipt.profile.policy_id;
        let policy = match policies.iter().find(|(known, _)| known == id) {
            Some((_, loaded)) => loaded.clone(),
            None => {
                let loaded = profile::load(
                    &self.layout.profiles(),
                    id,
                    self.config.gateway_base_url.as_ref(),
                );
                policies.push((id.clone(), loaded.clone()));
                loaded
            }
        };
        let (wanted, holding) = policy
            .as_ref()
            .map(|p| self.wanted(&receipt, p))
            .unwrap_or_default();
        let current = match known.iter().find(|c| c.path == receipt.target) {
            Some(c) => Ok(c.clone()),
            None => Current::read(&receipt.target).map_err(|e| e.to_string()),
        };
        let read_back = current.and_then(|c| read_back(&receipt, &c, &wanted));
        ScopeState::Installed {
            scope,
            receipt: Box::new(receipt),
            read_back,
            policy: Box::new(policy),
            holding,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::same_value;
    use serde_json::json;

    #[test]
    fn a_gateway_recorded_before_normalisation_has_not_moved() {
        assert!(same_value(
            &json!("http://127.0.0.1:9999"),
            &json!("HTTP://127.0.0.1:9999/")
        ));
        assert!(!same_value(
            &json!("http://127.0.0.1:8787/anthropic-v2"),
            &json!("http://127.0.0.1:8787/anthropic")
        ));
        assert!(same_value(&json!(["a"]), &json!(["a"])));
        assert!(!same_value(&json!(["a"]), &json!(["a", "b"])));
    }
}
