//! The protection-state derivation (spec §4, ADR 0030 §4): computed from evidence on every
//! read, never stored.
//!
//! Owns the rules: no receipt → at most `detected_not_integrated`; a receipt without a
//! fresh, matching read-back → at most `partially_integrated`; `integrated` needs a receipt,
//! matching fingerprints and a fresh read-back; `gateway_protected` a fresh exercised probe a
//! gateway observed; `host_enforced` a fresh healthy host attestation. `drifted`,
//! `degraded` and `incompatible` override the ladder and carry the last rung held. It must
//! never raise a state on missing evidence.

use std::path::Path;
use std::time::Duration;

use super::evidence::{is_fresh, EvidenceRecord};
use super::inspect::{ReadBack, ScopeState};
use super::receipt::Receipt;
use devint::time::UnixSecs;
use devint::verbs::{
    AbsentReason, CapabilityName, Evidence, EvidenceView, ExercisedOutcome, HostAttestedOutcome,
    Level, ManagedRef, MechanismName, ReadBackOutcome, StatusState,
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

/// What the ladder is judged against, besides one scope's state.
#[derive(Debug, Clone, Copy)]
pub struct Judging<'a> {
    /// Whether the tool is detected on this host.
    pub detected: bool,
    /// Whether a protection probe is configured.
    pub probe_configured: bool,
    /// Now (unix seconds).
    pub now: u64,
    /// The freshness window.
    pub window: Duration,
    /// The home directory (for artifact paths).
    pub home: &'a Path,
}

/// Derives one scope's verdict, rung by rung: a corrupt receipt degrades; then the
/// read-back (unreadable degrades, a key not holding drifts); then `integrated` (fresh,
/// matching read-back), `gateway_protected` (fresh blocked or redacted probe a gateway
/// observed) and `host_enforced` (fresh healthy attestation), each only on the one below.
pub fn judge(state: &ScopeState, record: Option<&EvidenceRecord>, at: Judging<'_>) -> ScopeVerdict {
    let (receipt, read_back) = match state {
        ScopeState::Corrupt { why, .. } => return corrupt(why, at),
        ScopeState::Installed {
            receipt, read_back, ..
        } => (receipt, read_back),
    };
    let fresh = counting(receipt, record, at.now, at.window);
    let mut evidence = read_back_evidence(receipt, record, at);
    let held = if fresh.is_some() {
        Level::Integrated
    } else {
        Level::PartiallyIntegrated
    };
    let rb = match read_back {
        Err(why) => return unreadable(held, why, evidence),
        Ok(rb) => rb,
    };
    let note = rb.others_changed.then(|| {
        "settings other than ours changed since install; they are the user's and are left alone"
            .to_owned()
    });
    if !rb.all_hold() {
        return drifted(receipt, rb, held, note, evidence, at.home);
    }
    let mut rung = if fresh.is_some() && rb.fingerprint == receipt.fingerprint {
        Level::Integrated
    } else {
        Level::PartiallyIntegrated
    };
    rung = gateway_rung(rung, fresh, &mut evidence, at);
    rung = host_rung(rung, fresh, &mut evidence, at);
    ScopeVerdict {
        rung,
        overriding: None,
        note,
        evidence,
        drifted: Vec::new(),
    }
}

/// A receipt that cannot be trusted: degraded, at the detection floor.
fn corrupt(why: &str, at: Judging<'_>) -> ScopeVerdict {
    let floor = if at.detected {
        Level::DetectedNotIntegrated
    } else {
        Level::NotInstalled
    };
    ScopeVerdict {
        rung: floor,
        overriding: Some((
            StatusState::Degraded,
            why.to_owned(),
            "the receipt is not trusted: restore it, or remove our keys by hand and plan again"
                .into(),
        )),
        note: None,
        evidence: vec![absent("managed_settings", "receipt_corrupt", at.now)],
        drifted: Vec::new(),
    }
}

/// Read-back evidence per capability of the receipt, only when it counts.
fn read_back_evidence(
    receipt: &Receipt,
    record: Option<&EvidenceRecord>,
    at: Judging<'_>,
) -> Vec<EvidenceView> {
    let mut caps: Vec<CapabilityName> = Vec::new();
    for k in &receipt.keys {
        if !caps.contains(&k.capability) {
            caps.push(k.capability);
        }
    }
    caps.into_iter()
        .map(|cap| {
            let mechanism = super::convert::mechanism(cap);
            match record.filter(|r| r.receipt_id == receipt.receipt_id) {
                Some(r) if is_fresh(r.read_back_at, at.now, at.window) => {
                    let matched = r.read_back.iter().any(|c| c.capability == cap && c.matched);
                    EvidenceView {
                        mechanism,
                        evidence: Evidence::ReadBack(if matched {
                            ReadBackOutcome::Matched
                        } else {
                            ReadBackOutcome::Mismatched
                        }),
                        observed_at_unix_secs: UnixSecs::new(r.read_back_at),
                        detail: None,
                    }
                }
                Some(_) => EvidenceView {
                    mechanism,
                    ..absent("managed_settings", "stale_or_future", at.now)
                },
                None => EvidenceView {
                    mechanism,
                    ..absent("managed_settings", "not_verified", at.now)
                },
            }
        })
        .collect()
}

/// The settings file cannot be read back: degraded, carrying the rung held.
fn unreadable(held: Level, why: &str, evidence: Vec<EvidenceView>) -> ScopeVerdict {
    ScopeVerdict {
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

/// Some key of ours no longer holds our value: drifted, naming those keys.
fn drifted(
    receipt: &Receipt,
    rb: &ReadBack,
    held: Level,
    note: Option<String>,
    evidence: Vec<EvidenceView>,
    home: &Path,
) -> ScopeVerdict {
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
    let changed = rb.keys.iter().filter(|k| !k.recorded).count();
    let moved = rb.keys.iter().filter(|k| k.policy_moved()).count();
    let (reason, remediation) = match (changed, moved) {
        (_, 0) => (
            format!(
                "{changed} of our {} settings no longer hold the value we installed",
                rb.keys.len()
            ),
            "run repair to restore our keys (other settings are left alone)",
        ),
        (0, _) => (
            format!(
                "{moved} of our {} settings no longer hold the value the policy profile asks for now (it changed since install)",
                rb.keys.len()
            ),
            "plan and apply again to put the policy's current values in force",
        ),
        _ => (
            format!(
                "{changed} of our {} settings were changed since install and {moved} no longer hold the value the policy profile asks for now",
                rb.keys.len()
            ),
            "run repair for the settings changed since install, then plan and apply again for the policy's current values",
        ),
    };
    ScopeVerdict {
        rung: held,
        overriding: Some((StatusState::Drifted, reason, remediation.into())),
        note,
        evidence,
        drifted,
    }
}

/// The `gateway_protected` rung: a fresh exercised probe a gateway observed blocking or
/// redacting, on an integrated scope.
fn gateway_rung(
    rung: Level,
    fresh: Option<&EvidenceRecord>,
    evidence: &mut Vec<EvidenceView>,
    at: Judging<'_>,
) -> Level {
    match fresh.and_then(|r| r.exercised.as_ref()) {
        Some(x) if is_fresh(x.observed_at, at.now, at.window) => {
            evidence.push(EvidenceView {
                mechanism: MechanismName::parse("gateway_probe").expect("valid"),
                evidence: Evidence::Exercised(x.outcome),
                observed_at_unix_secs: UnixSecs::new(x.observed_at),
                detail: None,
            });
            let protective = matches!(
                x.outcome,
                ExercisedOutcome::Blocked | ExercisedOutcome::Redacted
            );
            if rung == Level::Integrated && x.by_gateway && protective {
                return Level::GatewayProtected;
            }
        }
        _ if !at.probe_configured => {
            evidence.push(absent("gateway_probe", "no_probe_configured", at.now))
        }
        _ => evidence.push(absent("gateway_probe", "not_exercised", at.now)),
    }
    rung
}

/// The `host_enforced` rung: a fresh healthy host attestation, on a gateway-protected scope.
fn host_rung(
    rung: Level,
    fresh: Option<&EvidenceRecord>,
    evidence: &mut Vec<EvidenceView>,
    at: Judging<'_>,
) -> Level {
    match fresh.and_then(|r| r.host.as_ref()) {
        Some(h) if is_fresh(h.observed_at, at.now, at.window) => {
            evidence.push(EvidenceView {
                mechanism: MechanismName::parse("host_enforcement").expect("valid"),
                evidence: Evidence::HostAttested(h.outcome),
                observed_at_unix_secs: UnixSecs::new(h.observed_at),
                detail: None,
            });
            if rung == Level::GatewayProtected && h.outcome == HostAttestedOutcome::Healthy {
                return Level::HostEnforced;
            }
        }
        _ => evidence.push(absent("host_enforcement", "no_host_attestation", at.now)),
    }
    rung
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
