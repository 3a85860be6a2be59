//! Deadlines tell the truth, through the real server and socket: a change
//! past its deadline is cancelled; one that had not reached its point of no return answers
//! "not applied", one past it runs to completion and its real outcome is answered; a change
//! whose connection is gone is cancelled the same way; every change is audited with its
//! outcome whatever happened to the connection.
//!
//! The backend below walks a journal's stages and waits at one of them until the server
//! raises the call's cancellation (or a gate opens), so every case is deterministic. No
//! assertion is on elapsed time: the only timeouts are hang guards.

#![cfg(feature = "test-support")]
mod server_support;

use std::sync::atomic::AtomicBool;

use devint::audit::MutationOutcome;
use devint::backend::CancelSignal;
use server_support::*;

/// A mutation's stages, in order; the settings file is written at `TargetWritten`, the point
/// of no return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Locked,
    JournalWritten,
    TargetWritten,
    ReceiptWritten,
}

const STAGES: [Stage; 4] = [
    Stage::Locked,
    Stage::JournalWritten,
    Stage::TargetWritten,
    Stage::ReceiptWritten,
];

/// What the backend waits for at its stage.
enum Hold {
    /// The call's cancellation (the server raises it at the deadline or on disconnect).
    Cancellation,
    /// A gate the test opens.
    Gate(Arc<Gate>),
}

/// `apply` walks the stages, waiting at `wait_at`; before the point of no return it checks
/// the cancellation and stops with nothing applied; from it on it runs to completion.
struct StagedBackend {
    inner: CountingBackend,
    wait_at: Stage,
    hold: Hold,
    started: AtomicBool,
    applied: AtomicBool,
}

impl StagedBackend {
    fn new(wait_at: Stage, hold: Hold) -> Arc<StagedBackend> {
        Arc::new(StagedBackend {
            inner: CountingBackend::default(),
            wait_at,
            hold,
            started: AtomicBool::new(false),
            applied: AtomicBool::new(false),
        })
    }

    fn started(&self) -> bool {
        self.started.load(Ordering::SeqCst)
    }

    fn applied(&self) -> bool {
        self.applied.load(Ordering::SeqCst)
    }

    fn wait(&self, cancel: &CancelSignal) {
        match &self.hold {
            Hold::Gate(gate) => gate.wait(),
            Hold::Cancellation => {
                let started = std::time::Instant::now();
                while !cancel.is_raised() {
                    assert!(started.elapsed() < HANG_GUARD, "never cancelled");
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        }
    }
}

impl Lifecycle for StagedBackend {
    fn knows_tool(&self, tool: &ToolId) -> bool {
        self.inner.knows_tool(tool)
    }
    fn list_tools(&self, auth: &Authorization) -> Result<ToolList, LifecycleError> {
        self.inner.list_tools(auth)
    }
    fn plan(&self, auth: &ToolAuthorization, args: &PlanArgs) -> Result<PlanView, LifecycleError> {
        self.inner.plan(auth, args)
    }
    fn apply(&self, auth: &ToolAuthorization, plan: &PlanId) -> Result<ApplyView, LifecycleError> {
        self.started.store(true, Ordering::SeqCst);
        for stage in STAGES {
            if stage == Stage::TargetWritten {
                self.applied.store(true, Ordering::SeqCst);
            }
            if stage == self.wait_at {
                self.wait(auth.cancel_signal());
            }
            if stage < Stage::TargetWritten {
                auth.cancel_signal().check()?;
            }
        }
        self.inner.apply(auth, plan)
    }
    fn status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError> {
        self.inner.status(auth)
    }
    fn verify(&self, auth: &ToolAuthorization) -> Result<VerificationView, LifecycleError> {
        self.inner.verify(auth)
    }
    fn repair(&self, auth: &ToolAuthorization) -> Result<RepairView, LifecycleError> {
        self.inner.repair(auth)
    }
    fn remove(
        &self,
        auth: &ToolAuthorization,
        plan: Option<&PlanId>,
    ) -> Result<RemovalView, LifecycleError> {
        self.inner.remove(auth, plan)
    }
    fn scoped_events(
        &self,
        auth: &ToolAuthorization,
        limit: u32,
        since: devint::time::UnixSecs,
    ) -> Result<ScopedEventList, LifecycleError> {
        self.inner.scoped_events(auth, limit, since)
    }
    fn approval_relay(
        &self,
        auth: &ToolAuthorization,
        approval: &ApprovalId,
        input: UserInput,
    ) -> Result<ApprovalRelayAck, LifecycleError> {
        self.inner.approval_relay(auth, approval, input)
    }
}

fn short_deadline() -> Limits {
    Limits {
        request_deadline: Duration::from_millis(100),
        mutation_grace: HANG_GUARD,
        ..limits()
    }
}

fn apply_request(id: u64, token: &str) -> ClientFrame {
    request(
        &VerbCall::Apply {
            tool: tool("codex"),
            plan_id: PlanId::random(),
        },
        id,
        token,
    )
}

fn mutation_audited(rt: &Running, outcome: MutationOutcome) -> bool {
    rt.audited(|k| matches!(k, AuditKind::LifecycleMutation { outcome: o, .. } if *o == outcome))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_past_its_deadline_before_its_point_of_no_return_says_not_applied() {
    for stage in [Stage::Locked, Stage::JournalWritten] {
        let backend = StagedBackend::new(stage, Hold::Cancellation);
        let mut rt = start(backend.clone(), short_deadline());
        let mut raw = rt.raw_negotiated().await;
        raw.send(&[apply_request(1, &rt.token)]).await;
        match raw.recv().await {
            Some(ServerFrame::Denied(d)) => {
                assert_eq!(d.request_id, 1);
                assert_eq!(d.code, pb::DenyCode::LifecycleError as i32);
                assert!(d.message.starts_with("not applied"), "{stage:?}: {d:?}");
            }
            other => panic!("{stage:?}: expected a denial, got {other:?}"),
        }
        assert!(!backend.applied(), "{stage:?}");
        wait_until("the refusal is audited", || {
            mutation_audited(&rt, MutationOutcome::Refused)
        })
        .await;
        rt.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_past_its_deadline_after_its_point_of_no_return_answers_its_real_outcome() {
    for stage in [Stage::TargetWritten, Stage::ReceiptWritten] {
        let backend = StagedBackend::new(stage, Hold::Cancellation);
        let mut rt = start(backend.clone(), short_deadline());
        let mut raw = rt.raw_negotiated().await;
        raw.send(&[
            apply_request(1, &rt.token),
            request(&status_of("codex"), 2, &rt.token),
        ])
        .await;
        match raw.recv().await {
            Some(ServerFrame::Response(r)) => {
                assert_eq!(r.request_id, 1);
                assert!(r.apply.is_some(), "{stage:?}: the apply's own view");
            }
            other => panic!("{stage:?}: expected the real outcome, got {other:?}"),
        }
        assert_eq!(raw.recv().await.as_ref().map(answered_id), Some(2));
        assert!(backend.applied(), "{stage:?}");
        assert!(
            mutation_audited(&rt, MutationOutcome::Succeeded),
            "{stage:?}"
        );
        rt.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_whose_connection_closed_is_cancelled_and_audited_with_its_outcome() {
    for stage in STAGES {
        // A long deadline: only the closed connection can raise the cancellation.
        let backend = StagedBackend::new(stage, Hold::Cancellation);
        let mut rt = start(backend.clone(), limits());
        let mut raw = rt.raw_negotiated().await;
        raw.send(&[apply_request(1, &rt.token)]).await;
        wait_until("the apply started", || backend.started()).await;
        drop(raw);
        let expected = if stage < Stage::TargetWritten {
            MutationOutcome::Refused
        } else {
            MutationOutcome::Succeeded
        };
        wait_until("the change is audited", || mutation_audited(&rt, expected)).await;
        assert_eq!(
            backend.applied(),
            stage >= Stage::TargetWritten,
            "{stage:?}"
        );
        rt.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_still_running_past_its_grace_is_answered_as_running_and_audited_when_done() {
    let gate = Arc::new(Gate::default());
    let backend = StagedBackend::new(Stage::TargetWritten, Hold::Gate(gate.clone()));
    let mut rt = start(
        backend.clone(),
        Limits {
            request_deadline: Duration::from_millis(50),
            mutation_grace: Duration::from_millis(50),
            ..limits()
        },
    );
    let mut raw = rt.raw_negotiated().await;
    raw.send(&[apply_request(1, &rt.token)]).await;
    match raw.recv().await {
        Some(ServerFrame::Denied(d)) => {
            assert_eq!(d.request_id, 1);
            assert!(d.message.contains("still running"), "{d:?}");
            assert!(
                !d.message.contains("did not finish"),
                "never claims it failed"
            );
        }
        other => panic!("expected the still-running answer, got {other:?}"),
    }
    assert!(!mutation_audited(&rt, MutationOutcome::Succeeded));
    gate.release();
    wait_until("the change is audited once it ends", || {
        mutation_audited(&rt, MutationOutcome::Succeeded)
    })
    .await;
    assert!(backend.applied());
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_only_stopped_sending_still_gets_its_real_outcome() {
    // A half close (shutdown of the peer's writing) is not a peer gone: the change is not
    // cancelled and its answer is delivered.
    let gate = Arc::new(Gate::default());
    let backend = StagedBackend::new(Stage::Locked, Hold::Gate(gate.clone()));
    let mut rt = start(backend.clone(), limits());
    let mut raw = rt.raw_negotiated().await;
    raw.send(&[apply_request(1, &rt.token)]).await;
    wait_until("the apply started", || backend.started()).await;
    raw.stream.shutdown().await.unwrap();
    gate.release();
    match raw.recv().await {
        Some(ServerFrame::Response(r)) => assert_eq!(r.request_id, 1),
        other => panic!("expected the apply's outcome, got {other:?}"),
    }
    assert!(backend.applied());
    rt.shutdown().await;
}
