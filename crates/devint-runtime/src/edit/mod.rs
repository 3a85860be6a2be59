//! Format-preserving settings edits with an exact, serialisable reversal.
//!
//! Owns reading and changing individual keys of a user's settings document — JSON (strict),
//! JSONC (comments and trailing commas, VS Code style), TOML and YAML — in place, and undoing
//! those changes later. It must never reserialise a whole document (only the bytes around our
//! keys change), never produce text from a document that did not parse, and never record a
//! prior value the caller's withhold predicate marks as a credential.
//!
//! The editors: `jsonc-parser`'s CST for JSON and JSONC, `toml_edit` for TOML, and for YAML
//! `yaml-edit`'s lossless tree checked by `saphyr-parser`, a strict reader, with scalars read
//! as PyYAML's `yaml.safe_load` reads them (YAML 1.1). The YAML editor takes one document of
//! mappings and sequences; anchors, aliases, tags, several documents, non-string keys and
//! other constructs it cannot edit faithfully are refused as
//! [`EditError::UnsupportedConstruct`] naming line and column (the `yaml` module's docs list
//! them and say why two parsers).
//!
//! The pieces:
//!
//! - [`SettingsDoc`] — one parsed document: [`get`](SettingsDoc::get),
//!   [`set`](SettingsDoc::set) (creating intermediate objects/tables),
//!   [`remove`](SettingsDoc::remove), [`add_element`](SettingsDoc::add_element),
//!   [`remove_element`](SettingsDoc::remove_element), [`Display`](std::fmt::Display) for
//!   the edited text.
//! - [`EditPlan`] — the keys we own whole ([`KeyEdit`]) and the entries we own inside arrays
//!   the user shares with us ([`ElementEdit`], e.g. one hook in `hooks.PreToolUse`);
//!   [`EditPlan::apply`] turns the current file (or its absence) into the new text plus a
//!   [`Reversal`].
//! - [`Reversal`] — the receipt-ready record that undoes an apply: byte-exact when the file is
//!   untouched, key-by-key semantic otherwise. See its docs for the withheld-value rule and
//!   for composing a re-install with the first install ([`Reversal::compose`]).
//! - [`guard`] — every third-party parser call runs under a panic guard: a parser bug is a
//!   typed error naming the file, never a dead thread or lock.
//! - `fuzz_harness` (feature `fuzzing`) — the entry point a cargo-fuzz target drives.
//!
//! ```
//! use devint_runtime::edit::{EditPlan, FileAction, KeyEdit, SettingsFormat};
//! use serde_json::json;
//!
//! let original = "{\n  // mine\n  \"model\": \"opus\",\n}\n";
//! let plan = EditPlan::new(
//!     SettingsFormat::Jsonc,
//!     vec![KeyEdit { path: "env.ANTHROPIC_BASE_URL".parse()?, value: json!("http://127.0.0.1:4000") }],
//! )?;
//! // Withhold prior values that look like credentials (here: none do).
//! let applied = plan.apply(Some(original), |_, v| v.as_str().is_some_and(|s| s.starts_with("sk-")))?;
//! assert!(applied.text.contains("// mine"));
//! // The reversal goes into the receipt; untouched, it gives back the original bytes.
//! let back = applied.reversal.reverse(Some(&applied.text))?;
//! assert_eq!(back.file, FileAction::Write(original.to_owned()));
//! # Ok::<(), devint_runtime::edit::EditError>(())
//! ```

mod error;
#[cfg(feature = "fuzzing")]
pub mod fuzz_harness;
pub mod guard;
mod json;
mod path;
mod plan;
mod reversal;
mod splice;
mod toml;
mod yaml;

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use error::EditError;
pub use path::KeyPath;
pub use plan::{Applied, EditPlan, ElementEdit, KeyEdit};
pub use reversal::{
    ElementReversal, ExactUndo, FileAction, KeyOutcome, KeyRestoration, KeyReversal, OriginalFile,
    PriorRecord, Restoration, Reversal, REVERSAL_VERSION,
};
pub use splice::Splice;

/// The syntax of a settings file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SettingsFormat {
    /// Strict JSON (RFC 8259): comments or trailing commas are a parse error.
    Json,
    /// JSON with comments and trailing commas (VS Code's `settings.json` dialect).
    Jsonc,
    /// TOML 1.0.
    Toml,
    /// YAML, one document, read as PyYAML's `yaml.safe_load` reads it (YAML 1.1 scalars);
    /// values are written so YAML 1.1 and 1.2 readers read them alike (see the module docs).
    Yaml,
}

impl SettingsFormat {
    /// A lowercase name for people and docs (`json`, `jsonc`, `toml`, `yaml`).
    pub const fn token(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Jsonc => "jsonc",
            Self::Toml => "toml",
            Self::Yaml => "yaml",
        }
    }
}

impl fmt::Display for SettingsFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Json => "JSON",
            Self::Jsonc => "JSONC",
            Self::Toml => "TOML",
            Self::Yaml => "YAML",
        })
    }
}

/// What a key held before [`SettingsDoc::set`] changed it.
#[derive(Clone, Debug, PartialEq)]
pub enum Prior {
    /// The key did not exist.
    Absent,
    /// The key held this value.
    Present(Value),
}

/// The result of one [`SettingsDoc::set`].
#[derive(Clone, Debug, PartialEq)]
pub struct SetOutcome {
    /// What the key held before.
    pub prior: Prior,
    /// Objects/tables that did not exist and were created on the way, outermost first.
    pub created: Vec<KeyPath>,
}

/// The result of one [`SettingsDoc::add_element`].
#[derive(Clone, Debug, PartialEq)]
pub struct ElementOutcome {
    /// An equal element was already in the array; nothing changed.
    pub already_present: bool,
    /// Containers created on the way, outermost first, ending with the array itself when
    /// it did not exist.
    pub created: Vec<KeyPath>,
}

/// One parsed settings document, edited in place.
///
/// Values cross this API as [`serde_json::Value`]; for TOML, objects map to tables (inline
/// tables inside inline tables), integers to integers, and `null` or integers above
/// `i64::MAX` are [`EditError::Unrepresentable`]. TOML datetimes read back as strings. For
/// YAML, objects map to block mappings and arrays to block sequences; timestamps read back
/// as their text, and infinities, NaN and integers past `u64` have no JSON form.
pub struct SettingsDoc {
    inner: Inner,
}

enum Inner {
    Json(json::JsonDoc),
    Toml(toml::TomlDoc),
    Yaml(yaml::YamlDoc),
}

impl SettingsDoc {
    /// Parses `text`; a document that does not parse is an error naming line and column,
    /// and the caller must refuse to overwrite that file.
    ///
    /// A panic inside the third-party parser is caught ([`guard`]) and answered as
    /// [`EditError::ParserPanicked`].
    pub fn parse(format: SettingsFormat, text: &str) -> Result<Self, EditError> {
        guard::edit(format, None, || {
            let inner = match format {
                SettingsFormat::Json | SettingsFormat::Jsonc => {
                    Inner::Json(json::JsonDoc::parse(format, text)?)
                }
                SettingsFormat::Toml => Inner::Toml(toml::TomlDoc::parse(text)?),
                SettingsFormat::Yaml => Inner::Yaml(yaml::YamlDoc::parse(text)?),
            };
            Ok(Self { inner })
        })
    }

    /// The document's format.
    pub fn format(&self) -> SettingsFormat {
        match &self.inner {
            Inner::Json(doc) => doc.format(),
            Inner::Toml(_) => SettingsFormat::Toml,
            Inner::Yaml(_) => SettingsFormat::Yaml,
        }
    }

    /// The value at `path`, if the key exists and its value is representable.
    pub fn get(&self, path: &KeyPath) -> Option<Value> {
        match &self.inner {
            Inner::Json(doc) => doc.get(path),
            Inner::Toml(doc) => doc.get(path),
            Inner::Yaml(doc) => doc.get(path),
        }
    }

    /// Sets `path` to `value`, creating missing intermediate objects/tables. Setting a key
    /// to the value it already holds changes no byte. On error the document is unchanged.
    pub fn set(&mut self, path: &KeyPath, value: Value) -> Result<SetOutcome, EditError> {
        if let Some(current) = self.get(path) {
            if current == value {
                return Ok(SetOutcome {
                    prior: Prior::Present(current),
                    created: Vec::new(),
                });
            }
        }
        match &mut self.inner {
            Inner::Json(doc) => doc.set(path, value),
            Inner::Toml(doc) => doc.set(path, value),
            Inner::Yaml(doc) => doc.set(path, value),
        }
    }

    /// Removes the key at `path`, answering the value it held (`None` if it was absent).
    pub fn remove(&mut self, path: &KeyPath) -> Option<Value> {
        match &mut self.inner {
            Inner::Json(doc) => doc.remove(path),
            Inner::Toml(doc) => doc.remove(path),
            Inner::Yaml(doc) => doc.remove(path),
        }
    }

    /// Appends `element` to the array at `path` unless an equal element is already there,
    /// creating the array (and objects/tables on the way) when missing. On error the
    /// document is unchanged.
    pub fn add_element(
        &mut self,
        path: &KeyPath,
        element: Value,
    ) -> Result<ElementOutcome, EditError> {
        match self.get(path) {
            None => {
                let mut created = self.set(path, Value::Array(vec![element]))?.created;
                created.push(path.clone());
                Ok(ElementOutcome {
                    already_present: false,
                    created,
                })
            }
            Some(Value::Array(items)) if items.contains(&element) => Ok(ElementOutcome {
                already_present: true,
                created: Vec::new(),
            }),
            Some(Value::Array(_)) => {
                match &mut self.inner {
                    Inner::Json(doc) => doc.push_element(path, &element)?,
                    Inner::Toml(doc) => doc.push_element(path, &element)?,
                    Inner::Yaml(doc) => doc.push_element(path, &element)?,
                }
                Ok(ElementOutcome {
                    already_present: false,
                    created: Vec::new(),
                })
            }
            Some(other) => Err(EditError::NotAContainer {
                path: path.clone(),
                blocker: format!("`{path}`"),
                found: value_kind(&other),
            }),
        }
    }

    /// Removes the first element of the array at `path` that `matches`; answers whether
    /// one was removed.
    pub fn remove_element(&mut self, path: &KeyPath, matches: impl Fn(&Value) -> bool) -> bool {
        let Some(Value::Array(items)) = self.get(path) else {
            return false;
        };
        let Some(index) = items.iter().position(matches) else {
            return false;
        };
        match &mut self.inner {
            Inner::Json(doc) => doc.remove_element(path, index),
            Inner::Toml(doc) => doc.remove_element(path, index),
            Inner::Yaml(doc) => doc.remove_element(path, index),
        }
    }

    /// Whether `path` names an object/table or array with no members (and, for JSON, no
    /// comments).
    pub fn is_empty_container(&self, path: &KeyPath) -> bool {
        match &self.inner {
            Inner::Json(doc) => doc.is_empty_container(path),
            Inner::Toml(doc) => doc.is_empty_container(path),
            Inner::Yaml(doc) => doc.is_empty_container(path),
        }
    }

    /// The whole document as one value (an empty document is `{}`); `None` if some value
    /// in it has no JSON representation (e.g. a number out of range).
    pub fn to_value(&self) -> Option<Value> {
        match &self.inner {
            Inner::Json(doc) => doc.to_value(),
            Inner::Toml(doc) => doc.to_value(),
            Inner::Yaml(doc) => doc.to_value(),
        }
    }

    /// Whether the document holds nothing a user wrote: no key and no comment.
    pub fn is_blank(&self) -> bool {
        match &self.inner {
            Inner::Json(doc) => doc.is_blank(),
            Inner::Toml(doc) => doc.is_blank(),
            Inner::Yaml(doc) => doc.is_blank(),
        }
    }
}

impl fmt::Display for SettingsDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner {
            Inner::Json(doc) => fmt::Display::fmt(doc, f),
            Inner::Toml(doc) => fmt::Display::fmt(doc, f),
            Inner::Yaml(doc) => fmt::Display::fmt(doc, f),
        }
    }
}

/// A short name for the kind of a value, for error messages.
fn value_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Adds `element` to the array at `path` in a plain value tree unless present; the model
/// [`SettingsDoc::add_element`] must match.
fn value_add_element(root: &mut Value, path: &KeyPath, element: Value) {
    let mut node = root;
    for segment in path.segments() {
        if !node.is_object() {
            *node = Value::Object(serde_json::Map::new());
        }
        let Value::Object(map) = node else {
            unreachable!("just made an object")
        };
        node = map
            .entry(segment.clone())
            .or_insert(Value::Array(Vec::new()));
    }
    if let Value::Array(items) = node {
        if !items.contains(&element) {
            items.push(element);
        }
    }
}

/// One-based line and column (in characters) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

/// Sets `path` inside a plain value tree, creating objects; the model the editors must match.
fn value_set(root: &mut Value, path: &KeyPath, value: Value) {
    let mut node = root;
    for segment in path.segments() {
        if !node.is_object() {
            *node = Value::Object(serde_json::Map::new());
        }
        let Value::Object(map) = node else {
            unreachable!("just made an object")
        };
        node = map.entry(segment.clone()).or_insert(Value::Null);
    }
    *node = value;
}

#[cfg(test)]
mod tests;
