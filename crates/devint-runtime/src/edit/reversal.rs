//! [`Reversal`]: the receipt-ready record that undoes an [`EditPlan`](super::EditPlan) apply.
//!
//! Owns the two ways back — the byte-exact undo of recorded splices when the file is exactly
//! as we left it, and the key-by-key semantic restore when the user edited it meanwhile — and
//! composing a re-install with the first install. It must never touch a key that is not ours,
//! never overwrite a value the user set on one of our keys, and never hold a withheld value.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::splice::{digest, Splice};
use super::{EditError, KeyPath, SettingsDoc, SettingsFormat};

/// The version of the [`Reversal`] record this build writes and reads.
pub const REVERSAL_VERSION: u32 = 1;

/// How to undo one apply. Serialisable; keep the **first** install's record (compose later
/// ones into it with [`Reversal::compose`]) so the user's originals are never replaced by
/// our own earlier values.
///
/// Exactness: when the current text's SHA-256 equals the post-apply digest, the recorded
/// splices are undone in reverse order and the result is checked against the pre-apply
/// digest — byte-identical by construction. Splices are recorded only when none of their
/// removed bytes holds a withheld value and no displaced prior was withheld (a withheld value
/// cannot be restored, so byte identity is impossible anyway); otherwise `exact` is `None`
/// and removal always takes the semantic path, reporting withheld keys as residual.
///
/// Comments on the semantic path: comment lines the user wrote above one of our keys or
/// tables stay in the file (in TOML they move to the next key or table, or to the end);
/// a comment on our key's own line or inside our value goes with it. An object/table we
/// created is pruned only when it holds no key (and, in JSONC, no comment).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reversal {
    /// Record version ([`REVERSAL_VERSION`]).
    pub version: u32,
    /// The file's format.
    pub format: SettingsFormat,
    /// What the file was before the first apply.
    pub original: OriginalFile,
    /// Our keys, in apply order, with what they displaced.
    pub keys: Vec<KeyReversal>,
    /// Our elements in shared arrays, in apply order.
    #[serde(default)]
    pub elements: Vec<ElementReversal>,
    /// Objects/tables we created, outermost first; pruned on removal when left empty.
    pub created: Vec<KeyPath>,
    /// The byte-exact undo, when it could be recorded.
    pub exact: Option<ExactUndo>,
    /// Whether a value was withheld as credential-shaped (a displaced prior, or bytes a
    /// splice would have had to store): the byte-exact undo was then never recorded, and a
    /// removal preview says the file will not come back byte for byte, and why. Absent in
    /// records that withheld nothing (so their sealed form is unchanged).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withheld: bool,
}

/// What the file was before we first touched it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OriginalFile {
    /// The file did not exist: removal deletes it when nothing of the user's is left.
    Absent,
    /// The file held only whitespace (kept here: it carries no value).
    Blank {
        /// The whitespace.
        text: String,
    },
    /// The file held a document.
    Present,
}

/// One key of ours and what it displaced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeyReversal {
    /// The key.
    pub path: KeyPath,
    /// What it held before the first install.
    pub prior: PriorRecord,
    /// SHA-256 of the canonical JSON of the value we last installed (not the value itself).
    pub installed_digest: String,
}

impl KeyReversal {
    /// Whether `value` is the value we installed (drift read-back).
    pub fn holds_ours(&self, value: &Value) -> bool {
        value_digest(value) == self.installed_digest
    }
}

/// One element of ours in a shared array.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElementReversal {
    /// The array's key.
    pub path: KeyPath,
    /// SHA-256 of the canonical JSON of the element (not the element itself).
    pub element_digest: String,
    /// An equal element was there before we came: reversal leaves it.
    pub was_present: bool,
}

impl ElementReversal {
    /// Whether `value` is our element.
    pub fn is_ours(&self, value: &Value) -> bool {
        value_digest(value) == self.element_digest
    }
}

/// A prior value as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PriorRecord {
    /// The key did not exist; removal deletes it.
    Absent,
    /// The key held this value; removal puts it back.
    Present {
        /// The displaced value.
        value: Value,
    },
    /// The key held a value the caller withheld (credential-shaped); it is not stored, and
    /// removal deletes our value and reports the key as residual.
    Withheld,
}

/// The byte-exact undo of an apply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExactUndo {
    /// Hex SHA-256 of the text before (empty text for an absent file).
    pub pre_digest: String,
    /// Hex SHA-256 of the text we produced.
    pub post_digest: String,
    /// The splices, in the order they were made.
    pub splices: Vec<Splice>,
}

/// What the caller should do with the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileAction {
    /// Write this text (durably).
    Write(String),
    /// Delete the file: we created it and nothing of the user's is in it.
    Delete,
    /// Do nothing: the file is absent now.
    Leave,
}

/// What happened to one of our keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyOutcome {
    /// The displaced value is back.
    Restored,
    /// The key did not exist before and is gone.
    Deleted,
    /// The user set another value on our key meanwhile; theirs was kept.
    KeptUserChange,
    /// Our value is gone but the displaced value was withheld: residual, the user must set
    /// it again.
    WithheldResidual,
    /// The file no longer exists (the user deleted it); nothing was recreated.
    FileMissing,
}

/// One key's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRestoration {
    /// The key.
    pub path: KeyPath,
    /// What happened.
    pub outcome: KeyOutcome,
}

/// The result of [`Reversal::reverse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restoration {
    /// What to do with the file.
    pub file: FileAction,
    /// Each of our keys, in apply order.
    pub keys: Vec<KeyRestoration>,
    /// Each of our array elements, in apply order: `Deleted` (removed), `Restored` (it was
    /// the user's before; left), `KeptUserChange` (the user already removed it).
    pub elements: Vec<KeyRestoration>,
    /// Whether the byte-exact undo was used.
    pub exact: bool,
}

impl Restoration {
    /// Keys whose original value could not be restored because it was withheld.
    pub fn residual(&self) -> impl Iterator<Item = &KeyPath> {
        self.keys
            .iter()
            .filter(|k| k.outcome == KeyOutcome::WithheldResidual)
            .map(|k| &k.path)
    }
}

/// Canonical JSON (object keys sorted) of a value.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&map[k])))
                    .collect::<Map<_, _>>(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// Hex SHA-256 of a value's canonical JSON.
pub(super) fn value_digest(value: &Value) -> String {
    hex::encode(Sha256::digest(canonical(value).to_string().as_bytes()))
}

impl Reversal {
    /// Undoes the apply on the file as it is now (`None`: absent): byte-exact when the file
    /// is untouched, otherwise [`Reversal::reverse_semantic`].
    pub fn reverse(&self, current: Option<&str>) -> Result<Restoration, EditError> {
        self.check_version()?;
        if let (Some(text), Some(exact)) = (current, &self.exact) {
            if digest(text) == exact.post_digest {
                let undone = exact
                    .splices
                    .iter()
                    .rev()
                    .try_fold(text.to_owned(), |t, s| s.undo(&t));
                if let Some(original) = undone.filter(|t| digest(t) == exact.pre_digest) {
                    let file = match self.original {
                        OriginalFile::Absent => FileAction::Delete,
                        _ => FileAction::Write(original),
                    };
                    let keys = self.outcomes(|k| match k.prior {
                        PriorRecord::Absent => KeyOutcome::Deleted,
                        PriorRecord::Present { .. } => KeyOutcome::Restored,
                        PriorRecord::Withheld => KeyOutcome::WithheldResidual,
                    });
                    let elements = self.element_outcomes(|e| {
                        if e.was_present {
                            KeyOutcome::Restored
                        } else {
                            KeyOutcome::Deleted
                        }
                    });
                    return Ok(Restoration {
                        file,
                        keys,
                        elements,
                        exact: true,
                    });
                }
            }
        }
        self.reverse_semantic(current)
    }

    /// Restores our keys one by one on the file as it is now, keeping every other change:
    /// a key still holding our value — or one the user removed — goes back to its prior
    /// (deleted if it had none); a key the user set to another value is kept; our array
    /// entries are removed where still present; objects/tables/arrays we created are pruned
    /// if now empty; a file we created is deleted if nothing of the user's is left.
    pub fn reverse_semantic(&self, current: Option<&str>) -> Result<Restoration, EditError> {
        self.check_version()?;
        let Some(text) = current else {
            let outcome = match self.original {
                OriginalFile::Absent => KeyOutcome::Deleted,
                _ => KeyOutcome::FileMissing,
            };
            return Ok(Restoration {
                file: FileAction::Leave,
                keys: self.outcomes(|_| outcome),
                elements: self.element_outcomes(|_| outcome),
                exact: false,
            });
        };
        let mut doc = SettingsDoc::parse(self.format, text)?;
        let mut elements = Vec::with_capacity(self.elements.len());
        for element in self.elements.iter().rev() {
            let outcome = if element.was_present {
                KeyOutcome::Restored
            } else if doc.remove_element(&element.path, |v| element.is_ours(v)) {
                KeyOutcome::Deleted
            } else {
                KeyOutcome::KeptUserChange
            };
            elements.push(KeyRestoration {
                path: element.path.clone(),
                outcome,
            });
        }
        elements.reverse();
        let mut outcomes = Vec::with_capacity(self.keys.len());
        for key in self.keys.iter().rev() {
            let current = doc.get(&key.path);
            let outcome = if current.as_ref().is_some_and(|v| !key.holds_ours(v)) {
                KeyOutcome::KeptUserChange
            } else {
                match &key.prior {
                    PriorRecord::Absent => {
                        doc.remove(&key.path);
                        KeyOutcome::Deleted
                    }
                    PriorRecord::Present { value } => match doc.set(&key.path, value.clone()) {
                        Ok(_) => KeyOutcome::Restored,
                        // The user turned a container on the way into a value: theirs stays.
                        Err(EditError::NotAContainer { .. }) => KeyOutcome::KeptUserChange,
                        Err(e) => return Err(e),
                    },
                    PriorRecord::Withheld => {
                        doc.remove(&key.path);
                        KeyOutcome::WithheldResidual
                    }
                }
            };
            outcomes.push(KeyRestoration {
                path: key.path.clone(),
                outcome,
            });
        }
        outcomes.reverse();
        for container in self.created.iter().rev() {
            if doc.is_empty_container(container) {
                doc.remove(container);
            }
        }
        let file = match (&self.original, doc.is_blank()) {
            (OriginalFile::Absent, true) => FileAction::Delete,
            (OriginalFile::Blank { text }, true) => FileAction::Write(text.clone()),
            _ => FileAction::Write(doc.to_string()),
        };
        Ok(Restoration {
            file,
            keys: outcomes,
            elements,
            exact: false,
        })
    }

    /// Folds a later install's record into the first one: priors of keys the first install
    /// already owned stay the first install's (the later "priors" are our own values); keys
    /// new in `later` bring their priors; the installed digests become the later values'. The
    /// byte-exact undo survives only when `later` was applied to the text `first` produced.
    pub fn compose(first: &Reversal, later: &Reversal) -> Result<Reversal, EditError> {
        first.check_version()?;
        later.check_version()?;
        if first.format != later.format {
            return Err(EditError::FormatMismatch {
                recorded: first.format,
                actual: later.format,
            });
        }
        let mut keys = first.keys.clone();
        for key in &later.keys {
            match keys.iter_mut().find(|k| k.path == key.path) {
                Some(known) => known.installed_digest = key.installed_digest.clone(),
                None => keys.push(key.clone()),
            }
        }
        let mut elements = first.elements.clone();
        for element in &later.elements {
            let known = elements
                .iter()
                .any(|e| e.path == element.path && e.element_digest == element.element_digest);
            if !known {
                elements.push(element.clone());
            }
        }
        let mut created = first.created.clone();
        for path in &later.created {
            if !created.contains(path) {
                created.push(path.clone());
            }
        }
        let exact = match (&first.exact, &later.exact) {
            (Some(a), Some(b)) if b.pre_digest == a.post_digest => Some(ExactUndo {
                pre_digest: a.pre_digest.clone(),
                post_digest: b.post_digest.clone(),
                splices: a.splices.iter().chain(&b.splices).cloned().collect(),
            }),
            _ => None,
        };
        Ok(Reversal {
            version: REVERSAL_VERSION,
            format: first.format,
            original: first.original.clone(),
            keys,
            elements,
            created,
            exact,
            withheld: first.withheld || later.withheld,
        })
    }

    fn outcomes(&self, outcome: impl Fn(&KeyReversal) -> KeyOutcome) -> Vec<KeyRestoration> {
        self.keys
            .iter()
            .map(|k| KeyRestoration {
                path: k.path.clone(),
                outcome: outcome(k),
            })
            .collect()
    }

    fn element_outcomes(
        &self,
        outcome: impl Fn(&ElementReversal) -> KeyOutcome,
    ) -> Vec<KeyRestoration> {
        self.elements
            .iter()
            .map(|e| KeyRestoration {
                path: e.path.clone(),
                outcome: outcome(e),
            })
            .collect()
    }

    fn check_version(&self) -> Result<(), EditError> {
        if self.version == REVERSAL_VERSION {
            Ok(())
        } else {
            Err(EditError::UnsupportedReversal {
                found: self.version,
                supported: REVERSAL_VERSION,
            })
        }
    }
}
