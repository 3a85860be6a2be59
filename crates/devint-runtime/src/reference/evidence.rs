//! Recorded evidence: what `verify` observed for one (tool, scope), kept in `evidence/`
//! with the time it was observed, so `status` can tell fresh from stale.
//!
//! Owns the evidence record and the freshness rule. It must never count evidence older
//! than the freshness window or dated in the future, nor evidence recorded for another
//! receipt or another fingerprint.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::layout::write_private;
use super::stored;
use devint::verbs::{CapabilityName, ExercisedOutcome, HostAttestedOutcome, ReceiptId};
use devint_fs::durable::DurableError;
use devint_fs::read::{Follow, Limit};

/// One capability's read-back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapabilityReadBack {
    /// The capability.
    #[serde(deserialize_with = "stored::token")]
    pub capability: CapabilityName,
    /// Whether every key of it held our value.
    pub matched: bool,
}

/// A probe exercise as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exercise {
    /// The exercised outcome.
    #[serde(deserialize_with = "stored::token")]
    pub outcome: ExercisedOutcome,
    /// When the gateway observed it.
    pub observed_at: u64,
    /// Whether a gateway observed it.
    pub by_gateway: bool,
}

/// A host attestation as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attestation {
    /// `healthy` or `unhealthy`.
    #[serde(deserialize_with = "stored::token")]
    pub outcome: HostAttestedOutcome,
    /// When it was attested.
    pub observed_at: u64,
}

/// What one `verify` observed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceRecord {
    /// The receipt it was gathered for.
    #[serde(deserialize_with = "stored::token")]
    pub receipt_id: ReceiptId,
    /// The fingerprint of our keys as read back.
    pub fingerprint: String,
    /// When the read-back happened.
    pub read_back_at: u64,
    /// Per capability.
    pub read_back: Vec<CapabilityReadBack>,
    /// The probe exercise, if a probe is configured and ran.
    pub exercised: Option<Exercise>,
    /// The host attestation, if any.
    pub host: Option<Attestation>,
}

impl EvidenceRecord {
    /// Whether every capability matched.
    pub fn all_matched(&self) -> bool {
        !self.read_back.is_empty() && self.read_back.iter().all(|r| r.matched)
    }
}

/// Whether evidence observed at `at` counts at `now`: not in the future, not older than
/// `window`.
pub fn is_fresh(at: u64, now: u64, window: Duration) -> bool {
    at <= now && now - at <= window.as_secs()
}

/// Loads a record; an unreadable or malformed one (a value this build does not know
/// included) counts as none — missing evidence lowers the state, never raises it — and is
/// logged with the field that did not read back.
pub fn load(path: &Path) -> Option<EvidenceRecord> {
    let text = super::reads::text(path, Follow::NoFinalSymlink, Limit::STATE).ok()??;
    stored::from_json(&text)
        .map_err(|e| {
            tracing::warn!(evidence = %path.display(), error = %e, "recorded evidence does not read back; it does not count");
        })
        .ok()
}

/// Stores a record (`0600`, durable).
pub fn store(path: &Path, record: &EvidenceRecord) -> Result<(), DurableError> {
    let text = serde_json::to_string_pretty(record).expect("evidence always serialises");
    write_private(path, text.as_bytes())
}
