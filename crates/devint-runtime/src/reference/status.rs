//! `status` and `verify`: the protection state derived now, and fresh evidence recorded.
//!
//! Owns assembling the [`StatusView`] from every scope's verdict and the policy view, and
//! the verify read-back (plus the probe exercise and host attestation when configured). It
//! must never write settings, and never record evidence the read-back did not observe.

use super::evidence::{self, Attestation, CapabilityReadBack, EvidenceRecord, Exercise};
use super::inspect::ScopeState;
use super::ladder::{self, ScopeVerdict};
use super::profile;
use super::runtime::ReferenceRuntime;
use super::text::say;
use crate::adapters::{self, ToolDescriptor};
use devint::backend::LifecycleError;
use devint::backend::ToolAuthorization;
use devint::verbs::{
    Compatibility, Evidence, EvidenceView, Level, MechanismName, NextLevelView, Phase,
    PolicyProfileId, PolicyState, PolicyView, ReadBackOutcome, StatusState, StatusView,
    VerificationOutcome, VerificationView,
};

impl ReferenceRuntime {
    pub(super) fn do_status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError> {
        let descriptor = self.descriptor(auth)?;
        let scopes = self.inspect_all(auth.tool().as_str());
        Ok(self.status_of(auth, descriptor, &scopes))
    }

    pub(super) fn status_of(
        &self,
        auth: &ToolAuthorization,
        descriptor: &'static ToolDescriptor,
        scopes: &[ScopeState],
    ) -> StatusView {
        let now = auth.now();
        let tool = auth.tool().as_str();
        let detected = adapters::detect(descriptor, &self.config.path_env, &self.config.home);
        let listing = adapters::listing(descriptor, detected.clone());
        let probe = self.config.probe.is_some();
        let verdicts: Vec<ScopeVerdict> = scopes
            .iter()
            .map(|s| {
                let record =
                    evidence::load(&self.layout.evidence(tool, &self.scope_key(s.scope())));
                ladder::judge(
                    s,
                    record.as_ref(),
                    detected.present,
                    probe,
                    now.get(),
                    self.config.freshness,
                    &self.config.home,
                )
            })
            .collect();
        let floor = if detected.present {
            Level::DetectedNotIntegrated
        } else {
            Level::NotInstalled
        };
        let achieved = verdicts.iter().map(|v| v.rung).min().unwrap_or(floor);
        let pick = |state: StatusState| {
            verdicts
                .iter()
                .find_map(|v| v.overriding.clone().filter(|o| o.0 == state))
        };
        let compatibility = detected.compatibility;
        let mut overriding = pick(StatusState::Drifted).or_else(|| pick(StatusState::Degraded));
        if overriding.is_none() && !verdicts.is_empty() && !detected.present {
            overriding = Some((
                StatusState::Degraded,
                format!(
                    "{} was not found on this host, so the installed settings take no effect",
                    descriptor.display_name
                ),
                "reinstall the tool, or remove the integration".into(),
            ));
        }
        if compatibility == Compatibility::Incompatible {
            overriding = Some((
                StatusState::Incompatible,
                format!(
                    "the installed {} version is outside the adapter's supported range",
                    descriptor.display_name
                ),
                "upgrade or downgrade the tool to a supported version".into(),
            ));
        }
        let drifted = verdicts.iter().any(|v| {
            v.overriding
                .as_ref()
                .is_some_and(|o| o.0 == StatusState::Drifted)
        });
        let note = verdicts.iter().find_map(|v| v.note.clone());
        let (state, reason, remediation) = match overriding {
            Some((s, r, m)) => (s, Some(r), Some(m)),
            None => (StatusState::Ladder, note, None),
        };
        let pending_removal = self.plans.pending(auth.tool(), now.get(), true);
        let phase = if pending_removal && !scopes.is_empty() {
            Phase::RemovalPending
        } else if scopes.is_empty() {
            if self.plans.pending(auth.tool(), now.get(), false) {
                Phase::Planned
            } else if detected.present {
                Phase::DetectedNotIntegrated
            } else {
                Phase::NotInstalled
            }
        } else if verdicts.iter().all(|v| v.overriding.is_none()) {
            Phase::Installed
        } else {
            Phase::PartiallyInstalled
        };
        let planned_level = scopes
            .iter()
            .filter_map(|s| match s {
                ScopeState::Installed { receipt, .. } => Level::parse(&receipt.planned_level).ok(),
                ScopeState::Corrupt { .. } => None,
            })
            .max();
        StatusView {
            tool_id: auth.tool().clone(),
            phase,
            state,
            achieved_level: achieved,
            planned_level,
            adapter_ceiling: listing.adapter_ceiling,
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
            policy: Some(self.policy_view(scopes)),
        }
    }

    /// The policy state, honestly: `unconfigured` with no receipt, `load_failed` when the
    /// installed profile no longer loads, `unknown` when it changed since install,
    /// `permissive` for observe_only, `enforced` otherwise.
    pub(super) fn policy_view(&self, scopes: &[ScopeState]) -> PolicyView {
        let receipt = scopes.iter().find_map(|s| match s {
            ScopeState::Installed { receipt, .. } => Some(receipt),
            ScopeState::Corrupt { .. } => None,
        });
        let Some(receipt) = receipt else {
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
        let loaded = PolicyProfileId::parse(&p.policy_id)
            .map_err(|e| e.to_string())
            .and_then(|id| {
                profile::load(
                    &self.layout.profiles(),
                    &id,
                    self.config.gateway_base_url.as_deref(),
                )
                .map_err(|e| e.to_string())
            });
        let source = match &loaded {
            Ok(l) => Some(say(format!(
                "policy profile {} ({})",
                p.policy_id, l.source
            ))),
            Err(_) => source,
        };
        let (state, detail) = match loaded {
            Err(e) => (PolicyState::LoadFailed, e),
            Ok(l) if l.digest.as_str() != p.digest => (
                PolicyState::Unknown,
                "the policy profile changed since it was installed; plan and apply again to put it in force".into(),
            ),
            Ok(_) if p.profile == "observe_only" => (
                PolicyState::Permissive,
                "the observe_only profile routes traffic for observation and enforces nothing in the tool".into(),
            ),
            Ok(_) => (
                PolicyState::Enforced,
                format!("{} is installed with the {} profile", p.display_name, p.profile),
            ),
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
        let mut evidence_views = Vec::new();
        let mut missing: Vec<MechanismName> = Vec::new();
        let (mut matched, mut total, mut unreadable) = (0usize, 0usize, Vec::new());
        for state in &scopes {
            let ScopeState::Installed {
                scope,
                receipt,
                read_back,
            } = state
            else {
                unreadable.push("a receipt is corrupt".to_owned());
                continue;
            };
            let rb = match read_back {
                Ok(rb) => rb,
                Err(why) => {
                    unreadable.push(why.clone());
                    continue;
                }
            };
            let mut caps: Vec<CapabilityReadBack> = Vec::new();
            for k in &rb.keys {
                match caps.iter_mut().find(|c| c.capability == k.key.capability) {
                    Some(c) => c.matched &= k.holds,
                    None => caps.push(CapabilityReadBack {
                        capability: k.key.capability.clone(),
                        matched: k.holds,
                    }),
                }
            }
            for c in &caps {
                total += 1;
                let mechanism = super::convert::mechanism(&c.capability);
                if c.matched {
                    matched += 1;
                } else if !missing.contains(&mechanism) {
                    missing.push(mechanism.clone());
                }
                evidence_views.push(EvidenceView {
                    mechanism,
                    evidence: Evidence::ReadBack(if c.matched {
                        ReadBackOutcome::Matched
                    } else {
                        ReadBackOutcome::Mismatched
                    }),
                    observed_at_unix_secs: now,
                    detail: None,
                });
            }
            let all = rb.all_hold() && rb.fingerprint == receipt.fingerprint;
            let exercised = match (&self.config.probe, all) {
                (Some(probe), true) => probe.exercise(auth.tool(), *scope, now).map(|o| Exercise {
                    outcome: o.outcome.token().to_owned(),
                    observed_at: o.observed_at_unix_secs.get(),
                    by_gateway: o.observed_by_gateway,
                }),
                _ => None,
            };
            let host = match (&self.config.probe, all) {
                (Some(probe), true) => {
                    probe
                        .host_attestation(auth.tool(), now)
                        .map(|h| Attestation {
                            outcome: h.outcome.token().to_owned(),
                            observed_at: h.observed_at_unix_secs.get(),
                        })
                }
                _ => None,
            };
            let record = EvidenceRecord {
                receipt_id: receipt.receipt_id.clone(),
                fingerprint: rb.fingerprint.clone(),
                read_back_at: now.get(),
                read_back: caps,
                exercised,
                host,
            };
            let path = self.layout.evidence(tool, &self.scope_key(*scope));
            evidence::store(&path, &record).map_err(|e| {
                super::text::refuse(
                    e.to_string(),
                    "check the runtime's state directory, then verify again",
                )
            })?;
        }
        let (outcome, reason) = if scopes.is_empty() {
            (
                VerificationOutcome::Unverifiable,
                Some(
                    "nothing is installed for this tool, so there is nothing to read back"
                        .to_owned(),
                ),
            )
        } else if !unreadable.is_empty() && matched == 0 {
            (
                VerificationOutcome::Unverifiable,
                unreadable.first().cloned(),
            )
        } else if matched == total && unreadable.is_empty() {
            (VerificationOutcome::Passed, None)
        } else if matched > 0 {
            (
                VerificationOutcome::PartiallyPassed,
                Some(
                    "some of our settings no longer hold the value we installed; run repair"
                        .to_owned(),
                ),
            )
        } else {
            (
                VerificationOutcome::Failed,
                Some("none of our settings hold the value we installed; run repair".to_owned()),
            )
        };
        // The status view's evidence after recording (probe and host included).
        let status = self.status_of(auth, descriptor, &self.inspect_all(tool));
        evidence_views.extend(
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
            missing,
            reason: reason.map(say),
            evidence: evidence_views,
            policy: Some(self.policy_view(&scopes)),
        })
    }
}
