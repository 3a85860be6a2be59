//! `status` and `verify`: the protection state derived now, and fresh evidence recorded.
//!
//! Owns assembling the [`StatusView`] from every scope's verdict and the policy view, and
//! the verify read-back (plus the probe exercise and host attestation when configured). It
//! must never write settings, and never record evidence the read-back did not observe.

use super::enforcement::Holding;
use super::evidence::{self, Attestation, CapabilityReadBack, EvidenceRecord, Exercise};
use super::inspect::{ReadBack, ScopeState};
use super::ladder::{self, ScopeVerdict};
use super::receipt::Receipt;
use super::runtime::ReferenceRuntime;
use super::status_memo::{Pending, StatusKey};
use super::text::say;
use crate::adapters::{self, ToolDescriptor};
use devint::backend::LifecycleError;
use devint::backend::ToolAuthorization;
use devint::time::UnixSecs;
use devint::verbs::{
    Compatibility, Evidence, EvidenceView, Level, MechanismName, NextLevelView, Phase, PolicyState,
    PolicyView, Profile, ReadBackOutcome, SettingsScope, StatusState, StatusView,
    VerificationOutcome, VerificationView,
};

/// How the installed policies' controls hold, one per installed scope that still renders.
fn holdings(scopes: &[ScopeState]) -> impl Iterator<Item = &Holding> {
    scopes.iter().filter_map(|s| match s {
        ScopeState::Installed { holding, .. } => holding.as_ref(),
        ScopeState::Corrupt { .. } => None,
    })
}

impl ReferenceRuntime {
    pub(super) fn do_status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError> {
        let descriptor = self.descriptor(auth)?;
        let key = self.status_key(auth, descriptor);
        Ok(self.statuses.answer(descriptor.id, key.clone(), || {
            let scopes = self.inspect_all(auth.tool().as_str());
            self.status_under(auth, descriptor, &key, &scopes)
        }))
    }

    /// The remembered status of the call's tool, when showing it is current needs no file
    /// opened, no search and no wait (see [`Lifecycle::status_at_once`]).
    ///
    /// [`Lifecycle::status_at_once`]: devint::backend::Lifecycle::status_at_once
    pub(super) fn status_remembered(&self, auth: &ToolAuthorization) -> Option<StatusView> {
        let descriptor = adapters::find(auth.tool().as_str())?;
        let now = auth.now();
        let key = StatusKey {
            listing: self.detector.listing_at_once(descriptor)?,
            now,
            pending: Pending {
                install: self.plans.pending_install(auth.tool(), now),
            },
        };
        self.statuses.at_once(descriptor.id, &key)
    }

    /// What a status of `descriptor` depends on besides its files, as of now.
    fn status_key(
        &self,
        auth: &ToolAuthorization,
        descriptor: &'static ToolDescriptor,
    ) -> StatusKey {
        let now = auth.now();
        StatusKey {
            listing: self.detector.listing(descriptor),
            now,
            pending: Pending {
                install: self.plans.pending_install(auth.tool(), now),
            },
        }
    }

    pub(super) fn status_of(
        &self,
        auth: &ToolAuthorization,
        descriptor: &'static ToolDescriptor,
        scopes: &[ScopeState],
    ) -> StatusView {
        self.status_under(auth, descriptor, &self.status_key(auth, descriptor), scopes)
    }

    /// The status of `scopes`, with the detection, time and plans of `key`.
    fn status_under(
        &self,
        auth: &ToolAuthorization,
        descriptor: &'static ToolDescriptor,
        key: &StatusKey,
        scopes: &[ScopeState],
    ) -> StatusView {
        let now = key.now;
        let tool = auth.tool().as_str();
        let listing = &key.listing;
        let detected = &listing.detected;
        let probe = self.config.probe.is_some();
        let verdicts: Vec<ScopeVerdict> = scopes
            .iter()
            .map(|s| {
                let record =
                    evidence::load(&self.layout.evidence(tool, &self.scope_key(s.scope())));
                ladder::judge(
                    s,
                    record.as_ref(),
                    ladder::Judging {
                        detected: detected.present,
                        probe_configured: probe,
                        now: now.get(),
                        window: self.config.freshness,
                        home: &self.config.home,
                    },
                )
            })
            .collect();
        let floor = if detected.present {
            Level::DetectedNotIntegrated
        } else {
            Level::NotInstalled
        };
        let achieved = verdicts.iter().map(|v| v.rung).min().unwrap_or(floor);
        let compatibility = detected.compatibility;
        let overriding = overriding_state(descriptor, &verdicts, detected);
        let drifted = verdicts.iter().any(|v| {
            v.overriding
                .as_ref()
                .is_some_and(|o| o.0 == StatusState::Drifted)
        });
        let note = verdicts.iter().find_map(|v| v.note.clone());
        let (state, reason, remediation) = match overriding {
            Some((s, r, m)) => (s, Some(r), Some(m)),
            None => match self.unusable_settings(
                descriptor,
                &scopes.iter().map(ScopeState::scope).collect::<Vec<_>>(),
            ) {
                // A settings file a plan would be refused on is said now, not at plan time.
                Some((r, m)) => (StatusState::Ladder, Some(r), Some(m)),
                // Not found: say where detection looked (a text field; no new wire field).
                None => (
                    StatusState::Ladder,
                    note.or_else(|| detected.absence.as_deref().map(str::to_owned)),
                    None,
                ),
            },
        };
        let removing = scopes.iter().any(|s| {
            super::journal::removal_unfinished(&self.layout, tool, &self.scope_key(s.scope()))
        });
        let phase = phase(key.pending, removing, scopes, &verdicts, detected.present);
        let planned_level = scopes
            .iter()
            .filter_map(|s| match s {
                ScopeState::Installed { receipt, .. } => Some(receipt.planned_level),
                ScopeState::Corrupt { .. } => None,
            })
            .max();
        StatusView {
            tool_id: auth.tool().clone(),
            phase,
            state,
            achieved_level: achieved,
            planned_level,
            adapter_ceiling: holdings(scopes).fold(listing.adapter_ceiling, |c, h| h.ceiling(c)),
            compatibility,
            evidence: verdicts.iter().flat_map(|v| v.evidence.clone()).collect(),
            next_level: ladder::blocked_because(achieved, probe, drifted).map(|(level, why)| {
                NextLevelView {
                    level,
                    blocked_because: Some(say(why)),
                }
            }),
            observed_at_unix_secs: now,
            drift_mismatched: verdicts.iter().flat_map(|v| v.drifted.clone()).collect(),
            state_reason: reason.map(say),
            state_remediation: remediation.map(say),
            policy: Some(self.policy_view(descriptor, scopes)),
            unrecognized: Vec::new(),
        }
    }

    /// The policy state, honestly: `unconfigured` with no receipt, `load_failed` when the
    /// installed profile no longer loads, `unknown` when it changed since install,
    /// `permissive` for observe_only and when the tool cannot enforce part of the policy,
    /// `enforced` otherwise (saying which rules the tool holds only as advisory).
    pub(super) fn policy_view(
        &self,
        descriptor: &ToolDescriptor,
        scopes: &[ScopeState],
    ) -> PolicyView {
        let installed = scopes.iter().find_map(|s| match s {
            ScopeState::Installed {
                receipt, policy, ..
            } => Some((receipt, policy)),
            ScopeState::Corrupt { .. } => None,
        });
        let Some((receipt, loaded)) = installed else {
            let corrupt = !scopes.is_empty();
            return PolicyView {
                state: if corrupt {
                    PolicyState::Unknown
                } else {
                    PolicyState::Unconfigured
                },
                source: None,
                detail: Some(say(if corrupt {
                    "the receipt naming the policy profile is corrupt"
                } else {
                    "no integration is installed, so no policy profile is in force"
                })),
            };
        };
        let p = &receipt.profile;
        let source = Some(say(format!("policy profile {}", p.policy_id)));
        // Loaded once, as the scope was inspected: the same document the read-back used.
        let loaded = loaded.as_ref().as_ref().map_err(|e| e.to_string());
        let source = match &loaded {
            Ok(l) => Some(say(format!(
                "policy profile {} ({})",
                p.policy_id, l.source
            ))),
            Err(_) => source,
        };
        let (state, detail) = match loaded {
            Err(e) => (PolicyState::LoadFailed, e),
            Ok(l) if l.digest != p.digest => (
                PolicyState::Unknown,
                "the policy profile changed since it was installed; plan and apply again to put it in force".into(),
            ),
            Ok(_) if p.profile == Profile::ObserveOnly => (
                PolicyState::Permissive,
                "the observe_only profile routes traffic for observation and enforces nothing in the tool".into(),
            ),
            Ok(_) => {
                let installed =
                    format!("{} is installed with the {} profile", p.display_name, p.profile);
                let short = holdings(scopes).find(|h| h.falls_short());
                let holding = short.or_else(|| holdings(scopes).next());
                match holding.and_then(|h| h.summary(descriptor.display_name)) {
                    Some(summary) if short.is_some() => {
                        (PolicyState::Permissive, format!("{installed}, but {summary}"))
                    }
                    Some(summary) => (PolicyState::Enforced, format!("{installed}; {summary}")),
                    None => (PolicyState::Enforced, installed),
                }
            }
        };
        PolicyView {
            state,
            source,
            detail: Some(say(detail)),
        }
    }

    pub(super) fn do_verify(
        &self,
        auth: &ToolAuthorization,
    ) -> Result<VerificationView, LifecycleError> {
        let descriptor = self.descriptor(auth)?;
        let now = auth.now();
        let tool = auth.tool().as_str();
        let scopes = self.inspect_all(tool);
        let mut tally = Tally::default();
        for state in &scopes {
            let ScopeState::Installed {
                scope,
                receipt,
                read_back,
                ..
            } = state
            else {
                tally.unreadable.push("a receipt is corrupt".to_owned());
                continue;
            };
            match read_back {
                Ok(rb) => self.verify_scope(auth, *scope, receipt, rb, &mut tally)?,
                Err(why) => tally.unreadable.push(why.clone()),
            }
        }
        let (outcome, reason) = tally.outcome(scopes.is_empty());
        // The status view's evidence after recording (probe and host included): the same
        // read-back (verify writes evidence, never settings, so the files are not read again).
        let status = self.status_of(auth, descriptor, &scopes);
        let mut evidence = tally.evidence;
        evidence.extend(
            status
                .evidence
                .into_iter()
                .filter(|e| !matches!(e.evidence, Evidence::ReadBack(_)))
                .filter(
                    |e| !matches!(&e.evidence, Evidence::Absent(r) if r.as_str() == "not_verified"),
                ),
        );
        Ok(VerificationView {
            verified_at_unix_secs: now,
            outcome,
            missing: tally.missing,
            reason: reason.map(say),
            evidence,
            policy: Some(self.policy_view(descriptor, &scopes)),
            unrecognized: Vec::new(),
        })
    }

    /// One installed scope's verify: the read-back per capability (tallied), the probe and
    /// host attestation when every key holds, and the evidence record stored.
    fn verify_scope(
        &self,
        auth: &ToolAuthorization,
        scope: SettingsScope,
        receipt: &Receipt,
        rb: &ReadBack,
        tally: &mut Tally,
    ) -> Result<(), LifecycleError> {
        let now = auth.now();
        let mut caps: Vec<CapabilityReadBack> = Vec::new();
        for k in &rb.keys {
            match caps.iter_mut().find(|c| c.capability == k.key.capability) {
                Some(c) => c.matched &= k.holds,
                None => caps.push(CapabilityReadBack {
                    capability: k.key.capability,
                    matched: k.holds,
                }),
            }
        }
        for c in &caps {
            tally.count(c, now.get());
        }
        tally.policy_moved += rb.keys.iter().filter(|k| k.policy_moved()).count();
        let all = rb.all_hold() && rb.fingerprint == receipt.fingerprint;
        let probe = self.config.probe.as_ref().filter(|_| all);
        let record = EvidenceRecord {
            receipt_id: receipt.receipt_id.clone(),
            fingerprint: rb.fingerprint.clone(),
            read_back_at: now.get(),
            read_back: caps,
            exercised: probe
                .and_then(|p| p.exercise(auth.tool(), scope, now))
                .map(|o| Exercise {
                    outcome: o.outcome,
                    observed_at: o.observed_at_unix_secs.get(),
                    by_gateway: o.observed_by_gateway,
                }),
            host: probe
                .and_then(|p| p.host_attestation(auth.tool(), now))
                .map(|h| Attestation {
                    outcome: h.outcome,
                    observed_at: h.observed_at_unix_secs.get(),
                }),
        };
        let path = self
            .layout
            .evidence(auth.tool().as_str(), &self.scope_key(scope));
        evidence::store(&path, &record).map_err(|e| {
            super::text::refuse(
                e.to_string(),
                "check the runtime's state directory, then verify again",
            )
        })
    }
}

/// The lifecycle phase: a removal begun and not finished (`removing`), a live install plan
/// with nothing installed, or what the receipts and their verdicts say.
fn phase(
    pending: Pending,
    removing: bool,
    scopes: &[ScopeState],
    verdicts: &[ScopeVerdict],
    detected: bool,
) -> Phase {
    if scopes.is_empty() {
        if pending.install {
            Phase::Planned
        } else if detected {
            Phase::DetectedNotIntegrated
        } else {
            Phase::NotInstalled
        }
    } else if removing {
        Phase::RemovalPending
    } else if verdicts.iter().all(|v| v.overriding.is_none()) {
        Phase::Installed
    } else {
        Phase::PartiallyInstalled
    }
}

/// The state overriding the ladder, with its reason and remediation, most severe last:
/// drifted, then degraded (a scope's, or the tool gone with settings installed), then
/// incompatible.
fn overriding_state(
    descriptor: &ToolDescriptor,
    verdicts: &[ScopeVerdict],
    detected: &adapters::Detected,
) -> Option<(StatusState, String, String)> {
    let pick = |state: StatusState| {
        verdicts
            .iter()
            .find_map(|v| v.overriding.clone().filter(|o| o.0 == state))
    };
    let mut overriding = pick(StatusState::Drifted).or_else(|| pick(StatusState::Degraded));
    if overriding.is_none() && !verdicts.is_empty() && !detected.present {
        overriding = Some((
            StatusState::Degraded,
            format!(
                "the installed settings take no effect: {}",
                detected.absence.as_deref().unwrap_or_default()
            ),
            "reinstall the tool, or remove the integration".into(),
        ));
    }
    if detected.compatibility == Compatibility::Incompatible {
        overriding = Some((
            StatusState::Incompatible,
            format!(
                "the installed {} version is outside the adapter's supported range",
                descriptor.display_name
            ),
            "upgrade or downgrade the tool to a supported version".into(),
        ));
    }
    overriding
}

/// What one verify read back, across scopes.
#[derive(Default)]
struct Tally {
    evidence: Vec<EvidenceView>,
    missing: Vec<MechanismName>,
    matched: usize,
    total: usize,
    unreadable: Vec<String>,
    /// Keys that still hold what we wrote, which the policy no longer asks for.
    policy_moved: usize,
}

impl Tally {
    /// Counts one capability's read-back and shows it as evidence.
    fn count(&mut self, c: &CapabilityReadBack, now: u64) {
        self.total += 1;
        let mechanism = super::convert::mechanism(c.capability);
        if c.matched {
            self.matched += 1;
        } else if !self.missing.contains(&mechanism) {
            self.missing.push(mechanism.clone());
        }
        self.evidence.push(EvidenceView {
            mechanism,
            evidence: Evidence::ReadBack(if c.matched {
                ReadBackOutcome::Matched
            } else {
                ReadBackOutcome::Mismatched
            }),
            observed_at_unix_secs: UnixSecs::new(now),
            detail: None,
        });
    }

    /// The verification outcome and its reason.
    fn outcome(&self, nothing_installed: bool) -> (VerificationOutcome, Option<String>) {
        if nothing_installed {
            (
                VerificationOutcome::Unverifiable,
                Some(
                    "nothing is installed for this tool, so there is nothing to read back"
                        .to_owned(),
                ),
            )
        } else if !self.unreadable.is_empty() && self.matched == 0 {
            (
                VerificationOutcome::Unverifiable,
                self.unreadable.first().cloned(),
            )
        } else if self.matched == self.total && self.unreadable.is_empty() {
            (VerificationOutcome::Passed, None)
        } else {
            let reason = if self.policy_moved > 0 {
                format!(
                    "{} of our settings no longer hold the value the policy profile asks for now (it changed since install); plan and apply again",
                    self.policy_moved
                )
            } else if self.matched > 0 {
                "some of our settings no longer hold the value we installed; run repair".to_owned()
            } else {
                "none of our settings hold the value we installed; run repair".to_owned()
            };
            let outcome = if self.matched > 0 {
                VerificationOutcome::PartiallyPassed
            } else {
                VerificationOutcome::Failed
            };
            (outcome, Some(reason))
        }
    }
}
