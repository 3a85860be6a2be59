//! Loom model of [`devint_net::server::ConnectionSlots`]: concurrent acquires and drops never
//! exceed the total or per-uid limit, and every slot is given back.
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
                .map(|&uid| {
                    let slots = slots.clone();
                    let held = Arc::clone(&held);
                    thread::spawn(move || match slots.acquire(uid) {
                        Ok(slot) => {
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
                .map(|i| slots.acquire(100 + i as u32).expect("a slot leaked"))
                .collect();
            assert_eq!(slots.acquire(999).unwrap_err(), SlotRefusal::Total);
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
            .map(|_| {
                let slots = slots.clone();
                let held = Arc::clone(&held);
                thread::spawn(move || {
                    if let Ok(slot) = slots.acquire(7) {
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
        let slot = slots.acquire(7).expect("uid 7's slot leaked");
        assert_eq!(slots.acquire(7).unwrap_err(), SlotRefusal::PerUid);
        drop(slot);
    });
}

#[test]
fn a_slot_dropped_on_another_thread_is_released() {
    loom::model(|| {
        let slots = ConnectionSlots::new(1, 1);
        let slot = slots.acquire(1).unwrap();
        let dropper = thread::spawn(move || drop(slot));
        let contender = {
            let slots = slots.clone();
            thread::spawn(move || slots.acquire(1).is_ok())
        };
        dropper.join().unwrap();
        let _maybe = contender.join().unwrap();
        // Whatever the interleaving, the slot ends up free (the contender's, if taken, was
        // dropped when its thread returned).
        assert_eq!(slots.open(), 0);
    });
}
