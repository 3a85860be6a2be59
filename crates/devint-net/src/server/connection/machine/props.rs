//! Property tests of the machine's invariants over any interleaving of what its driver can
//! report: requests of every kind (split across reads anywhere), calls finishing, time
//! passing, the peer closing its side.

use std::collections::HashSet;
use std::time::Duration;

use proptest::prelude::*;

use super::harness::{Ask, Harness};
use crate::server::config::Limits;

#[derive(Debug, Clone)]
enum Op {
    /// Requests, sent in one piece or split in two reads.
    Send(Vec<Ask>, bool),
    /// The call at the head of the queue finishes (when there is one).
    Finish,
    /// Time passes (milliseconds).
    Wait(u64),
    /// The peer closes its side.
    HalfClose,
}

fn ask() -> impl Strategy<Value = Ask> {
    prop_oneof![Just(Ask::Status), Just(Ask::Apply), Just(Ask::Forged)]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (prop::collection::vec(ask(), 1..4), any::<bool>()).prop_map(|(a, s)| Op::Send(a, s)),
        3 => Just(Op::Finish),
        2 => (0u64..90_000).prop_map(Op::Wait),
        1 => Just(Op::HalfClose),
    ]
}

fn limits() -> Limits {
    Limits {
        max_in_flight: 3,
        request_deadline: Duration::from_secs(20),
        mutation_grace: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(120),
        ..Limits::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn answers_leave_in_order_exactly_once_and_no_call_is_evicted_or_left_unanswered(
        ops in prop::collection::vec(op(), 1..40)
    ) {
        let mut h = Harness::negotiated(limits());
        let mut sent = Vec::new();
        let mut closed = false;
        for op in ops {
            match op {
                Op::Send(asks, split) if !closed => {
                    let mut bytes = Vec::new();
                    for ask in asks {
                        let id = sent.len() as u64 + 1;
                        sent.push(id);
                        bytes.extend(h.request(id, ask));
                    }
                    let cut = if split { bytes.len() / 2 } else { bytes.len() };
                    h.send(&bytes[..cut]);
                    if cut < bytes.len() {
                        h.send(&bytes[cut..]);
                    }
                }
                Op::Send(..) => {}
                Op::Finish => {
                    if h.head_running() {
                        h.finish_head();
                    }
                }
                Op::Wait(ms) => h.advance(Duration::from_millis(ms)),
                Op::HalfClose => {
                    closed = true;
                    h.half_close();
                }
            }
            // Never evictable with a call in flight.
            if h.head_running() {
                prop_assert!(!h.machine.evictable());
                prop_assert!(h.slot_busy);
            }
            // Answers so far: a prefix of the requests, in order, each once.
            let answered = h.answered_ids();
            prop_assert_eq!(&answered[..], &sent[..answered.len()]);
        }
        // However the calls behave, the deadlines answer every request decoded: time
        // passing alone empties the queue.
        for _ in 0..sent.len() + 2 {
            h.advance(limits().request_deadline + limits().mutation_grace);
        }
        let answered = h.answered_ids();
        let once: HashSet<_> = answered.iter().collect();
        prop_assert_eq!(once.len(), answered.len(), "nothing answered twice");
        prop_assert!(!h.head_running());
        prop_assert!(h.machine.evictable());
        // Everything sent was answered, unless the connection closed on idleness first
        // (then what it had decoded was answered, and the rest never read).
        prop_assert_eq!(&answered[..], &sent[..answered.len()]);
        if !h.machine.is_finished() {
            prop_assert_eq!(answered.len(), sent.len());
        }
    }
}
