//! Inspection of one (tool, scope) as it is now: its receipt (or why it cannot be
//! trusted), the settings file, and for each key we own whether it still holds our value.
//!
//! Owns the drift read: our value changed or gone → repairable drift; other keys changed →
//! reported, never touched; receipt missing or corrupt → reported. It must never write
//! anything and never treat a file's existence as evidence of integration.

use super::receipt::{self, fingerprint, OwnedKey, Receipt};
use super::runtime::ReferenceRuntime;
use super::target::Current;
use crate::edit::SettingsDoc;
use devint::verbs::SettingsScope;

/// One key we own, read back.
#[derive(Debug, Clone)]
pub struct KeyCheck {
    /// The key as recorded.
    pub key: OwnedKey,
    /// Whether it holds our value now.
    pub holds: bool,
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

/// Reads `current` back against `receipt`.
pub fn read_back(receipt: &Receipt, current: &Current) -> Result<ReadBack, String> {
    let text = current.text.as_deref().unwrap_or("");
    let doc = current
        .guarded(receipt.format, || SettingsDoc::parse(receipt.format, text))
        .map_err(|e| e.to_string())?;
    let keys = receipt
        .keys
        .iter()
        .map(|k| KeyCheck {
            key: k.clone(),
            holds: current.text.is_some() && k.holds(doc.get(&k.path).as_ref()),
        })
        .collect();
    Ok(ReadBack {
        keys,
        fingerprint: fingerprint(&receipt.keys, |p| doc.get(p)),
        others_changed: current.text.is_some() && receipt::text_digest(text) != receipt.file_sha256,
        file_missing: current.text.is_none(),
    })
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

    /// Every scope of `tool` that has a receipt (trusted or not), in scope order.
    pub(super) fn inspect_all(&self, tool: &str) -> Vec<ScopeState> {
        SettingsScope::ALL
            .iter()
            .filter_map(|scope| self.inspect(tool, *scope))
            .collect()
    }

    /// One scope, or `None` when it has no receipt.
    pub(super) fn inspect(&self, tool: &str, scope: SettingsScope) -> Option<ScopeState> {
        if scope == SettingsScope::Project && self.config.project_dir.is_none() {
            return None;
        }
        let path = self.layout.receipt(tool, &self.scope_key(scope));
        match receipt::load(&path) {
            Ok(None) => None,
            Ok(Some(receipt)) => {
                let read_back = Current::read(&receipt.target)
                    .map_err(|e| e.to_string())
                    .and_then(|c| read_back(&receipt, &c));
                Some(ScopeState::Installed {
                    scope,
                    receipt: Box::new(receipt),
                    read_back,
                })
            }
            Err(e) => Some(ScopeState::Corrupt {
                scope,
                why: e.to_string(),
            }),
        }
    }
}
