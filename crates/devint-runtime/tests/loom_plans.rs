//! Loom model of the reference backend's plan store ([`devint_runtime::reference::PlanStore`]),
//! spec §4/§6 and ADR 0030: a plan executes at most once — two concurrent applies of one plan
//! with the authoring token, exactly one takes it and the other is refused as consumed; a take
//! racing an eviction either takes the plan or finds it gone, never both, never twice.
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --test loom_plans`
//! (with a separate `CARGO_TARGET_DIR`).
#![cfg(loom)]

use devint::auth::TokenId;
use devint::time::UnixSecs;
use devint::verbs::{PlanId, ToolId};
use devint_runtime::reference::{
    PlanBody, PlanRefusal, PlanStore, RemovalPlan, StoredPlan, PLAN_CAPACITY,
};
use loom::sync::Arc;
use loom::thread;

const NOW: UnixSecs = UnixSecs::new(1_800_000_000);

/// A minute after [`NOW`].
const LATER: UnixSecs = UnixSecs::new(1_800_000_060);

fn token() -> TokenId {
    TokenId::parse("tok_0123456789abcdef0123456789abcdef").unwrap()
}

fn plan_id(n: usize) -> PlanId {
    PlanId::parse(&format!("{n:032x}")).unwrap()
}

fn tool() -> ToolId {
    ToolId::parse("codex").unwrap()
}

fn removal_plan(n: usize, expires_at: UnixSecs) -> StoredPlan {
    StoredPlan {
        id: plan_id(n),
        tool: tool(),
        token: token(),
        expires_at,
        consumed: false,
        body: PlanBody::Removal(RemovalPlan { scopes: Vec::new() }),
    }
}

/// Each of two threads tries to take plan 0 with the authoring token; returns the outcomes.
fn race_two_takes(store: &Arc<PlanStore>) -> Vec<Result<(), PlanRefusal>> {
    let takers: Vec<_> = (0..2)
        .map(|_| {
            let store = Arc::clone(store);
            thread::spawn(move || {
                store
                    .take_removal(&plan_id(0), &tool(), &token(), NOW)
                    .map(|_| ())
            })
        })
        .collect();
    takers.into_iter().map(|t| t.join().unwrap()).collect()
}

#[test]
fn two_concurrent_takes_of_one_plan_execute_it_exactly_once() {
    loom::model(|| {
        let store = Arc::new(PlanStore::default());
        store.insert(removal_plan(0, LATER), NOW);
        let outcomes = race_two_takes(&store);
        let taken = outcomes.iter().filter(|o| o.is_ok()).count();
        assert_eq!(taken, 1, "a plan executed {taken} times: {outcomes:?}");
        assert!(
            outcomes.contains(&Err(PlanRefusal::Consumed)),
            "the loser was not refused as consumed: {outcomes:?}"
        );
        // And once taken it stays taken.
        assert_eq!(
            store
                .take_removal(&plan_id(0), &tool(), &token(), NOW)
                .err(),
            Some(PlanRefusal::Consumed)
        );
    });
}

#[test]
fn a_take_racing_an_eviction_takes_the_plan_at_most_once() {
    loom::model(|| {
        let store = Arc::new(PlanStore::default());
        // Plan 0 is the oldest and already expired, so it is the one the next insert evicts
        // once the store is full; a take at its expiry must never succeed either way.
        store.insert(removal_plan(0, NOW), NOW);
        for n in 1..PLAN_CAPACITY {
            store.insert(removal_plan(n, LATER), NOW);
        }
        let evictor = {
            let store = Arc::clone(&store);
            thread::spawn(move || store.insert(removal_plan(PLAN_CAPACITY, LATER), NOW))
        };
        let outcomes = race_two_takes(&store);
        evictor.join().unwrap();
        for outcome in &outcomes {
            assert!(
                matches!(
                    outcome,
                    Err(PlanRefusal::Expired) | Err(PlanRefusal::Unknown)
                ),
                "an expired or evicted plan was taken: {outcomes:?}"
            );
        }
        assert_eq!(store.len(), PLAN_CAPACITY, "the store grew past its bound");
    });
}

#[test]
fn a_live_plan_racing_an_eviction_is_taken_exactly_once() {
    loom::model(|| {
        let store = Arc::new(PlanStore::default());
        // The store is full of live plans; an insert evicts while two takers race for plan 1.
        // Plan 1 executes once; the loser is refused as consumed, or as unknown when the
        // insert ran between the takes and evicted the (now consumed) plan 1 first.
        for n in 0..PLAN_CAPACITY {
            store.insert(removal_plan(n, LATER), NOW);
        }
        let evictor = {
            let store = Arc::clone(&store);
            thread::spawn(move || store.insert(removal_plan(PLAN_CAPACITY, LATER), NOW))
        };
        let takers: Vec<_> = (0..2)
            .map(|_| {
                let store = Arc::clone(&store);
                thread::spawn(move || store.take_removal(&plan_id(1), &tool(), &token(), NOW))
            })
            .collect();
        let outcomes: Vec<_> = takers
            .into_iter()
            .map(|t| t.join().unwrap().map(|_| ()))
            .collect();
        evictor.join().unwrap();
        assert_eq!(
            outcomes.iter().filter(|o| o.is_ok()).count(),
            1,
            "{outcomes:?}"
        );
        assert!(
            outcomes.contains(&Err(PlanRefusal::Consumed))
                || outcomes.contains(&Err(PlanRefusal::Unknown)),
            "{outcomes:?}"
        );
    });
}
