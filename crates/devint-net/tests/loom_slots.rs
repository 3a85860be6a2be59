//! Loom model of [`devint_net::server::ConnectionSlots`]: concurrent acquires and drops never
//! exceed the total or per-uid limit, every slot is given back, and an idle connection
//! racing a newcomer at the limit is either evicted (and runs nothing) or runs its call
//! (and the newcomer is refused) — never both.
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --test loom_slots`
//! (with a separate `CARGO_TARGET_DIR`). Unbounded, the three-thread models run for
//! minutes; with two preemptions they finish in well under a second.
#![cfg(loom)]

use devint_net::server::{ConnectionSlots, SlotRefusal};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Each thread takes a slot if it can, records how many are held at once, and drops it.
fn contend(max_total: usize, max_per_uid: usize, uids: &[u32]) {
    loom::model({
        let uids = uids.to_vec();
        move || {
            let slots = ConnectionSlots::new(max_total, max_per_uid);
            let held = Arc::new(AtomicUsize::new(0));
            let handles: Vec<_> = uids
                .iter()
                .enumerate()
                .map(|(i, &uid)| {
                    let slots = slots.clone();
                    let held = Arc::clone(&held);
                    thread::spawn(move || match slots.acquire(uid, i as u64) {
                        Ok(admission) => {
                            let slot = admission.slot;
                            // Busy at once: with every slot busy, none can be evicted.
                            if !slot.set_busy(true) {
                                drop(slot);
                                return false;
                            }
                            let now = held.fetch_add(1, Ordering::SeqCst) + 1;
                            assert!(now <= max_total, "{now} slots held over {max_total}");
                            assert!(slots.open() <= max_total);
                            held.fetch_sub(1, Ordering::SeqCst);
                            drop(slot);
                            true
                        }
                        Err(SlotRefusal::Total) => {
                            assert!(held.load(Ordering::SeqCst) <= max_total);
                            false
                        }
                        Err(SlotRefusal::PerUid) => false,
                    })
                })
                .collect();
            let admitted = handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .filter(|ok| *ok)
                .count();
            assert!(
                admitted >= 1,
                "with free slots at least one thread is admitted"
            );
            // No slot leaks: all were given back, and the full limit is available again.
            assert_eq!(slots.open(), 0);
            let again: Vec<_> = (0..max_total)
                .map(|i| {
                    let slot = slots
                        .acquire(100 + i as u32, 100 + i as u64)
                        .expect("a slot leaked")
                        .slot;
                    assert!(slot.set_busy(true));
                    slot
                })
                .collect();
            assert_eq!(slots.acquire(999, 999).unwrap_err(), SlotRefusal::Total);
            drop(again);
            assert_eq!(slots.open(), 0);
        }
    });
}

#[test]
fn three_peers_never_exceed_a_total_of_two_and_leak_nothing() {
    contend(2, 2, &[1, 2, 3]);
}

#[test]
fn one_uid_never_exceeds_its_limit_and_leaks_nothing() {
    loom::model(|| {
        let slots = ConnectionSlots::new(10, 1);
        let held = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..3)
            .map(|i| {
                let slots = slots.clone();
                let held = Arc::clone(&held);
                thread::spawn(move || {
                    let Ok(admission) = slots.acquire(7, i) else {
                        return;
                    };
                    let slot = admission.slot;
                    if slot.set_busy(true) {
                        assert_eq!(
                            held.fetch_add(1, Ordering::SeqCst),
                            0,
                            "two slots for uid 7"
                        );
                        held.fetch_sub(1, Ordering::SeqCst);
                        drop(slot);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(slots.open(), 0);
        let slot = slots.acquire(7, 10).expect("uid 7's slot leaked").slot;
        assert!(slot.set_busy(true));
        assert_eq!(slots.acquire(7, 11).unwrap_err(), SlotRefusal::PerUid);
        drop(slot);
    });
}

#[test]
fn a_slot_dropped_on_another_thread_is_released() {
    loom::model(|| {
        let slots = ConnectionSlots::new(1, 1);
        let slot = slots.acquire(1, 1).unwrap().slot;
        assert!(slot.set_busy(true));
        let dropper = thread::spawn(move || drop(slot));
        let contender = {
            let slots = slots.clone();
            thread::spawn(move || slots.acquire(1, 2).is_ok())
        };
        dropper.join().unwrap();
        let _maybe = contender.join().unwrap();
        // Whatever the interleaving, the slot ends up free (the contender's, if taken, was
        // dropped when its thread returned).
        assert_eq!(slots.open(), 0);
    });
}

#[test]
fn an_idle_connection_racing_a_newcomer_is_either_evicted_or_runs_never_both() {
    loom::model(|| {
        let slots = ConnectionSlots::new(1, 1);
        let idle = slots.acquire(1, 1).unwrap().slot;
        let newcomer = {
            let slots = slots.clone();
            thread::spawn(move || {
                slots.acquire(1, 2).map(|a| {
                    let evicted = a.evicted.map(|e| e.connection);
                    (a.slot, evicted)
                })
            })
        };
        // The idle connection starts a call while the newcomer arrives.
        let runs = idle.set_busy(true);
        let admitted = newcomer.join().unwrap();
        match admitted {
            Ok((slot, evicted)) => {
                // The newcomer got in only by evicting the idle one, which then runs nothing.
                assert_eq!(evicted, Some(1));
                assert!(!runs, "an evicted connection started a call");
                assert!(idle.is_evicted());
                assert_eq!(slots.open(), 1);
                drop(idle);
                assert_eq!(
                    slots.open(),
                    1,
                    "the evicted slot's drop freed the newcomer's"
                );
                drop(slot);
            }
            Err(refusal) => {
                // Refused only because the call was already in flight.
                assert_eq!(refusal, SlotRefusal::PerUid);
                assert!(runs && !idle.is_evicted());
                drop(idle);
            }
        }
        assert_eq!(slots.open(), 0);
    });
}
