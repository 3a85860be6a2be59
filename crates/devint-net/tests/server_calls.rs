//! How the connection task runs authorised calls: calls the backend
//! declares non-blocking run on the connection's own task, blocking ones on the blocking
//! pool, brief ones inside `block_in_place`, and their answers still leave in request
//! order; a `status` the backend can answer at once is answered on the task, not run
//! again; a client that always has a request waiting does not starve another connection;
//! a mutation's audit record is durable before its answer, a refusal's is not waited for.
//!
//! No assertion is on elapsed time: the only timeouts are hang guards.

#![cfg(feature = "test-support")]
mod server_support;

use devint::backend::CallKind;
use devint_net::audit_log::{verify, JsonLinesAuditLog};
use server_support::*;

/// `list_tools` blocks at a gate (and is declared `list_kind`); `status` is declared
/// `status_kind` and answered at once when `answers_at_once` says so; every other verb is
/// in memory and declared non-blocking.
struct SlowListFastRest {
    inner: CountingBackend,
    gate: Arc<Gate>,
    list_kind: CallKind,
    /// How many statuses had run when `list_tools` last started.
    statuses_before_list: AtomicUsize,
    status_kind: CallKind,
    answers_at_once: std::sync::atomic::AtomicBool,
    /// Statuses answered by `status_at_once`, and by `status`.
    at_once: AtomicUsize,
    in_full: AtomicUsize,
}

impl SlowListFastRest {
    fn new(gate: &Arc<Gate>, list_kind: CallKind) -> Arc<SlowListFastRest> {
        Arc::new(SlowListFastRest {
            inner: CountingBackend::default(),
            gate: gate.clone(),
            list_kind,
            statuses_before_list: AtomicUsize::new(0),
            status_kind: CallKind::NonBlocking,
            answers_at_once: Default::default(),
            at_once: AtomicUsize::new(0),
            in_full: AtomicUsize::new(0),
        })
    }
}

impl Lifecycle for SlowListFastRest {
    fn call_kind(&self, verb: Verb) -> CallKind {
        match verb {
            Verb::ListTools => self.list_kind,
            Verb::Status => self.status_kind,
            _ => CallKind::NonBlocking,
        }
    }
    fn knows_tool(&self, tool: &ToolId) -> bool {
        self.inner.knows_tool(tool)
    }
    fn list_tools(&self, auth: &Authorization) -> Result<ToolList, LifecycleError> {
        self.statuses_before_list
            .store(self.inner.calls(Verb::Status), Ordering::SeqCst);
        self.gate.wait();
        self.inner.list_tools(auth)
    }
    fn plan(&self, auth: &ToolAuthorization, args: &PlanArgs) -> Result<PlanView, LifecycleError> {
        self.inner.plan(auth, args)
    }
    fn apply(&self, auth: &ToolAuthorization, plan: &PlanId) -> Result<ApplyView, LifecycleError> {
        self.inner.apply(auth, plan)
    }
    fn status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError> {
        self.in_full.fetch_add(1, Ordering::SeqCst);
        self.inner.status(auth)
    }
    fn status_at_once(
        &self,
        auth: &ToolAuthorization,
    ) -> Option<Result<StatusView, LifecycleError>> {
        if !self.answers_at_once.load(Ordering::SeqCst) {
            return None;
        }
        self.at_once.fetch_add(1, Ordering::SeqCst);
        Some(self.inner.status(auth))
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_blocking_call_answered_first_still_waits_behind_an_earlier_blocking_one() {
    let gate = Arc::new(Gate::default());
    let backend = SlowListFastRest::new(&gate, CallKind::Blocking);
    let mut rt = start(backend.clone(), limits());
    let mut raw = rt.raw_negotiated().await;
    raw.send(&[
        request(&VerbCall::ListTools, 1, &rt.token),
        request(&status_of("codex"), 2, &rt.token),
        request(&status_of("claude-code"), 3, &rt.token),
    ])
    .await;
    // Both statuses ran (on the connection's task) while list_tools is still held.
    wait_until("the statuses ran", || {
        backend.inner.calls(Verb::Status) == 2 && gate.entered() == 1
    })
    .await;
    gate.release();
    assert_eq!(
        answered_ids(&mut raw, 3).await,
        [1, 2, 3],
        "answers leave in request order"
    );
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_the_backend_answers_at_once_is_not_run_again_and_one_it_cannot_is_run() {
    for kind in [CallKind::Blocking, CallKind::Brief] {
        let gate = Arc::new(Gate::default());
        let mut backend = SlowListFastRest::new(&gate, CallKind::Blocking);
        Arc::get_mut(&mut backend).unwrap().status_kind = kind;
        backend.answers_at_once.store(true, Ordering::SeqCst);
        let mut rt = start(backend.clone(), limits());
        let mut raw = rt.raw_negotiated().await;
        raw.send(&[request(&status_of("codex"), 1, &rt.token)])
            .await;
        assert_eq!(answered_ids(&mut raw, 1).await, [1], "{kind:?}");
        assert_eq!(backend.at_once.load(Ordering::SeqCst), 1, "{kind:?}");
        assert_eq!(backend.in_full.load(Ordering::SeqCst), 0, "{kind:?}");
        backend.answers_at_once.store(false, Ordering::SeqCst);
        raw.send(&[request(&status_of("codex"), 2, &rt.token)])
            .await;
        assert_eq!(answered_ids(&mut raw, 1).await, [2], "{kind:?}");
        assert_eq!(backend.at_once.load(Ordering::SeqCst), 1, "{kind:?}");
        assert_eq!(backend.in_full.load(Ordering::SeqCst), 1, "{kind:?}");
        rt.shutdown().await;
    }
}

/// The request ids of the next `n` answers on `raw`, in the order they arrived.
async fn answered_ids(raw: &mut Raw, n: usize) -> Vec<u64> {
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        ids.push(answered_id(&raw.recv().await.expect("an answer")));
    }
    ids
}

/// `list_tools`, declared brief, is held at its gate on each of `held` connections while
/// eight other connections are each answered; then the held connections' answers leave in
/// request order.
///
/// Every worker stuck in a held call would also stop the runtime's timers, so the hang
/// guards could never fire: a watchdog thread opens the gate after [`HANG_GUARD`] instead,
/// and the test fails if it had to.
async fn held_brief_calls_stall_no_other_connection(held: usize) {
    let gate = Arc::new(Gate::default());
    let backend = SlowListFastRest::new(&gate, CallKind::Brief);
    let mut rt = start(backend.clone(), limits());
    let (done, watchdog) = {
        let gate = gate.clone();
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let watchdog = std::thread::spawn(move || {
            let fired = finished.recv_timeout(HANG_GUARD).is_err();
            gate.release();
            fired
        });
        (done, watchdog)
    };
    let mut holders = Vec::with_capacity(held);
    for _ in 0..held {
        let mut holder = rt.raw_negotiated().await;
        holder
            .send(&[
                request(&VerbCall::ListTools, 1, &rt.token),
                request(&status_of("codex"), 2, &rt.token),
            ])
            .await;
        holders.push(holder);
    }
    wait_until("every list_tools is held", || gate.entered() == held).await;
    for n in 0..8 {
        let mut other = rt.raw_negotiated().await;
        other
            .send(&[request(&status_of("claude-code"), 10 + n, &rt.token)])
            .await;
        assert_eq!(answered_ids(&mut other, 1).await, [10 + n]);
    }
    let _ = done.send(());
    assert!(
        !watchdog.join().unwrap(),
        "with {held} brief calls held, the other connections were answered only once the watchdog opened the gate"
    );
    for holder in &mut holders {
        assert_eq!(
            answered_ids(holder, 2).await,
            [1, 2],
            "answers leave in request order"
        );
    }
    rt.shutdown().await;
}

/// On a multi-threaded runtime of one worker a brief call runs on its connection's task
/// inside `block_in_place`, so the worker's other tasks move to another thread. Run bare
/// on the task, it would stall every connection (this test would hang).
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_brief_call_held_on_its_connection_stalls_no_other_connection() {
    held_brief_calls_stall_no_other_connection(1).await;
}

/// Two workers, two and then three brief calls held at once, each inside `block_in_place`.
/// A brief call run bare on its worker, even while another worker runs none, is not safe:
/// the other worker may be asleep with nobody polling tokio's I/O driver, so new
/// connections and answers wait for the held call (running it bare would save the
/// hand-off's ~10 µs; this test fails when it is tried).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn brief_calls_held_on_every_worker_stall_no_other_connection() {
    held_brief_calls_stall_no_other_connection(2).await;
    held_brief_calls_stall_no_other_connection(3).await;
}

/// On a current-thread runtime (where `block_in_place` would panic) a brief call runs on
/// the blocking pool: run bare on the one thread, it would stall every connection.
#[tokio::test(flavor = "current_thread")]
async fn a_brief_call_on_a_current_thread_runtime_runs_on_the_blocking_pool() {
    held_brief_calls_stall_no_other_connection(1).await;
}

/// One client that always has its next request waiting (thousands pipelined, its answers
/// read as fast as they come) does not keep its worker from another connection: on a
/// runtime of one worker, another client's `list_tools` runs after a few of the flood's
/// reads, not after the task's whole cooperative budget of them (thousands of statuses).
/// Counted, not timed: how many statuses ran before the `list_tools` did.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_client_flooding_its_connection_does_not_starve_another() {
    use std::io::{Read, Write};
    const FLOOD: u64 = 20_000;
    let gate = Arc::new(Gate::default());
    gate.release();
    let backend = SlowListFastRest::new(&gate, CallKind::NonBlocking);
    let mut rt = start(backend.clone(), limits());
    let flood = rt.raw_negotiated().await.stream.into_std().unwrap();
    flood.set_nonblocking(false).unwrap();
    let mut reader = flood.try_clone().unwrap();
    let drain = std::thread::spawn(move || {
        let mut sink = vec![0u8; 64 * 1024];
        while reader.read(&mut sink).is_ok_and(|n| n > 0) {}
    });
    let token = rt.token.clone();
    let mut writer = flood;
    let flooding = std::thread::spawn(move || {
        let bytes: Vec<u8> = (1..=FLOOD)
            .flat_map(|id| encode(&request(&status_of("codex"), id, &token)).unwrap())
            .collect();
        let _ = writer.write_all(&bytes);
        let _ = writer.shutdown(std::net::Shutdown::Write);
    });
    let mut other = rt.raw_negotiated().await;
    wait_until("the flood is being answered", || {
        backend.inner.calls(Verb::Status) >= 100
    })
    .await;
    let sent_at = backend.inner.calls(Verb::Status) as u64;
    other
        .send(&[request(&VerbCall::ListTools, 1, &rt.token)])
        .await;
    assert_eq!(answered_ids(&mut other, 1).await, [1]);
    let waited = backend.statuses_before_list.load(Ordering::SeqCst) as u64 - sent_at;
    assert!(
        waited < 1_000 && sent_at < FLOOD,
        "list_tools waited behind {waited} of the flood's statuses ({sent_at} ran before it was sent)"
    );
    flooding.join().unwrap();
    drain.join().unwrap();
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mutation_is_audited_durably_before_its_answer_and_a_refusal_is_not_waited_for() {
    let dir = short_tempdir();
    let path = dir.path().join("audit.jsonl");
    let log = Arc::new(JsonLinesAuditLog::open(&path).unwrap());
    let mut rt = start_with_sink(
        Arc::new(CountingBackend::default()),
        limits(),
        Some(log.clone()),
    );
    let mut raw = rt.raw_negotiated().await;
    // A refusal first (unknown token), then a mutation.
    raw.send(&[request(&status_of("codex"), 1, &"0".repeat(64))])
        .await;
    assert!(matches!(raw.recv().await, Some(ServerFrame::Denied(_))));
    let apply = VerbCall::Apply {
        tool: tool("codex"),
        plan_id: PlanId::random(),
    };
    raw.send(&[request(&apply, 2, &rt.token)]).await;
    assert!(matches!(raw.recv().await, Some(ServerFrame::Response(_))));
    // No flush: the mutation's record is on disk the moment its answer arrived, and the
    // refusal queued before it is written ahead of it.
    let text = std::fs::read_to_string(&path).unwrap();
    let kinds: Vec<String> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["event"]["kind"]["type"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(kinds, ["auth_failure", "lifecycle_mutation"]);
    assert_eq!(verify(&path).unwrap().records, 2);
    rt.shutdown().await;
}
