//! Tolerant reading: a field another implementation filled outside its vocabulary or shape
//! becomes an [`Unrecognized`] marker naming the field, and the rest of the view stays
//! usable.
//!
//! This module owns the field path of such a marker ([`FieldPath`], built only from the
//! crate's own field names and list indices, so it can never carry peer text) and the
//! collector the views read through. It must never invent a value for an unreadable field:
//! an unreadable list element is left out of its list and an unreadable optional field is
//! `None`, each named in the view's `unrecognized` list. A required field that names what
//! the view is about (a status's tool, phase, state, level, ceiling or compatibility) and a
//! structural fault (a missing required message) still fail the view: guessing there would
//! misreport protection.

use super::ViewError;

/// Where in a view an unreadable field sits: `evidence[2].outcome`, `policy.state`,
/// `status.drift_mismatched[0]`. Made of this crate's field names and indices only.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldPath(String);

impl FieldPath {
    /// A top-level field.
    pub(crate) fn field(name: &'static str) -> FieldPath {
        FieldPath(name.to_owned())
    }

    /// Element `index` of list `name`.
    pub(crate) fn element(name: &'static str, index: usize) -> FieldPath {
        FieldPath(format!("{name}[{index}]"))
    }

    /// A field `name` inside this one.
    pub(crate) fn join(&self, name: &str) -> FieldPath {
        FieldPath(format!("{}.{name}", self.0))
    }

    /// The path as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl serde::Serialize for FieldPath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// A field the client could not read: where it is and why (the typed refusal, which never
/// echoes the value).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} could not be read: {refusal}")]
pub struct Unrecognized {
    /// Where the field sits in the view.
    pub field: FieldPath,
    /// Why it was refused.
    pub refusal: ViewError,
}

impl serde::Serialize for Unrecognized {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Unrecognized", 2)?;
        st.serialize_field("field", &self.field)?;
        st.serialize_field("refusal", &self.refusal.to_string())?;
        st.end()
    }
}

/// The last segment of the field a [`ViewError`] names (`evidence.outcome` → `outcome`).
fn leaf(e: &ViewError) -> &'static str {
    let field = match e {
        ViewError::OutsideVocabulary(v) => v.field,
        ViewError::MalformedField { field, .. }
        | ViewError::MissingField { field }
        | ViewError::UnknownEnumValue { field, .. } => field,
    };
    field.rsplit('.').next().unwrap_or(field)
}

/// Collects the unrecognized fields of one view as it is read.
#[derive(Debug, Default)]
pub(crate) struct Tolerant {
    found: Vec<Unrecognized>,
}

impl Tolerant {
    /// An optional field: unreadable is `None`, recorded at `field`.
    pub(crate) fn optional<T>(
        &mut self,
        field: &'static str,
        read: Result<Option<T>, ViewError>,
    ) -> Option<T> {
        read.unwrap_or_else(|refusal| {
            self.found.push(Unrecognized {
                field: FieldPath::field(field),
                refusal,
            });
            None
        })
    }

    /// A list: unreadable elements are left out, each recorded as `name[i]` (with the
    /// sub-field for an element that is a message: `name[i].outcome`).
    pub(crate) fn list<W, T>(
        &mut self,
        name: &'static str,
        items: &[W],
        mut read: impl FnMut(&W) -> Result<T, ViewError>,
        message: bool,
    ) -> Vec<T> {
        let mut out = Vec::with_capacity(items.len());
        for (i, w) in items.iter().enumerate() {
            match read(w) {
                Ok(t) => out.push(t),
                Err(refusal) => {
                    let at = FieldPath::element(name, i);
                    self.found.push(Unrecognized {
                        field: if message { at.join(leaf(&refusal)) } else { at },
                        refusal,
                    });
                }
            }
        }
        out
    }

    /// Everything recorded.
    pub(crate) fn finish(self) -> Vec<Unrecognized> {
        self.found
    }
}
