//! Test support (feature `test-support`): an in-memory [`Lifecycle`] that counts every call,
//! for pair tests, socket tests, fuzzers, examples and benchmarks.
//!
//! It knows a fixed set of tools and answers each verb with a small, valid view. It never
//! touches a file. The counters prove that no denied request reaches a backend.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::backend::{Authorization, CallKind, Lifecycle, LifecycleError, ToolAuthorization};
use crate::time::UnixSecs;
use crate::verbs::{
    AdapterCeiling, ApplyMutation, ApplyOutcomeView, ApplyView, ApprovalId, ApprovalRelayAck,
    CapabilityName, CapabilityView, Compatibility, Level, Phase, PlanArgs, PlanId, PlanView,
    ReceiptId, RemovalView, RepairView, ScopedEventList, Sentence, StatusState, StatusView,
    Support, ToolId, ToolList, ToolSummary, UserInput, Verb, VerificationOutcome, VerificationView,
};

/// An in-memory backend that counts calls per verb.
#[derive(Debug)]
pub struct CountingBackend {
    tools: Vec<ToolId>,
    calls: [AtomicUsize; 9],
    delay: Mutex<Option<Duration>>,
    display_name: Mutex<Sentence>,
}

impl Default for CountingBackend {
    fn default() -> Self {
        CountingBackend::new(&["claude-code", "codex"])
    }
}

impl CountingBackend {
    /// A backend that knows `tools` (kebab-case ids).
    pub fn new(tools: &[&str]) -> CountingBackend {
        CountingBackend {
            tools: tools
                .iter()
                .map(|t| ToolId::parse(t).expect("test tool ids are kebab-case"))
                .collect(),
            calls: Default::default(),
            delay: Mutex::new(None),
            display_name: Mutex::new(Sentence::from_static("Test tool")),
        }
    }

    /// Make every call sleep for `delay` first (a slow backend).
    pub fn set_delay(&self, delay: Option<Duration>) {
        *self.delay.lock().unwrap_or_else(|p| p.into_inner()) = delay;
    }

    /// The display name `list_tools` reports for every tool, checked the way a backend
    /// checks text it read from elsewhere ([`Sentence::or_placeholder`]): a refused text
    /// is reported as its placeholder, which carries the refusal.
    pub fn set_display_name(&self, text: &str) {
        *self.display_name.lock().unwrap_or_else(|p| p.into_inner()) =
            Sentence::or_placeholder(text).0;
    }

    /// Calls made for `verb`.
    pub fn calls(&self, verb: Verb) -> usize {
        self.calls[verb as usize].load(Ordering::SeqCst)
    }

    /// Calls made for every verb together.
    pub fn total_calls(&self) -> usize {
        self.calls.iter().map(|c| c.load(Ordering::SeqCst)).sum()
    }

    fn count(&self, verb: Verb) {
        self.calls[verb as usize].fetch_add(1, Ordering::SeqCst);
        let delay = *self.delay.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(d) = delay {
            std::thread::sleep(d);
        }
    }

    fn status_view(&self, tool: &ToolId, now: UnixSecs) -> StatusView {
        StatusView {
            tool_id: tool.clone(),
            phase: Phase::DetectedNotIntegrated,
            state: StatusState::Ladder,
            achieved_level: Level::DetectedNotIntegrated,
            planned_level: None,
            adapter_ceiling: AdapterCeiling::L2Enforce,
            compatibility: Compatibility::Compatible,
            evidence: Vec::new(),
            next_level: None,
            observed_at_unix_secs: now,
            drift_mismatched: Vec::new(),
            state_reason: None,
            state_remediation: None,
            policy: None,
            unrecognized: Vec::new(),
        }
    }
}

fn refused(message: &'static str) -> LifecycleError {
    LifecycleError::refused(
        Sentence::from_static(message),
        Sentence::from_static("this in-memory test backend keeps no plans; call plan first"),
    )
}

impl Lifecycle for CountingBackend {
    /// In memory, so never blocking — unless [`CountingBackend::set_delay`] made it sleep.
    fn call_kind(&self, _verb: Verb) -> CallKind {
        match *self.delay.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(_) => CallKind::Blocking,
            None => CallKind::NonBlocking,
        }
    }

    fn knows_tool(&self, tool: &ToolId) -> bool {
        self.tools.contains(tool)
    }

    fn list_tools(&self, _auth: &Authorization) -> Result<ToolList, LifecycleError> {
        self.count(Verb::ListTools);
        let display_name = self
            .display_name
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        Ok(ToolList {
            tools: self
                .tools
                .iter()
                .map(|t| ToolSummary {
                    tool_id: t.clone(),
                    display_name: display_name.clone(),
                    detected: false,
                    detected_version: None,
                    compatibility: Compatibility::Unknown,
                    capabilities: CapabilityName::ALL
                        .iter()
                        .map(|c| CapabilityView {
                            capability: *c,
                            support: Support::Absent,
                            reason: None,
                        })
                        .collect(),
                    adapter_ceiling: AdapterCeiling::L0Discover,
                })
                .collect(),
        })
    }

    fn plan(&self, auth: &ToolAuthorization, args: &PlanArgs) -> Result<PlanView, LifecycleError> {
        self.count(Verb::Plan);
        Ok(PlanView {
            schema_version: 1,
            plan_id: PlanId::random(),
            tool_id: auth.tool().clone(),
            profile: args.profile,
            settings_scope: args.scope,
            policy_profile: None,
            planned_level: Level::Integrated,
            adapter_ceiling: AdapterCeiling::L2Enforce,
            steps: Vec::new(),
            unsupported: Vec::new(),
            warnings: Vec::new(),
        })
    }

    fn apply(&self, auth: &ToolAuthorization, plan: &PlanId) -> Result<ApplyView, LifecycleError> {
        self.count(Verb::Apply);
        Ok(ApplyView {
            plan_id: plan.clone(),
            receipt_id: ReceiptId::random(),
            applied_at_unix_secs: auth.now(),
            steps: Vec::new(),
            planned_level: Level::Integrated,
            achieved_level: Level::PartiallyIntegrated,
            outcome: Some(ApplyOutcomeView {
                mutation: ApplyMutation::Unchanged,
                detail: None,
            }),
        })
    }

    fn status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError> {
        self.count(Verb::Status);
        Ok(self.status_view(auth.tool(), auth.now()))
    }

    fn verify(&self, auth: &ToolAuthorization) -> Result<VerificationView, LifecycleError> {
        self.count(Verb::Verify);
        Ok(VerificationView {
            verified_at_unix_secs: auth.now(),
            outcome: VerificationOutcome::Unverifiable,
            missing: Vec::new(),
            reason: Some(Sentence::from_static("nothing is installed")),
            evidence: Vec::new(),
            policy: None,
            unrecognized: Vec::new(),
        })
    }

    fn repair(&self, auth: &ToolAuthorization) -> Result<RepairView, LifecycleError> {
        self.count(Verb::Repair);
        Ok(RepairView {
            tool_id: auth.tool().clone(),
            repaired: Vec::new(),
            unrepairable: Vec::new(),
            status: self.status_view(auth.tool(), auth.now()),
            unrecognized: Vec::new(),
        })
    }

    fn remove(
        &self,
        auth: &ToolAuthorization,
        plan: Option<&PlanId>,
    ) -> Result<RemovalView, LifecycleError> {
        self.count(Verb::Remove);
        Ok(RemovalView {
            schema_version: 1,
            plan_id: plan.cloned().unwrap_or_else(PlanId::random),
            tool_id: auth.tool().clone(),
            steps: Vec::new(),
            residual: Vec::new(),
            warnings: Vec::new(),
        })
    }

    fn scoped_events(
        &self,
        _auth: &ToolAuthorization,
        _limit: u32,
        _since: UnixSecs,
    ) -> Result<ScopedEventList, LifecycleError> {
        self.count(Verb::ScopedEvents);
        Ok(ScopedEventList { events: Vec::new() })
    }

    fn approval_relay(
        &self,
        auth: &ToolAuthorization,
        approval: &ApprovalId,
        input: UserInput,
    ) -> Result<ApprovalRelayAck, LifecycleError> {
        self.count(Verb::ApprovalRelay);
        if approval.as_str().starts_with("0000") {
            return Err(refused("no pending approval has this id"));
        }
        Ok(ApprovalRelayAck {
            approval_id: approval.clone(),
            relayed_input: input,
            accepted_at_unix_secs: auth.now(),
        })
    }
}
