//! One settings file we integrate: turning the adapters' rendered edits into keys we own,
//! preparing the text an apply or repair writes, and the text a removal restores.
//!
//! Owns the append-to-list rule (our entries beside the user's; on removal only ours come
//! out) on top of the format-preserving editor. It must never write a file (the callers do,
//! through the journal) and never produce text from a document that did not parse.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::credential::{withhold, withhold_value};
use super::pure_memo::PureMemo;
use super::receipt::{KeyMode, OwnedKey, Receipt};
use crate::adapters::{EditMode, RenderedIntegration};
use crate::edit::{
    guard, EditError, EditPlan, ElementEdit, FileAction, KeyEdit, KeyPath, Restoration, Reversal,
    SettingsDoc, SettingsFormat,
};
use devint_fs::durable::DurableError;
use devint_fs::read::{Follow, Limit};

/// The keys a rendered integration asks us to own, in render order.
pub fn owned_keys(rendered: &RenderedIntegration) -> Result<Vec<OwnedKey>, EditError> {
    rendered
        .edits
        .iter()
        .map(|e| {
            Ok(OwnedKey {
                path: KeyPath::new(e.path.clone())?,
                mode: match e.mode {
                    EditMode::Replace => KeyMode::Replace,
                    EditMode::AppendToList => KeyMode::Append,
                },
                ours: e.value.clone(),
                capability: e.capability,
                action_kind: e.action_kind,
                holds_no_secret: e.holds_no_secret,
            })
        })
        .collect()
}

/// A settings file and where a write to it really lands, found once (a `plan` asks both
/// whether it may be written and what consent must name).
pub struct Landing<'a> {
    path: &'a Path,
    real: PathBuf,
}

impl<'a> Landing<'a> {
    /// Resolve `path`: every symlink on the way (the deepest existing ancestor canonicalised,
    /// the missing rest appended).
    pub fn of(path: &'a Path) -> Landing<'a> {
        Landing {
            path,
            real: resolved(path),
        }
    }

    /// The settings file as named.
    pub fn path(&self) -> &Path {
        self.path
    }

    /// Where the write lands.
    pub fn real(&self) -> &Path {
        &self.real
    }

    /// Why the file must not be written: a project-scope file that resolves outside the
    /// project (consent named a file in the project), or a file with other hard links (the
    /// atomic replace would silently split them). `None`: it may be written.
    pub fn write_refusal(&self, project: Option<&Path>) -> Option<String> {
        let (path, real) = (self.path, &self.real);
        if let Some(project) = project {
            let root = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_owned());
            if !real.starts_with(&root) {
                return Some(format!(
                    "{} resolves to {}, outside the project {}; a project-scope plan never writes outside its project — remove the symlink, or plan at user scope",
                    path.display(),
                    real.display(),
                    root.display()
                ));
            }
        }
        use std::os::unix::fs::MetadataExt;
        match std::fs::metadata(real) {
            Ok(meta) if meta.is_file() && meta.nlink() > 1 => Some(format!(
                "{} has {} hard links; replacing it would split it from its other names, so devint will not write it — make it a single file (or a symlink), then plan again",
                real.display(),
                meta.nlink()
            )),
            _ => None,
        }
    }
}

fn resolved(path: &Path) -> PathBuf {
    let mut existing = path.to_owned();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(&existing) {
            return rest
                .iter()
                .rev()
                .fold(real, |p, c: &std::ffi::OsString| p.join(c));
        }
        match (
            existing.file_name().map(ToOwned::to_owned),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_owned();
            }
            _ => return path.to_owned(),
        }
    }
}

/// The settings file as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Current {
    /// The file.
    pub path: PathBuf,
    /// Its text (`None`: the file does not exist).
    pub text: Option<String>,
}

impl Current {
    /// Reads `path` through the safe reader: a FIFO, device, socket or directory is refused
    /// without blocking, and a file over [`Limit::SETTINGS`] is refused unread.
    pub fn read(path: &Path) -> Result<Current, DurableError> {
        Ok(Current {
            path: path.to_owned(),
            text: super::reads::text(path, Follow::Symlinks, Limit::SETTINGS)?,
        })
    }

    /// Runs an edit of this file's text under the parser panic guard, naming the file.
    pub fn guarded<T>(
        &self,
        format: SettingsFormat,
        op: impl FnOnce() -> Result<T, EditError>,
    ) -> Result<T, EditError> {
        guard::edit(format, Some(&self.path), op)
    }

    /// A digest that tells "absent" from every text.
    pub fn digest(&self) -> Option<String> {
        self.text.as_deref().map(super::receipt::text_digest)
    }
}

/// What an apply would write.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The new text.
    pub text: String,
    /// Whether it differs from the current file.
    pub changed: bool,
    /// How to undo this apply alone.
    pub reversal: Reversal,
    /// The keys, with append keys that met a non-list value turned into replace keys.
    pub keys: Vec<OwnedKey>,
}

/// Prepares writing `keys` into `current` (dry run; nothing is written). A key we append
/// to becomes one element edit per entry of ours (added unless an equal entry is there,
/// removed on reversal only if we added it); one whose current value is not a list is
/// displaced whole instead (and restored on removal). When several keys append to one path
/// (two capabilities' entries in one list) and the value there is not a list, it is
/// displaced once by a list of all their entries, and each key still holds its own.
pub fn prepare(
    format: SettingsFormat,
    current: &Current,
    keys: &[OwnedKey],
) -> Result<Prepared, EditError> {
    /// The last few dry runs, by everything they depend on (one settings file per plan
    /// polled, a few plans at once).
    static PREPARED: PureMemo<(SettingsFormat, Option<String>, Vec<OwnedKey>), Prepared> =
        PureMemo::new(8);
    let size = current.text.as_ref().map_or(0, String::len);
    PREPARED.get_or_try((format, current.text.clone(), keys.to_vec()), size, |_| {
        current.guarded(format, || prepare_unguarded(format, current, keys))
    })
}

fn prepare_unguarded(
    format: SettingsFormat,
    current: &Current,
    keys: &[OwnedKey],
) -> Result<Prepared, EditError> {
    let doc = SettingsDoc::parse(format, current.text.as_deref().unwrap_or(""))?;
    let mut edits: Vec<KeyEdit> = Vec::new();
    let mut elements = Vec::new();
    let mut settled = Vec::with_capacity(keys.len());
    let appending_to = |path: &KeyPath| {
        keys.iter()
            .filter(|k| k.mode == KeyMode::Append && &k.path == path)
            .count()
    };
    for key in keys {
        let existing = doc.get(&key.path);
        let mode = match (key.mode, existing, &key.ours) {
            (KeyMode::Append, None | Some(Value::Array(_)), Value::Array(ours)) => {
                elements.extend(ours.iter().map(|o| ElementEdit {
                    path: key.path.clone(),
                    element: o.clone(),
                }));
                KeyMode::Append
            }
            (KeyMode::Append, Some(_), Value::Array(ours)) if appending_to(&key.path) > 1 => {
                match edits.iter_mut().find(|e| e.path == key.path) {
                    Some(KeyEdit {
                        value: Value::Array(list),
                        ..
                    }) => {
                        for o in ours {
                            if !list.contains(o) {
                                list.push(o.clone());
                            }
                        }
                    }
                    _ => edits.push(KeyEdit {
                        path: key.path.clone(),
                        value: Value::Array(ours.clone()),
                    }),
                }
                KeyMode::Append
            }
            (_, _, ours) => {
                edits.push(KeyEdit {
                    path: key.path.clone(),
                    value: ours.clone(),
                });
                KeyMode::Replace
            }
        };
        settled.push(OwnedKey {
            mode,
            ..key.clone()
        });
    }
    let plan = EditPlan::new(format, edits)?.with_elements(elements)?;
    // A value displaced at a key the descriptor declares a name (never a secret) is judged
    // by its value alone; every other by its key's name and its value.
    let named = |path: &KeyPath| settled.iter().any(|k| k.path == *path && k.holds_no_secret);
    let applied = plan.apply(current.text.as_deref(), |path: &KeyPath, value: &Value| {
        if named(path) {
            withhold_value(value)
        } else {
            withhold(path, value)
        }
    })?;
    Ok(Prepared {
        text: applied.text,
        changed: applied.changed,
        reversal: applied.reversal,
        keys: settled,
    })
}

/// Sets every key of ours that no longer holds our value back to it; answers the new text
/// and the keys it repaired.
pub fn repair_text(
    receipt: &Receipt,
    current: &Current,
) -> Result<(String, Vec<KeyPath>), EditError> {
    current.guarded(receipt.format, || repair_unguarded(receipt, current))
}

fn repair_unguarded(
    receipt: &Receipt,
    current: &Current,
) -> Result<(String, Vec<KeyPath>), EditError> {
    let mut doc = SettingsDoc::parse(receipt.format, current.text.as_deref().unwrap_or(""))?;
    let mut repaired = Vec::new();
    for key in &receipt.keys {
        let now = doc.get(&key.path);
        if key.holds(now.as_ref()) {
            continue;
        }
        match (key.mode, now, &key.ours) {
            (KeyMode::Append, None | Some(Value::Array(_)), Value::Array(ours)) => {
                for o in ours {
                    doc.add_element(&key.path, o.clone())?;
                }
            }
            (_, _, ours) => {
                doc.set(&key.path, ours.clone())?;
            }
        }
        repaired.push(key.path.clone());
    }
    Ok((doc.to_string(), repaired))
}

/// What removing our keys from `current` yields: byte-exact when the file is as we left
/// it; otherwise every key goes back to its original and our list entries come out (only
/// those we added), user changes kept.
pub fn restore(receipt: &Receipt, current: &Current) -> Result<Restoration, EditError> {
    current.guarded(receipt.format, || {
        receipt.reversal.reverse(current.text.as_deref())
    })
}

/// The digest of what a file action leaves (`None`: no file).
pub fn action_digest(action: &FileAction, current: &Current) -> Option<String> {
    match action {
        FileAction::Write(text) => Some(super::receipt::text_digest(text)),
        FileAction::Delete => None,
        FileAction::Leave => current.digest(),
    }
}
