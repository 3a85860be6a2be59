//! Deadlines tell the truth, on the reference backend: a mutation whose
//! request was cancelled (the server raises the cancellation at the request's deadline)
//! before its journal is written stops with nothing changed and says "not applied"; one
//! cancelled at any journal stage after that runs to completion and reports its real
//! outcome.
//!
//! The cancellation is raised deterministically: by the test before the call, or by the
//! journal observer at the stage under test. No assertion is on elapsed time.

mod lifecycle_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use devint::backend::{Authorization, CancelSignal, Lifecycle, LifecycleError, ToolAuthorization};
use devint::verbs::{
    ApplyMutation, ApplyView, ApprovalId, ApprovalRelayAck, Level, PlanArgs, PlanId, PlanView,
    RemovalView, RepairView, ScopedEventList, StatusView, ToolId, ToolList, UserInput,
    VerificationView,
};
use devint_runtime::reference::{JournalOperation, JournalPoint, JournalStage, ReferenceRuntime};
use lifecycle_support::*;

/// The last cancellation signal a mutation carried.
type Slot = Arc<Mutex<Option<CancelSignal>>>;

/// The reference runtime, keeping each mutation's cancellation signal where the journal
/// observer (or the test) can raise it; with `raise_first`, raised before the call starts.
struct Capture {
    rt: ReferenceRuntime,
    slot: Slot,
    raise_first: bool,
}

impl Capture {
    fn keep(&self, auth: &ToolAuthorization) {
        let signal = auth.cancel_signal().clone();
        if self.raise_first {
            signal.raise();
        }
        *self.slot.lock().unwrap() = Some(signal);
    }
}

impl Lifecycle for Capture {
    fn knows_tool(&self, tool: &ToolId) -> bool {
        self.rt.knows_tool(tool)
    }
    fn list_tools(&self, auth: &Authorization) -> Result<ToolList, LifecycleError> {
        self.rt.list_tools(auth)
    }
    fn plan(&self, auth: &ToolAuthorization, args: &PlanArgs) -> Result<PlanView, LifecycleError> {
        self.rt.plan(auth, args)
    }
    fn apply(&self, auth: &ToolAuthorization, plan: &PlanId) -> Result<ApplyView, LifecycleError> {
        self.keep(auth);
        self.rt.apply(auth, plan)
    }
    fn status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError> {
        self.rt.status(auth)
    }
    fn verify(&self, auth: &ToolAuthorization) -> Result<VerificationView, LifecycleError> {
        self.rt.verify(auth)
    }
    fn repair(&self, auth: &ToolAuthorization) -> Result<RepairView, LifecycleError> {
        self.keep(auth);
        self.rt.repair(auth)
    }
    fn remove(
        &self,
        auth: &ToolAuthorization,
        plan: Option<&PlanId>,
    ) -> Result<RemovalView, LifecycleError> {
        if plan.is_some() {
            self.keep(auth);
        }
        self.rt.remove(auth, plan)
    }
    fn scoped_events(
        &self,
        auth: &ToolAuthorization,
        limit: u32,
        since: devint::time::UnixSecs,
    ) -> Result<ScopedEventList, LifecycleError> {
        self.rt.scoped_events(auth, limit, since)
    }
    fn approval_relay(
        &self,
        auth: &ToolAuthorization,
        approval: &ApprovalId,
        input: UserInput,
    ) -> Result<ApprovalRelayAck, LifecycleError> {
        self.rt.approval_relay(auth, approval, input)
    }
}

/// A runtime whose observer raises the current mutation's cancellation at `at` (if given).
fn capture(sb: &Sandbox, at: Option<JournalPoint>, raise_first: bool) -> Capture {
    let slot: Slot = Arc::default();
    let mut config = sb.config();
    let raised_by = slot.clone();
    config.journal_observer = Some(Arc::new(move |p: JournalPoint| {
        if Some(p) == at {
            if let Some(signal) = raised_by.lock().unwrap().as_ref() {
                signal.raise();
            }
        }
    }));
    Capture {
        rt: ReferenceRuntime::open(config).unwrap(),
        slot,
        raise_first,
    }
}

fn not_applied(refused: &Refused) -> bool {
    refused.message.starts_with("not applied")
}

#[test]
fn an_apply_cancelled_before_it_starts_changes_nothing_and_keeps_its_plan() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let cancelled = capture(&sb, None, true);
    let mut c = Client::new(&book(), "ide");
    let plan = c.plan(&cancelled, "team");
    let refused = c.apply(&cancelled, &plan.plan_id).unwrap_err();
    assert!(not_applied(&refused), "{refused:?}");
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
    assert!(sb.files("receipts").is_empty());
    // The plan was not consumed: applied without a deadline, it goes through.
    let view = c.apply(&cancelled.rt, &plan.plan_id).unwrap();
    assert_eq!(view.outcome.unwrap().mutation, ApplyMutation::Changed);
}

#[test]
fn an_apply_cancelled_at_any_journal_stage_runs_to_completion_and_says_so() {
    for stage in JournalPoint::STAGES {
        let sb = Sandbox::new();
        sb.write_settings(CLAUDE_SETTINGS);
        let at = JournalPoint {
            operation: JournalOperation::Apply,
            stage,
        };
        let rt = capture(&sb, Some(at), false);
        let mut c = Client::new(&book(), "ide");
        let plan = c.plan(&rt, "team");
        let view = c.apply(&rt, &plan.plan_id).unwrap();
        assert_eq!(
            view.outcome.unwrap().mutation,
            ApplyMutation::Changed,
            "cancelled at {stage:?}: past the journal, the apply completes"
        );
        assert!(
            rt.slot.lock().unwrap().as_ref().unwrap().is_raised(),
            "the observer raised it at {stage:?}"
        );
        assert_ne!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
        assert_eq!(c.status(&rt).achieved_level, Level::PartiallyIntegrated);
        assert!(
            sb.files("journal").is_empty(),
            "no journal left at {stage:?}"
        );
    }
}

#[test]
fn an_apply_cancelled_while_it_waited_for_the_target_lock_changes_nothing() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let gate = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
    let entered = Arc::new(Mutex::new(false));
    let mut config = sb.config();
    {
        let (gate, entered) = (gate.clone(), entered.clone());
        // The first apply to reach its journal holds the target's lock there until the gate
        // opens, then dies (a crash mid-apply: its journal is left for recovery).
        config.journal_observer = Some(Arc::new(move |p: JournalPoint| {
            if p.operation == JournalOperation::Apply && p.stage == JournalStage::JournalWritten {
                let mut first = entered.lock().unwrap();
                if *first {
                    return;
                }
                *first = true;
                drop(first);
                let (open, changed) = &*gate;
                let mut open = open.lock().unwrap();
                while !*open {
                    open = changed.wait(open).unwrap();
                }
                panic!("simulated crash while holding the lock");
            }
        }));
    }
    let rt = Arc::new(Capture {
        rt: ReferenceRuntime::open(config).unwrap(),
        slot: Arc::default(),
        raise_first: false,
    });
    let book = book();
    let mut first = Client::new(&book, "first");
    let mut second = Client::new(&book, "second");
    let first_plan = first.plan(&rt.rt, "team");
    let second_plan = second.plan(&rt.rt, "team");

    let holder = {
        let rt = rt.clone();
        std::thread::spawn(move || {
            let _ = first.apply(&rt.rt, &first_plan.plan_id);
        })
    };
    while !*entered.lock().unwrap() {
        std::thread::sleep(Duration::from_millis(5));
    }
    let waiter = {
        let rt = rt.clone();
        std::thread::spawn(move || second.apply(&*rt, &second_plan.plan_id))
    };
    // Let the second apply start and wait for the lock (its entry check passes), then its
    // deadline passes: raise its cancellation and let the holder die.
    while rt.slot.lock().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(200));
    rt.slot.lock().unwrap().as_ref().unwrap().raise();
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    assert!(holder.join().is_err(), "the holder crashed");

    let refused = waiter.join().unwrap().unwrap_err();
    assert!(not_applied(&refused), "{refused:?}");
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
    assert!(sb.files("receipts").is_empty());
    assert!(
        sb.files("journal").is_empty(),
        "recovery cleaned the crash's journal"
    );
}

#[test]
fn a_removal_cancelled_before_it_starts_changes_nothing() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let rt = capture(&sb, None, true);
    let mut c = Client::new(&book(), "ide");
    c.install(&rt.rt, "team");
    let installed = sb.read_settings().unwrap();
    let preview = c.remove(&rt, None).unwrap();
    let refused = c.remove(&rt, Some(preview.plan_id.clone())).unwrap_err();
    assert!(not_applied(&refused), "{refused:?}");
    assert_eq!(sb.read_settings().unwrap(), installed);
    // The removal plan is still usable.
    c.remove(&rt.rt, Some(preview.plan_id)).unwrap();
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
}

#[test]
fn a_removal_cancelled_at_any_journal_stage_completes() {
    for stage in JournalPoint::STAGES {
        let sb = Sandbox::new();
        sb.write_settings(CLAUDE_SETTINGS);
        let at = JournalPoint {
            operation: JournalOperation::Remove,
            stage,
        };
        let rt = capture(&sb, Some(at), false);
        let mut c = Client::new(&book(), "ide");
        c.install(&rt.rt, "team");
        let preview = c.remove(&rt, None).unwrap();
        let view = c.remove(&rt, Some(preview.plan_id)).unwrap();
        assert!(
            view.warnings
                .iter()
                .all(|w| !w.as_str().contains("deadline")),
            "{stage:?}: {:?}",
            view.warnings
        );
        assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS, "{stage:?}");
    }
}

#[test]
fn a_repair_cancelled_before_it_starts_changes_nothing() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let rt = capture(&sb, None, true);
    let mut c = Client::new(&book(), "ide");
    c.install(&rt.rt, "team");
    // Drift: the user's file loses our keys.
    sb.write_settings(CLAUDE_SETTINGS);
    let refused = c
        .call(&rt, devint::verbs::VerbCall::Repair { tool: claude() })
        .unwrap_err();
    assert!(not_applied(&refused), "{refused:?}");
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
}
