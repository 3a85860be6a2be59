//! A flood cannot lock the user out, through the real socket: at the
//! connection limit the longest-idle connection is evicted to make room — one still in its
//! handshake first, then one never authorised, then an authorised idle one — never one
//! with a call in flight, and every eviction is audited with the connection it closed.
//!
//! No assertion is on elapsed time: the only timeouts are hang guards.

#![cfg(feature = "test-support")]
mod server_support;

use devint::audit::EvictedStage;
use server_support::*;

/// The evicted connections' ids and stages, in the order they were audited.
fn evictions(rt: &Running) -> Vec<(u64, EvictedStage)> {
    rt.audit
        .events()
        .iter()
        .filter_map(|e| match e.kind {
            AuditKind::ConnectionEvicted { stage, .. } => Some((e.connection_id?, stage)),
            _ => None,
        })
        .collect()
}

/// Room for the flood's descriptors, both ends of each connection in this one process.
fn raise_open_file_limit(want: u64) {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current.is_some_and(|c| c < want) {
        limit.current = Some(limit.maximum.map_or(want, |m| m.min(want)));
        setrlimit(Resource::Nofile, limit).expect("raise RLIMIT_NOFILE for the flood");
    }
}

/// A raw connection that has negotiated and had one authorised call answered.
async fn authorised(rt: &Running, request_id: u64) -> Raw {
    let mut raw = rt.raw_negotiated().await;
    call(rt, &mut raw, request_id).await;
    raw
}

/// One authorised `list_tools` on `raw`, answered.
async fn call(rt: &Running, raw: &mut Raw, request_id: u64) {
    raw.send(&[request(&VerbCall::ListTools, request_id, &rt.token)])
        .await;
    let answer = raw.recv().await.expect("an answer");
    assert!(matches!(answer, ServerFrame::Response(_)), "{answer:?}");
    assert_eq!(answered_id(&answer), request_id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_idle_connections_cannot_lock_out_the_user() {
    const FLOOD: u64 = 2_000;
    raise_open_file_limit(3 * FLOOD + 512);
    let limits = Limits {
        // The flood stays in its handshake for the whole test: only eviction makes room.
        handshake_timeout: Duration::from_secs(3600),
        ..limits()
    };
    let max = limits.max_connections as u64;
    assert!(FLOOD > max, "the flood is over the default limit");
    let mut rt = start_counting(limits);
    let mut flood = Vec::new();
    for _ in 0..FLOOD {
        flood.push(Raw::connect(&rt.socket).await);
    }
    // The legitimate client is served: its Hello is answered and its call runs.
    let mut client = rt.negotiate().await.authorize(rt.secret());
    guarded("list_tools", client.list_tools()).await.unwrap();
    // Connections are accepted in order (ids 1..=FLOOD, the client FLOOD + 1): exactly the
    // oldest were evicted, each audited, all still in their handshake.
    let evicted = evictions(&rt);
    let want: Vec<(u64, EvictedStage)> = (1..=FLOOD + 1 - max)
        .map(|id| (id, EvictedStage::Handshake))
        .collect();
    assert_eq!(evicted, want);
    assert!(!rt.audited(|k| matches!(k, AuditKind::ConnectionRefusedAtLimit { .. })));
    // The oldest sees its socket closed; the newest of the flood is still open.
    assert!(flood[0].until_closed().await.is_empty());
    assert_eq!(rt.server.open_connections() as u64, max);
    drop(flood);
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_negotiated_idle_connections_cannot_lock_out_the_user() {
    const FLOOD: u64 = 1_100;
    raise_open_file_limit(3 * FLOOD + 512);
    let limits = limits();
    let max = limits.max_connections as u64;
    let mut rt = start_counting(limits);
    let mut flood = Vec::new();
    for _ in 0..FLOOD {
        flood.push(rt.raw_negotiated().await);
    }
    let mut client = rt.negotiate().await.authorize(rt.secret());
    guarded("list_tools", client.list_tools()).await.unwrap();
    // The oldest negotiated-but-never-authorised connections made room, each audited.
    let want: Vec<(u64, EvictedStage)> = (1..=FLOOD + 1 - max)
        .map(|id| (id, EvictedStage::Negotiated))
        .collect();
    assert_eq!(evictions(&rt), want);
    assert!(flood[0].until_closed().await.is_empty());
    assert_eq!(rt.server.open_connections() as u64, max);
    drop(flood);
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eviction_takes_the_unauthenticated_first_then_the_longest_idle_never_a_call_in_flight() {
    let (gate, backend) = gated_codex();
    let mut rt = start(
        backend,
        Limits {
            max_connections: 4,
            ..limits()
        },
    );
    // 1: a call in flight, held at the gate.
    let mut busy = rt.raw_negotiated().await;
    busy.send(&[request(&status_of("codex"), 1, &rt.token)])
        .await;
    wait_until("the call is running", || gate.entered() == 1).await;
    // 2: authorised, then idle — the oldest idle connection.
    let mut oldest = authorised(&rt, 1).await;
    // 3: negotiated, never authorised.
    let mut negotiated = rt.raw_negotiated().await;
    // 4: no Hello yet — the newest, yet the first to go.
    let mut handshaking = Raw::connect(&rt.socket).await;

    // 5 evicts 4 (still in its handshake), though it is the newest.
    let mut fifth = rt.raw_negotiated().await;
    assert!(handshaking.until_closed().await.is_empty());
    assert_eq!(evictions(&rt), [(4, EvictedStage::Handshake)]);

    // 6 evicts 3 (negotiated, never authorised) before the authorised 2, which is older;
    // the never-authorised 5 is younger than 3.
    let mut sixth = rt.raw_negotiated().await;
    assert!(negotiated.until_closed().await.is_empty());
    assert_eq!(evictions(&rt)[1], (3, EvictedStage::Negotiated));

    // Everyone idle is authorised now; 2, the oldest connection, was active last.
    call(&rt, &mut fifth, 1).await;
    call(&rt, &mut sixth, 1).await;
    call(&rt, &mut oldest, 2).await;
    // 7 evicts 5 (idle longest), not 2 (the oldest connection), and never 1 (busy).
    let mut seventh = rt.raw_negotiated().await;
    assert_eq!(evictions(&rt)[2], (5, EvictedStage::Authorised));
    assert!(fifth.until_closed().await.is_empty());
    // 8 evicts the never-authorised 7 before the authorised 6.
    let _eighth = rt.raw_negotiated().await;
    assert_eq!(evictions(&rt)[3], (7, EvictedStage::Negotiated));
    assert!(seventh.until_closed().await.is_empty());

    // The busy connection was never chosen and its call still gets its answer.
    assert!(!evictions(&rt).iter().any(|(id, _)| *id == 1));
    gate.release();
    assert_eq!(answered_id(&busy.recv().await.unwrap()), 1);
    // The survivors still work.
    call(&rt, &mut oldest, 3).await;
    call(&rt, &mut sixth, 2).await;
    rt.shutdown().await;
}
