//! [`EditPlan`]: the keys we own in one settings file and the values we give them.
//!
//! Owns applying those edits to the current text and recording how to undo them; it must
//! never return text that does not re-parse to exactly "the original plus our keys", and
//! never record a prior value the caller's predicate withholds.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::reversal::{value_digest, ExactUndo};
use super::splice::{digest, Splice};
use super::{
    value_add_element, value_set, EditError, ElementReversal, KeyPath, KeyReversal, OriginalFile,
    Prior, PriorRecord, Reversal, SettingsDoc, SettingsFormat, REVERSAL_VERSION,
};

/// One key we own and the value we give it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeyEdit {
    /// Where the key lives.
    pub path: KeyPath,
    /// The value we write.
    pub value: Value,
}

/// One element we own inside an array the user may share (a hook entry in
/// `hooks.PreToolUse`, a rule in `permissions.deny`): added unless an equal element is there,
/// removed on reversal only if we added it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElementEdit {
    /// The array's key.
    pub path: KeyPath,
    /// The element we add.
    pub element: Value,
}

/// An ordered set of key edits (whole keys we own), then element edits (entries we own in
/// shared arrays), for one settings file of one format.
#[derive(Clone, Debug, PartialEq)]
pub struct EditPlan {
    format: SettingsFormat,
    edits: Vec<KeyEdit>,
    elements: Vec<ElementEdit>,
}

/// The result of [`EditPlan::apply`]: the text to write and the record that undoes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// The new file text.
    pub text: String,
    /// Whether `text` differs from the file as it was (an absent file counts as different
    /// from any text); when `false` nothing needs writing.
    pub changed: bool,
    /// How to undo this apply; keep it in the receipt.
    pub reversal: Reversal,
}

impl EditPlan {
    /// A plan; refuses key paths that repeat or nest inside one another (their priors would
    /// shadow each other).
    pub fn new(format: SettingsFormat, edits: Vec<KeyEdit>) -> Result<Self, EditError> {
        for (i, a) in edits.iter().enumerate() {
            for b in &edits[i + 1..] {
                if a.path.starts_with(&b.path) || b.path.starts_with(&a.path) {
                    return Err(EditError::OverlappingKeys {
                        first: a.path.clone(),
                        second: b.path.clone(),
                    });
                }
            }
        }
        Ok(Self {
            format,
            edits,
            elements: Vec::new(),
        })
    }

    /// Adds element edits; an array path must not lie inside, or contain, a key we own whole.
    pub fn with_elements(mut self, elements: Vec<ElementEdit>) -> Result<Self, EditError> {
        for element in &elements {
            if let Some(key) = self
                .edits
                .iter()
                .find(|k| k.path.starts_with(&element.path) || element.path.starts_with(&k.path))
            {
                return Err(EditError::OverlappingKeys {
                    first: key.path.clone(),
                    second: element.path.clone(),
                });
            }
        }
        self.elements = elements;
        Ok(self)
    }

    /// The element edits, applied after the key edits.
    pub fn elements(&self) -> &[ElementEdit] {
        &self.elements
    }

    /// The format this plan edits.
    pub fn format(&self) -> SettingsFormat {
        self.format
    }

    /// The edits, in the order they are applied.
    pub fn edits(&self) -> &[KeyEdit] {
        &self.edits
    }

    /// Applies the edits to `current` (`None`: the file does not exist).
    ///
    /// `withhold(path, value)` is asked about every prior value we displace and about every
    /// value in the original document; where it answers `true` the value is never stored in
    /// the [`Reversal`]: a displaced prior is recorded as [`PriorRecord::Withheld`], and the
    /// byte-exact undo is dropped when any recorded splice would hold a withheld value (so
    /// removal then falls back to the semantic restore and reports the key as residual).
    pub fn apply(
        &self,
        current: Option<&str>,
        withhold: impl Fn(&KeyPath, &Value) -> bool,
    ) -> Result<Applied, EditError> {
        let original = current.unwrap_or("");
        let mut doc = SettingsDoc::parse(self.format, original)?;
        let mismatch = |detail| EditError::ReadBackMismatch {
            format: self.format,
            detail,
        };
        let before = doc
            .to_value()
            .ok_or_else(|| mismatch("the original holds a value with no JSON form"))?;
        let original_file = match current {
            None => OriginalFile::Absent,
            Some(text) if text.trim().is_empty() => OriginalFile::Blank {
                text: text.to_owned(),
            },
            Some(_) => OriginalFile::Present,
        };

        let mut text = original.to_owned();
        let mut splices = Vec::new();
        let mut keys = Vec::new();
        let mut created = Vec::new();
        let mut any_withheld = false;
        for edit in &self.edits {
            let outcome = doc.set(&edit.path, edit.value.clone())?;
            let next = doc.to_string();
            splices.extend(Splice::between(&text, &next));
            text = next;
            let prior = match outcome.prior {
                Prior::Absent => PriorRecord::Absent,
                Prior::Present(value) if withhold(&edit.path, &value) => {
                    any_withheld = true;
                    PriorRecord::Withheld
                }
                Prior::Present(value) => PriorRecord::Present { value },
            };
            keys.push(KeyReversal {
                path: edit.path.clone(),
                prior,
                installed_digest: value_digest(&edit.value),
            });
            created.extend(outcome.created);
        }
        let mut elements = Vec::new();
        for edit in &self.elements {
            let outcome = doc.add_element(&edit.path, edit.element.clone())?;
            let next = doc.to_string();
            splices.extend(Splice::between(&text, &next));
            text = next;
            elements.push(ElementReversal {
                path: edit.path.clone(),
                element_digest: value_digest(&edit.element),
                was_present: outcome.already_present,
            });
            created.extend(outcome.created);
        }

        self.read_back(&before, &text)?;
        // A withheld value cannot be restored, so byte identity is impossible anyway; and no
        // recorded splice may hold one.
        let withheld = any_withheld || holds_withheld(&splices, &before, &withhold);
        let exact = (!withheld).then(|| ExactUndo {
            pre_digest: digest(original),
            post_digest: digest(&text),
            splices,
        });
        let changed = match current {
            Some(current) => current != text,
            None => !text.is_empty(),
        };
        Ok(Applied {
            reversal: Reversal {
                version: REVERSAL_VERSION,
                format: self.format,
                original: original_file,
                keys,
                elements,
                created,
                exact,
                withheld,
            },
            changed,
            text,
        })
    }
}

impl EditPlan {
    /// The new text must parse and mean exactly the original (`before`) plus our keys.
    fn read_back(&self, before: &Value, text: &str) -> Result<(), EditError> {
        let mismatch = |detail| EditError::ReadBackMismatch {
            format: self.format,
            detail,
        };
        let mut expected = before.clone();
        for edit in &self.edits {
            value_set(&mut expected, &edit.path, edit.value.clone());
        }
        for edit in &self.elements {
            value_add_element(&mut expected, &edit.path, edit.element.clone());
        }
        let reread = SettingsDoc::parse(self.format, text)
            .map_err(|_| mismatch("the edited text does not parse"))?;
        if reread.to_value().as_ref() != Some(&expected) {
            return Err(mismatch("keys other than ours changed meaning"));
        }
        Ok(())
    }
}

/// Whether any splice removed bytes holding a value of `before` the predicate withholds.
fn holds_withheld(
    splices: &[Splice],
    before: &Value,
    withhold: &impl Fn(&KeyPath, &Value) -> bool,
) -> bool {
    let secrets = withheld_texts(before, withhold);
    splices.iter().any(|s| {
        secrets
            .iter()
            .any(|secret| s.removed.contains(secret.as_str()))
    })
}

/// Every textual form (raw and JSON-escaped) of each value in `root` the predicate withholds.
fn withheld_texts(root: &Value, withhold: &impl Fn(&KeyPath, &Value) -> bool) -> Vec<String> {
    fn walk(
        value: &Value,
        path: &mut Vec<String>,
        withhold: &impl Fn(&KeyPath, &Value) -> bool,
        out: &mut Vec<String>,
    ) {
        // A withheld container is searched for the scalars that make it so: its own
        // serialised form is not how the file spells it.
        let scalar = !matches!(value, Value::Object(_) | Value::Array(_));
        if let Ok(key) = KeyPath::new(path.clone()) {
            if scalar && withhold(&key, value) {
                let raw = match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let escaped = serde_json::to_string(&raw).unwrap_or_default();
                out.push(escaped.trim_matches('"').to_owned());
                out.push(raw);
                return;
            }
        }
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    path.push(k.clone());
                    walk(v, path, withhold, out);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for v in items {
                    walk(v, path, withhold, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(root, &mut Vec::new(), withhold, &mut out);
    out
}
