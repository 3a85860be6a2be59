//! Repeated refusals from one connection are counted, not recorded one by one without
//! bound and not dropped silently, through the real socket: every refused
//! request is still answered; the audit holds the first `REFUSALS_PER_WINDOW` of them and
//! one `refusals_summarised` record with the count of the rest.
//!
//! No assertion is on elapsed time: the only timeouts are hang guards.

#![cfg(feature = "test-support")]
mod server_support;

use server_support::*;

/// The documented budget (docs/protocol.md): the first 16 refusals of each window are
/// recorded one by one.
const REFUSALS_PER_WINDOW: u32 = 16;

/// `n` requests with a token never enrolled on one connection, each answered with a
/// denial; then the connection is closed.
async fn refused_requests(rt: &Running, n: u32) {
    let mut raw = rt.raw_negotiated().await;
    let unknown = "7".repeat(64);
    for id in 1..=u64::from(n) {
        raw.send(&[request(&VerbCall::ListTools, id, &unknown)])
            .await;
        let answer = raw.recv().await.expect("every refused request is answered");
        assert!(matches!(answer, ServerFrame::Denied(_)), "{answer:?}");
        assert_eq!(answered_id(&answer), id);
    }
}

/// The auth failures recorded one by one.
fn recorded_one_by_one(rt: &Running) -> u32 {
    rt.audit
        .events()
        .iter()
        .filter(|e| matches!(e.kind, AuditKind::AuthFailure { .. }))
        .count() as u32
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_refusals_from_one_connection_are_counted_in_one_summary_record() {
    const SENT: u32 = 100;
    let mut rt = start_counting(limits());
    refused_requests(&rt, SENT).await;
    rt.wait_audited("the summary", |k| {
        matches!(k, AuditKind::RefusalsSummarised { .. })
    })
    .await;
    let events = rt.audit.events();
    let summaries: Vec<_> = events
        .iter()
        .filter_map(|e| match e.kind {
            AuditKind::RefusalsSummarised { count } => Some((count, e.connection_id)),
            _ => None,
        })
        .collect();
    assert_eq!(recorded_one_by_one(&rt), REFUSALS_PER_WINDOW);
    let connection = events
        .iter()
        .find(|e| matches!(e.kind, AuditKind::AuthFailure { .. }))
        .and_then(|e| e.connection_id);
    assert!(connection.is_some());
    // Counted, not dropped: the one summary stands for every refusal not recorded.
    assert_eq!(summaries, [(SENT - REFUSALS_PER_WINDOW, connection)]);
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_within_the_budget_are_each_recorded_and_need_no_summary() {
    let mut rt = start_counting(limits());
    refused_requests(&rt, REFUSALS_PER_WINDOW).await;
    wait_until("the connection closed", || {
        rt.server.open_connections() == 0
    })
    .await;
    assert_eq!(recorded_one_by_one(&rt), REFUSALS_PER_WINDOW);
    assert!(!rt.audited(|k| matches!(k, AuditKind::RefusalsSummarised { .. })));
    rt.shutdown().await;
}
