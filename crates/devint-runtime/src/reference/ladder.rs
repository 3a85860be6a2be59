//! The protection-state derivation (spec §4, ADR 0030 §4): computed from evidence on every
//! read, never stored.
//!
//! Owns the rules: no receipt → at most `detected_not_integrated`; a receipt without a
//! fresh, matching read-back → at most `partially_integrated`; `integrated` needs a receipt,
//! matching fingerprints and a fresh read-back; `gateway_protected` a fresh exercised probe a
//! gateway observed; `host_enforced` a fresh healthy host attestation. `drifted`,
//! `degraded` and `incompatible` override the ladder and carry the last rung held. It must
//! never raise a state on missing evidence.

use std::time::Duration;

use super::evidence::{is_fresh, EvidenceRecord};
use super::inspect::ScopeState;
use super::receipt::Receipt;
use devint::time::UnixSecs;
use devint::verbs::{
    AbsentReason, Evidence, EvidenceView, ExercisedOutcome, HostAttestedOutcome, Level, ManagedRef,
    MechanismName, ReadBackOutcome, StatusState,
};

/// What one scope contributes to the status.
#[derive(Debug, Clone)]
pub struct ScopeVerdict {
    /// The rung held (or last held, under an override).
    pub rung: Level,
    /// An overriding state and its reason.
    pub overriding: Option<(StatusState, String, String)>,
    /// A note that does not change the state (others' changes).
    pub note: Option<String>,
    /// Evidence shown.
    pub evidence: Vec<EvidenceView>,
    /// Our keys or artifacts that drifted.
    pub drifted: Vec<ManagedRef>,
}

fn absent(mechanism: &str, reason: &str, at: u64) -> EvidenceView {
    EvidenceView {
        mechanism: MechanismName::parse(mechanism).expect("static mechanism names are valid"),
        evidence: Evidence::Absent(AbsentReason::parse(reason).expect("static reasons are valid")),
        observed_at_unix_secs: UnixSecs::new(at),
        detail: None,
    }
}

/// The evidence that counts for `receipt` at `now`: recorded for this receipt and its
/// fingerprint, fully matched and fresh.
pub fn counting<'a>(
    receipt: &Receipt,
    record: Option<&'a EvidenceRecord>,
    now: u64,
    window: Duration,
) -> Option<&'a EvidenceRecord> {
    record.filter(|r| {
        r.receipt_id == receipt.receipt_id
            && r.fingerprint == receipt.fingerprint
            && r.all_matched()
            && is_fresh(r.read_back_at, now, window)
    })
}

/// Derives one scope's verdict.
pub fn judge(
    state: &ScopeState,
    record: Option<&EvidenceRecord>,
    detected: bool,
    probe_configured: bool,
    now: u64,
    window: Duration,
    home: &std::path::Path,
) -> ScopeVerdict {
    let floor = if detected {
        Level::DetectedNotIntegrated
    } else {
        Level::NotInstalled
    };
    let (receipt, read_back) = match state {
        ScopeState::Corrupt { why, .. } => return ScopeVerdict {
            rung: floor,
            overriding: Some((
                StatusState::Degraded,
                why.clone(),
                "the receipt is not trusted: restore it, or remove our keys by hand and plan again"
                    .into(),
            )),
            note: None,
            evidence: vec![absent("managed_settings", "receipt_corrupt", now)],
            drifted: Vec::new(),
        },
        ScopeState::Installed {
            receipt, read_back, ..
        } => (receipt, read_back),
    };
    let fresh = counting(receipt, record, now, window);
    let mut evidence = Vec::new();
    // Read-back evidence per capability, only when it counts.
    let mut caps: Vec<&str> = Vec::new();
    for k in &receipt.keys {
        if !caps.contains(&k.capability.as_str()) {
            caps.push(&k.capability);
        }
    }
    for cap in &caps {
        let mechanism = super::convert::mechanism(cap);
        match record.filter(|r| r.receipt_id == receipt.receipt_id) {
            Some(r) if is_fresh(r.read_back_at, now, window) => {
                let matched = r
                    .read_back
                    .iter()
                    .any(|c| &c.capability == cap && c.matched);
                evidence.push(EvidenceView {
                    mechanism,
                    evidence: Evidence::ReadBack(if matched {
                        ReadBackOutcome::Matched
                    } else {
                        ReadBackOutcome::Mismatched
                    }),
                    observed_at_unix_secs: UnixSecs::new(r.read_back_at),
                    detail: None,
                });
            }
            Some(_) => evidence.push(EvidenceView {
                mechanism,
                ..absent("managed_settings", "stale_or_future", now)
            }),
            None => evidence.push(EvidenceView {
                mechanism,
                ..absent("managed_settings", "not_verified", now)
            }),
        }
    }
    let held = if fresh.is_some() {
        Level::Integrated
    } else {
        Level::PartiallyIntegrated
    };
    let rb = match read_back {
        Err(why) => {
            return ScopeVerdict {
                rung: held,
                overriding: Some((
                    StatusState::Degraded,
                    format!("the settings file cannot be read back: {why}"),
                    "fix the settings file by hand, then run verify".into(),
                )),
                note: None,
                evidence,
                drifted: Vec::new(),
            }
        }
        Ok(rb) => rb,
    };
    let note = rb.others_changed.then(|| {
        "settings other than ours changed since install; they are the user's and are left alone"
            .to_owned()
    });
    if !rb.all_hold() {
        let mut drifted: Vec<ManagedRef> = rb
            .keys
            .iter()
            .filter(|k| !k.holds)
            .filter_map(|k| super::convert::key_ref(&k.key.path))
            .collect();
        if rb.file_missing {
            if let Some(a) = super::convert::artifact(&receipt.target, home) {
                drifted.insert(0, ManagedRef::Artifact(a));
            }
        }
        drifted.dedup();
        return ScopeVerdict {
            rung: held,
            overriding: Some((
                StatusState::Drifted,
                format!(
                    "{} of our {} settings no longer hold the value we installed",
                    rb.keys.iter().filter(|k| !k.holds).count(),
                    rb.keys.len()
                ),
                "run repair to restore our keys (other settings are left alone)".into(),
            )),
            note,
            evidence,
            drifted,
        };
    }
    let mut rung = if fresh.is_some() && rb.fingerprint == receipt.fingerprint {
        Level::Integrated
    } else {
        Level::PartiallyIntegrated
    };
    match fresh.and_then(|r| r.exercised.as_ref()) {
        Some(x) if is_fresh(x.observed_at, now, window) => {
            let outcome =
                ExercisedOutcome::parse(&x.outcome).unwrap_or(ExercisedOutcome::Inconclusive);
            evidence.push(EvidenceView {
                mechanism: MechanismName::parse("gateway_probe").expect("valid"),
                evidence: Evidence::Exercised(outcome),
                observed_at_unix_secs: UnixSecs::new(x.observed_at),
                detail: None,
            });
            if rung == Level::Integrated
                && x.by_gateway
                && matches!(
                    outcome,
                    ExercisedOutcome::Blocked | ExercisedOutcome::Redacted
                )
            {
                rung = Level::GatewayProtected;
            }
        }
        _ if !probe_configured => {
            evidence.push(absent("gateway_probe", "no_probe_configured", now))
        }
        _ => evidence.push(absent("gateway_probe", "not_exercised", now)),
    }
    match fresh.and_then(|r| r.host.as_ref()) {
        Some(h) if is_fresh(h.observed_at, now, window) => {
            let outcome =
                HostAttestedOutcome::parse(&h.outcome).unwrap_or(HostAttestedOutcome::Unhealthy);
            evidence.push(EvidenceView {
                mechanism: MechanismName::parse("host_enforcement").expect("valid"),
                evidence: Evidence::HostAttested(outcome),
                observed_at_unix_secs: UnixSecs::new(h.observed_at),
                detail: None,
            });
            if rung == Level::GatewayProtected && outcome == HostAttestedOutcome::Healthy {
                rung = Level::HostEnforced;
            }
        }
        _ => evidence.push(absent("host_enforcement", "no_host_attestation", now)),
    }
    ScopeVerdict {
        rung,
        overriding: None,
        note,
        evidence,
        drifted: Vec::new(),
    }
}

/// Why the next rung above `level` is not reached.
pub fn blocked_because(
    level: Level,
    probe_configured: bool,
    drifted: bool,
) -> Option<(Level, String)> {
    let next = match level {
        Level::NotInstalled => Level::DetectedNotIntegrated,
        Level::DetectedNotIntegrated => Level::PartiallyIntegrated,
        Level::PartiallyIntegrated => Level::Integrated,
        Level::Integrated => Level::GatewayProtected,
        Level::GatewayProtected => Level::HostEnforced,
        Level::HostEnforced => return None,
    };
    let why = match level {
        Level::NotInstalled => "the tool was not found on this host",
        Level::DetectedNotIntegrated => "nothing is installed: plan and apply an integration",
        Level::PartiallyIntegrated if drifted => "our settings drifted: run repair, then verify",
        Level::PartiallyIntegrated => "no fresh read-back matches the receipt: run verify",
        Level::Integrated if !probe_configured => {
            "no protection probe is configured, so no gateway has observed probe traffic for this tool"
        }
        Level::Integrated => "no gateway has observed a blocked or redacted probe recently: run verify",
        _ => "no host attestation is available for this tool",
    };
    Some((next, why.to_owned()))
}
