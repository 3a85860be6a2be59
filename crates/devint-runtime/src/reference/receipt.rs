//! [`Receipt`]: what we installed in one (tool, scope), kept `0600`, durable, versioned and
//! sealed with an integrity digest.
//!
//! Owns the receipt record, its file format and its integrity check. A receipt keeps the
//! user's original values from the **first** install (later installs are composed into it,
//! never replacing them with our own earlier values) and never holds a prior value the
//! credential predicate withholds. A receipt whose digest or version does not check out is
//! reported as corrupt and never trusted.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use super::layout::write_private;
use super::stored::{self, StoredValueError};
use crate::edit::{KeyPath, Reversal, SettingsFormat};
use devint::time::UnixSecs;
use devint::verbs::{
    ActionKind, CapabilityName, Digest, Level, PolicyProfileId, Profile, ReceiptId, SettingsScope,
    ToolId,
};
use devint_fs::durable::DurableError;
use devint_fs::read::{Follow, Limit};

/// The receipt format this build writes and reads.
pub const RECEIPT_VERSION: u32 = 1;

/// How one of our keys combines with the user's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyMode {
    /// We own the whole value.
    Replace,
    /// We own some elements of a list; the user's elements are theirs.
    Append,
}

/// One key we own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OwnedKey {
    /// The key.
    pub path: KeyPath,
    /// Replace or append.
    pub mode: KeyMode,
    /// Our value (append: our elements, as a list).
    pub ours: Value,
    /// The capability it realises.
    #[serde(deserialize_with = "stored::token")]
    pub capability: CapabilityName,
    /// The step's action kind.
    #[serde(deserialize_with = "stored::token")]
    pub action_kind: ActionKind,
    /// Whether the descriptor declares the key's value a name, never a secret: a value it
    /// displaces is withheld only when it looks like a credential itself. Absent in records
    /// of keys without it (their sealed form is unchanged).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub holds_no_secret: bool,
}

impl OwnedKey {
    /// Whether `other` stands for the same key: the same path, and the same capability
    /// unless neither appends (two capabilities may each add their own entries to one list,
    /// e.g. Aider's `set-env`; a value we own whole has one owner).
    pub fn same_key(&self, other: &OwnedKey) -> bool {
        self.path == other.path
            && (self.capability == other.capability
                || (self.mode == KeyMode::Replace && other.mode == KeyMode::Replace))
    }

    /// Whether `current` (the key's value now, `None`: absent) still holds ours.
    pub fn holds(&self, current: Option<&Value>) -> bool {
        match (self.mode, current) {
            (_, None) => false,
            (KeyMode::Replace, Some(v)) => *v == self.ours,
            (KeyMode::Append, Some(Value::Array(items))) => match &self.ours {
                Value::Array(ours) => ours.iter().all(|o| items.contains(o)),
                _ => false,
            },
            (KeyMode::Append, Some(_)) => false,
        }
    }

    /// The part of `current` that is ours (append: our elements present), for fingerprints.
    pub fn our_part(&self, current: Option<&Value>) -> Value {
        match (self.mode, current) {
            (_, None) => Value::Null,
            (KeyMode::Replace, Some(v)) => v.clone(),
            (KeyMode::Append, Some(Value::Array(items))) => Value::Array(
                items
                    .iter()
                    .filter(|i| self.ours.as_array().is_some_and(|o| o.contains(i)))
                    .cloned()
                    .collect(),
            ),
            (KeyMode::Append, Some(v)) => v.clone(),
        }
    }
}

/// The policy profile an install used (a reference, never the document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileRecord {
    /// The integration profile.
    #[serde(deserialize_with = "stored::token")]
    pub profile: Profile,
    /// The policy profile id.
    #[serde(deserialize_with = "stored::token")]
    pub policy_id: PolicyProfileId,
    /// Its display name.
    pub display_name: String,
    /// Its digest at install time.
    #[serde(deserialize_with = "stored::token")]
    pub digest: Digest,
}

/// What we installed in one (tool, scope).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Receipt {
    /// The receipt id (changes with every apply and repair).
    #[serde(deserialize_with = "stored::token")]
    pub receipt_id: ReceiptId,
    /// The tool.
    #[serde(deserialize_with = "stored::token")]
    pub tool: ToolId,
    /// The settings scope.
    #[serde(deserialize_with = "stored::token")]
    pub scope: SettingsScope,
    /// The settings file.
    pub target: PathBuf,
    /// Its format.
    pub format: SettingsFormat,
    /// The profile used by the latest apply.
    pub profile: ProfileRecord,
    /// The planned level of the latest apply.
    #[serde(deserialize_with = "stored::token")]
    pub planned_level: Level,
    /// When the first install happened.
    pub installed_at: UnixSecs,
    /// When the receipt last changed (apply or repair).
    pub updated_at: UnixSecs,
    /// Our keys.
    pub keys: Vec<OwnedKey>,
    /// How to undo everything we did, with the first install's originals.
    pub reversal: Reversal,
    /// SHA-256 of the settings file as we last wrote it.
    pub file_sha256: String,
    /// The fingerprint of our keys as we last wrote them.
    pub fingerprint: String,
}

/// The fingerprint of our keys in a document: SHA-256 over each key's path and our part of
/// its value (canonical JSON). `get` reads a key's current value.
pub fn fingerprint(keys: &[OwnedKey], get: impl Fn(&KeyPath) -> Option<Value>) -> String {
    let mut hasher = Sha256::new();
    for key in keys {
        let part = key.our_part(get(&key.path).as_ref());
        hasher.update(key.path.to_string().as_bytes());
        hasher.update([0]);
        hasher.update(canonical(&part).to_string().as_bytes());
        hasher.update([0]);
    }
    hex::encode(hasher.finalize())
}

/// Canonical JSON (object keys sorted).
pub fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// Hex SHA-256 of text.
pub fn text_digest(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// The sealed file: `{version, digest, body}` with `digest = sha256(body)`.
#[derive(Serialize, Deserialize)]
struct Sealed {
    version: u32,
    digest: String,
    body: String,
}

/// Why a receipt could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReceiptError {
    /// The receipt exists but fails its integrity check (or does not parse).
    #[error("the receipt {path} is corrupt ({why}); it is not trusted — remove the integration by hand or restore the file")]
    Corrupt {
        /// The receipt file.
        path: PathBuf,
        /// What failed.
        why: &'static str,
    },
    /// The receipt is sealed and intact, but a field holds a value this build does not know
    /// (or lacks one): never defaulted, never replaced by a fresh id.
    #[error("the receipt {path} cannot be read by this build ({source}); it is not trusted — use the devint that wrote it, or remove the integration by hand")]
    UnknownValue {
        /// The receipt file.
        path: PathBuf,
        /// Which field, and why.
        source: StoredValueError,
    },
    /// The receipt could not be read or written.
    #[error(transparent)]
    Io(#[from] DurableError),
}

/// Serialises `receipt` into its sealed form.
pub fn seal(receipt: &Receipt) -> String {
    let body = serde_json::to_string(receipt).expect("a receipt always serialises");
    let sealed = Sealed {
        version: RECEIPT_VERSION,
        digest: text_digest(&body),
        body,
    };
    serde_json::to_string_pretty(&sealed).expect("a sealed receipt always serialises") + "\n"
}

/// Reads a sealed receipt from text.
pub fn unseal(path: &Path, text: &str) -> Result<Receipt, ReceiptError> {
    let corrupt = |why| ReceiptError::Corrupt {
        path: path.to_owned(),
        why,
    };
    let sealed: Sealed = serde_json::from_str(text).map_err(|_| corrupt("it does not parse"))?;
    if sealed.version != RECEIPT_VERSION {
        return Err(corrupt("its version is not one this build reads"));
    }
    if text_digest(&sealed.body) != sealed.digest {
        return Err(corrupt("its integrity digest does not match"));
    }
    stored::from_json(&sealed.body).map_err(|source| match source {
        StoredValueError::Syntax => corrupt("its body does not parse"),
        source => ReceiptError::UnknownValue {
            path: path.to_owned(),
            source,
        },
    })
}

/// Loads the receipt at `path` (`None`: there is none).
pub fn load(path: &Path) -> Result<Option<Receipt>, ReceiptError> {
    match super::reads::text(path, Follow::NoFinalSymlink, Limit::STATE)? {
        None => Ok(None),
        Some(text) => unseal(path, &text).map(Some),
    }
}

/// Writes the receipt durably (`0600`).
pub fn store(path: &Path, receipt: &Receipt) -> Result<(), DurableError> {
    write_private(path, seal(receipt).as_bytes())
}
