//! A deterministic, stateful test backend: the same call sequence gives the same answers on
//! two instances (ids from a counter, times from a tick), so the sidecar and the Rust client
//! can be compared answer for answer. It keeps install and removal plans, an installed flag
//! per tool, scoped events a test can append, and refuses unknown plans and approval ids
//! starting with `0000` (`LIFECYCLE_ERROR`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use devint::backend::{Authorization, Lifecycle, LifecycleError, ToolAuthorization};
use devint::verbs::{
    ActionKind, AdapterCeiling, ApplyMutation, ApplyOutcomeView, ApplyView, ApprovalId,
    ApprovalRelayAck, CapabilityName, CapabilityView, Compatibility, Digest, Evidence,
    EvidenceView, KeyName, Level, ManagedRef, MechanismName, NextLevelView, Phase, PlanArgs,
    PlanId, PlanView, PolicyState, PolicyView, Privilege, ReadBackOutcome, ReceiptId, RemovalView,
    RepairView, Requirement, ScopedEvent, ScopedEventList, Sentence, StatusState, StatusView,
    StepId, StepOutcome, StepOutcomeView, StepView, Support, ToolId, ToolList, ToolSummary,
    UnsupportedMechanismView, UserInput, VerdictKind, VerificationOutcome, VerificationView,
    VersionLabel,
};

const TOOLS: [&str; 2] = ["claude-code", "codex"];
const EPOCH: u64 = 1_700_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PlanKind {
    Install,
    Removal,
}

#[derive(Debug, Default)]
struct State {
    counter: u64,
    plans: HashMap<String, (ToolId, PlanKind)>,
    installed: HashMap<ToolId, bool>,
}

/// The scripted backend.
#[derive(Debug, Default)]
pub struct ScriptedBackend {
    state: Mutex<State>,
    events: Arc<Mutex<Vec<(ToolId, ScopedEvent)>>>,
}

/// A handle to append scoped events while a runtime serves.
#[derive(Debug, Clone)]
pub struct Events(Arc<Mutex<Vec<(ToolId, ScopedEvent)>>>);

impl Events {
    /// Append a `deny` event for `tool` at `at` aggregating `count` verdicts.
    pub fn push(&self, tool: &str, at: u64, count: u32) {
        self.0
            .lock()
            .unwrap()
            .push((ToolId::parse(tool).unwrap(), event(at, count)));
    }
}

/// A scoped event as the backend records it.
pub fn event(at: u64, count: u32) -> ScopedEvent {
    ScopedEvent {
        occurred_at_unix_secs: devint::time::UnixSecs::new(at),
        verdict_kind: VerdictKind::Deny,
        mechanism: MechanismName::parse("model_gateway_base_url").unwrap(),
        count,
        redaction_labels: vec![devint::verbs::RedactionLabel::parse("pii.email").unwrap()],
    }
}

fn s(text: &'static str) -> Sentence {
    Sentence::from_static(text)
}

fn refused(message: &'static str, remediation: &'static str) -> LifecycleError {
    LifecycleError::refused(s(message), s(remediation))
}

fn key() -> KeyName {
    KeyName::parse("env.ANTHROPIC_BASE_URL").unwrap()
}

fn digest() -> Digest {
    Digest::parse(&"ab".repeat(32)).unwrap()
}

impl ScriptedBackend {
    /// A fresh backend and the handle to its events.
    pub fn new() -> (ScriptedBackend, Events) {
        let backend = ScriptedBackend::default();
        let events = Events(Arc::clone(&backend.events));
        (backend, events)
    }

    fn next(&self) -> (u64, String) {
        let mut st = self.state.lock().unwrap();
        st.counter += 1;
        (EPOCH + st.counter, format!("{:032x}", st.counter))
    }

    fn installed(&self, tool: &ToolId) -> bool {
        *self
            .state
            .lock()
            .unwrap()
            .installed
            .get(tool)
            .unwrap_or(&false)
    }

    fn step() -> StepView {
        StepView {
            id: StepId::parse("model_gateway_base_url").unwrap(),
            summary: s("Set env.ANTHROPIC_BASE_URL in the user settings"),
            action_kind: ActionKind::ConfigureModelGatewayBaseUrl,
            requirement: Requirement::Required,
            privilege: Privilege::User,
            consent_prompt: None,
            settings_scope: devint::verbs::SettingsScope::User,
            managed_keys: vec![key()],
            artifact_paths: vec![
                devint::verbs::ArtifactPath::parse("~/.claude/settings.json").unwrap(),
            ],
            content_sha256: Some(digest()),
            reversible: true,
        }
    }

    fn status_view(&self, tool: &ToolId, now: u64) -> StatusView {
        let installed = self.installed(tool);
        StatusView {
            tool_id: tool.clone(),
            phase: if installed {
                Phase::Installed
            } else {
                Phase::DetectedNotIntegrated
            },
            state: StatusState::Ladder,
            achieved_level: if installed {
                Level::Integrated
            } else {
                Level::DetectedNotIntegrated
            },
            planned_level: installed.then_some(Level::GatewayProtected),
            adapter_ceiling: AdapterCeiling::L3Native,
            compatibility: Compatibility::Compatible,
            evidence: if installed {
                vec![EvidenceView {
                    mechanism: MechanismName::parse("model_gateway_base_url").unwrap(),
                    evidence: Evidence::ReadBack(ReadBackOutcome::Matched),
                    observed_at_unix_secs: devint::time::UnixSecs::new(now),
                    detail: None,
                }]
            } else {
                Vec::new()
            },
            next_level: Some(NextLevelView {
                level: Level::GatewayProtected,
                blocked_because: Some(s("no protection probe is configured")),
            }),
            observed_at_unix_secs: devint::time::UnixSecs::new(now),
            drift_mismatched: Vec::new(),
            state_reason: None,
            state_remediation: None,
            policy: Some(PolicyView {
                state: PolicyState::Unconfigured,
                source: None,
                detail: None,
            }),
            unrecognized: Vec::new(),
        }
    }
}

impl Lifecycle for ScriptedBackend {
    fn knows_tool(&self, tool: &ToolId) -> bool {
        TOOLS.contains(&tool.as_str())
    }

    fn list_tools(&self, _auth: &Authorization) -> Result<ToolList, LifecycleError> {
        Ok(ToolList {
            tools: TOOLS
                .iter()
                .map(|t| ToolSummary {
                    tool_id: ToolId::parse(t).unwrap(),
                    display_name: s("A scripted tool"),
                    detected: *t == "claude-code",
                    detected_version: (*t == "claude-code")
                        .then(|| VersionLabel::parse("2.0.14").unwrap()),
                    compatibility: Compatibility::Compatible,
                    capabilities: CapabilityName::ALL
                        .iter()
                        .map(|c| CapabilityView {
                            capability: *c,
                            support: if *c == CapabilityName::ModelGatewayBaseUrl {
                                Support::Supported
                            } else {
                                Support::Unsupported
                            },
                            reason: (*c != CapabilityName::ModelGatewayBaseUrl)
                                .then(|| s("not in this script")),
                        })
                        .collect(),
                    adapter_ceiling: AdapterCeiling::L3Native,
                })
                .collect(),
        })
    }

    fn plan(&self, auth: &ToolAuthorization, args: &PlanArgs) -> Result<PlanView, LifecycleError> {
        let (_, id) = self.next();
        let mut st = self.state.lock().unwrap();
        st.plans
            .insert(id.clone(), (auth.tool().clone(), PlanKind::Install));
        Ok(PlanView {
            schema_version: 1,
            plan_id: PlanId::parse(&id).unwrap(),
            tool_id: auth.tool().clone(),
            profile: args.profile,
            settings_scope: args.scope,
            policy_profile: None,
            planned_level: args.requested_level,
            adapter_ceiling: AdapterCeiling::L3Native,
            steps: vec![ScriptedBackend::step()],
            unsupported: vec![UnsupportedMechanismView {
                capability: CapabilityName::HostEnforcement,
                reason: s("no host enforcement layer here"),
            }],
            warnings: vec![s("no protection probe is configured")],
        })
    }

    fn apply(&self, auth: &ToolAuthorization, plan: &PlanId) -> Result<ApplyView, LifecycleError> {
        let (now, receipt) = self.next();
        let mut st = self.state.lock().unwrap();
        match st.plans.get(plan.as_str()) {
            Some((tool, PlanKind::Install)) if tool == auth.tool() => {}
            _ => return Err(refused("no install plan has this id", "call plan first")),
        }
        st.plans.remove(plan.as_str());
        let was = st
            .installed
            .insert(auth.tool().clone(), true)
            .unwrap_or(false);
        Ok(ApplyView {
            plan_id: plan.clone(),
            receipt_id: ReceiptId::parse(&receipt).unwrap(),
            applied_at_unix_secs: devint::time::UnixSecs::new(now),
            steps: vec![StepOutcomeView {
                step_id: StepId::parse("model_gateway_base_url").unwrap(),
                outcome: StepOutcome::Applied,
                fingerprint: Some(digest()),
            }],
            planned_level: Level::GatewayProtected,
            achieved_level: Level::Integrated,
            outcome: Some(ApplyOutcomeView {
                mutation: if was {
                    ApplyMutation::Unchanged
                } else {
                    ApplyMutation::Changed
                },
                detail: None,
            }),
        })
    }

    fn status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError> {
        let (now, _) = self.next();
        Ok(self.status_view(auth.tool(), now))
    }

    fn verify(&self, auth: &ToolAuthorization) -> Result<VerificationView, LifecycleError> {
        let (now, _) = self.next();
        let installed = self.installed(auth.tool());
        Ok(VerificationView {
            verified_at_unix_secs: devint::time::UnixSecs::new(now),
            outcome: if installed {
                VerificationOutcome::Passed
            } else {
                VerificationOutcome::Unverifiable
            },
            missing: Vec::new(),
            reason: (!installed).then(|| s("nothing is installed")),
            evidence: self.status_view(auth.tool(), now).evidence,
            policy: None,
            unrecognized: Vec::new(),
        })
    }

    fn repair(&self, auth: &ToolAuthorization) -> Result<RepairView, LifecycleError> {
        let (now, _) = self.next();
        Ok(RepairView {
            tool_id: auth.tool().clone(),
            repaired: if self.installed(auth.tool()) {
                vec![ManagedRef::Key(key())]
            } else {
                Vec::new()
            },
            unrepairable: Vec::new(),
            status: self.status_view(auth.tool(), now),
            unrecognized: Vec::new(),
        })
    }

    fn remove(
        &self,
        auth: &ToolAuthorization,
        plan: Option<&PlanId>,
    ) -> Result<RemovalView, LifecycleError> {
        let (_, id) = self.next();
        let mut st = self.state.lock().unwrap();
        let plan_id = match plan {
            None => {
                st.plans
                    .insert(id.clone(), (auth.tool().clone(), PlanKind::Removal));
                PlanId::parse(&id).unwrap()
            }
            Some(p) => {
                match st.plans.remove(p.as_str()) {
                    Some((tool, PlanKind::Removal)) if &tool == auth.tool() => {}
                    _ => {
                        return Err(refused(
                            "no removal plan has this id",
                            "preview the removal first",
                        ))
                    }
                }
                st.installed.insert(auth.tool().clone(), false);
                p.clone()
            }
        };
        Ok(RemovalView {
            schema_version: 1,
            plan_id,
            tool_id: auth.tool().clone(),
            steps: vec![ScriptedBackend::step()],
            residual: Vec::new(),
            warnings: Vec::new(),
        })
    }

    fn scoped_events(
        &self,
        auth: &ToolAuthorization,
        limit: u32,
        since: devint::time::UnixSecs,
    ) -> Result<ScopedEventList, LifecycleError> {
        let mut events: Vec<ScopedEvent> = self
            .events
            .lock()
            .unwrap()
            .iter()
            .filter(|(t, e)| t == auth.tool() && e.occurred_at_unix_secs >= since)
            .map(|(_, e)| e.clone())
            .collect();
        if limit > 0 {
            events.truncate(limit as usize);
        }
        Ok(ScopedEventList { events })
    }

    fn approval_relay(
        &self,
        _auth: &ToolAuthorization,
        approval: &ApprovalId,
        input: UserInput,
    ) -> Result<ApprovalRelayAck, LifecycleError> {
        let (now, _) = self.next();
        if approval.as_str().starts_with("0000") {
            return Err(refused(
                "no pending approval has this id",
                "relay a pending approval",
            ));
        }
        Ok(ApprovalRelayAck {
            approval_id: approval.clone(),
            relayed_input: input,
            accepted_at_unix_secs: devint::time::UnixSecs::new(now),
        })
    }
}
