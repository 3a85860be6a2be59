//! The machine's rules, one by one, on a virtual clock (see `harness`).

use std::time::Duration;

use devint::audit::AuditKind;
use devint::verbs::Verb;
use devint::wire::{pb, ServerFrame};

use super::harness::{hello, Ask, Harness};
use crate::server::config::Limits;
use crate::server::intake::STALL_CHECK;
use crate::server::refusals::REFUSALS_PER_WINDOW;

fn limits() -> Limits {
    Limits::default()
}

#[test]
fn no_hello_within_the_handshake_timeout_closes_and_is_audited() {
    let mut h = Harness::new(limits());
    let due = h.now + limits().handshake_timeout;
    assert_eq!(h.machine.poll_timeout(), Some(due));
    h.advance(limits().handshake_timeout - Duration::from_millis(1));
    assert!(!h.machine.is_finished(), "not before the deadline");
    h.advance(Duration::from_millis(1));
    assert!(h.machine.is_finished());
    assert!(matches!(
        h.refusals.last().map(|e| &e.kind),
        Some(AuditKind::HandshakeTimeout)
    ));
}

#[test]
fn a_dribbled_hello_does_not_move_the_handshake_deadline() {
    let mut h = Harness::new(limits());
    let hello = hello();
    let due = h.now + limits().handshake_timeout;
    let step = (limits().handshake_timeout - Duration::from_secs(1)) / hello.len() as u32;
    for byte in &hello[..hello.len() - 1] {
        h.advance(step);
        h.send(std::slice::from_ref(byte));
        assert_eq!(h.machine.poll_timeout(), Some(due), "counted from accept");
    }
    h.advance(due - h.now);
    assert!(h.machine.is_finished());
    assert!(
        h.written.is_empty(),
        "no HelloAck for a Hello that never arrived whole"
    );
}

#[test]
fn the_idle_deadline_counts_from_the_last_activity_and_only_while_nothing_is_in_flight() {
    let mut h = Harness::negotiated(limits());
    assert!(h.slot_negotiated);
    let idle = limits().idle_timeout;
    h.advance(idle / 2);
    let request = h.request(1, Ask::Apply);
    h.send(&request);
    // A client waiting for its answer is not idle: only the call's deadline runs.
    assert_eq!(
        h.machine.poll_timeout(),
        Some(h.now + limits().request_deadline)
    );
    h.advance(Duration::from_secs(1));
    h.finish_head();
    assert_eq!(h.answered_ids(), vec![1]);
    assert_eq!(h.machine.poll_timeout(), Some(h.now + idle));
    h.advance(idle - Duration::from_secs(1));
    assert!(!h.machine.is_finished());
    h.advance(Duration::from_secs(1));
    assert!(h.machine.is_finished(), "idle past the timeout: closed");
    assert!(
        !h.refusals
            .iter()
            .any(|e| matches!(e.kind, AuditKind::HandshakeTimeout)),
        "an idle close is not a handshake timeout"
    );
}

#[test]
fn pipelined_answers_leave_in_request_order_even_when_a_later_one_is_ready_first() {
    let mut h = Harness::negotiated(limits());
    let mut bytes = h.request(1, Ask::Apply);
    bytes.extend(h.request(2, Ask::Forged));
    bytes.extend(h.request(3, Ask::Status));
    bytes.extend(h.request(4, Ask::Apply));
    h.send(&bytes);
    assert!(h.written.is_empty(), "2 and 3 are ready but wait behind 1");
    h.finish_head();
    assert_eq!(
        h.answered_ids(),
        vec![1, 2, 3],
        "then everything ready behind it goes"
    );
    h.finish_head();
    assert_eq!(h.answered_ids(), vec![1, 2, 3, 4]);
    assert_eq!(h.backend.calls(Verb::Status), 1);
}

#[test]
fn at_most_max_in_flight_requests_are_decoded_the_rest_wait_undecoded() {
    let limits = Limits {
        max_in_flight: 2,
        ..Limits::default()
    };
    let mut h = Harness::negotiated(limits);
    let mut bytes = Vec::new();
    for id in 1..=4 {
        bytes.extend(h.request(id, Ask::Apply));
    }
    h.send(&bytes);
    assert_eq!(
        h.cancels.len(),
        2,
        "two calls started, two requests not decoded"
    );
    assert_eq!(
        h.machine.plan_wait(false, false, || h.now).read,
        None,
        "no read while full"
    );
    h.finish_head();
    assert_eq!(h.cancels.len(), 3);
    h.finish_head();
    h.finish_head();
    h.finish_head();
    assert_eq!(h.answered_ids(), vec![1, 2, 3, 4]);
    assert_eq!(
        h.machine.plan_wait(false, false, || h.now).read,
        Some(false)
    );
}

#[test]
fn a_read_past_its_deadline_is_cancelled_and_denied_and_frees_the_answers_behind_it() {
    let mut h = Harness::negotiated(limits());
    h.backend.set_delay(Some(Duration::ZERO)); // every call runs off the workers
    let mut bytes = h.request(1, Ask::Status);
    bytes.extend(h.request(2, Ask::Forged));
    h.send(&bytes);
    h.advance(limits().request_deadline - Duration::from_millis(1));
    assert!(h.written.is_empty());
    assert!(!h.cancels[&1].is_raised());
    h.advance(Duration::from_millis(1));
    assert!(h.cancels[&1].is_raised(), "its cancellation is raised");
    assert_eq!(h.answered_ids(), vec![1, 2]);
    let ServerFrame::Denied(d) = &h.written[0] else {
        panic!("a denial: {:?}", h.written[0]);
    };
    assert_eq!(d.code, pb::DenyCode::LifecycleError as i32);
    assert!(d.message.contains("deadline"), "{d:?}");
    assert!(
        !h.head_running(),
        "never answered twice: the call left the queue"
    );
}

#[test]
fn a_call_that_ended_is_answered_with_its_answer_even_when_collected_past_its_deadline() {
    let mut h = Harness::negotiated(limits());
    h.backend.set_delay(Some(Duration::ZERO)); // every call runs off the workers
    let mut bytes = h.request(1, Ask::Status);
    bytes.extend(h.request(2, Ask::Status));
    h.send(&bytes);
    h.end_uncollected(2);
    h.advance(limits().request_deadline);
    assert_eq!(h.answered_ids(), vec![1], "1 is denied at its deadline");
    assert!(!h.cancels[&2].is_raised(), "2 ended in time: not cancelled");
    h.finish_head();
    assert!(matches!(h.written[1], ServerFrame::Response(ref r) if r.request_id == 2));
}

#[test]
fn a_mutation_past_its_deadline_is_answered_with_its_real_outcome_within_the_grace() {
    let mut h = Harness::negotiated(limits());
    let request = h.request(1, Ask::Apply);
    h.send(&request);
    h.advance(limits().request_deadline);
    assert!(h.cancels[&1].is_raised(), "cancelled at the deadline");
    assert!(
        h.written.is_empty(),
        "but not answered: its outcome is awaited"
    );
    assert_eq!(
        h.machine.poll_timeout(),
        Some(h.now + limits().mutation_grace)
    );
    h.advance(limits().mutation_grace / 2);
    h.finish_head();
    assert!(matches!(h.written[..], [ServerFrame::Response(ref r)] if r.request_id == 1));
}

#[test]
fn a_mutation_still_running_past_the_grace_is_answered_still_running() {
    let mut h = Harness::negotiated(limits());
    let request = h.request(1, Ask::Apply);
    h.send(&request);
    h.advance(limits().request_deadline);
    h.advance(limits().mutation_grace);
    assert_eq!(h.answered_ids(), vec![1]);
    let ServerFrame::Denied(d) = &h.written[0] else {
        panic!("a denial: {:?}", h.written[0]);
    };
    assert!(d.message.contains("still running"), "{d:?}");
    assert!(!h.head_running());
}

#[test]
fn a_connection_with_a_call_in_flight_is_never_evictable() {
    let mut h = Harness::negotiated(limits());
    assert!(h.machine.evictable());
    let request = h.request(1, Ask::Apply);
    h.send(&request);
    assert!(!h.machine.evictable());
    assert!(h.slot_busy);
    h.advance(limits().request_deadline);
    assert!(
        !h.machine.evictable(),
        "not even past its deadline, while it runs"
    );
    h.finish_head();
    assert!(h.machine.evictable());
    assert!(!h.slot_busy, "the slot is told it is idle again");
}

#[test]
fn a_call_whose_slot_was_evicted_before_it_started_never_runs() {
    let mut h = Harness::negotiated(limits());
    h.evicted = true;
    let request = h.request(1, Ask::Status);
    h.send(&request);
    assert_eq!(h.backend.total_calls(), 0);
    assert!(h.written.is_empty());
    assert!(h.machine.is_finished());
}

#[test]
fn a_half_closed_peer_gets_every_answer_and_is_watched_for_hanging_up() {
    let mut h = Harness::negotiated(limits());
    let request = h.request(1, Ask::Apply);
    h.send(&request);
    h.half_close();
    let wait = h.machine.plan_wait(true, false, || h.now);
    assert_eq!(wait.read, None);
    assert!(wait.watch_gone);
    assert!(!h.machine.is_finished());
    h.finish_head();
    assert_eq!(h.answered_ids(), vec![1]);
    assert!(h.machine.is_finished());
}

#[test]
fn a_negotiated_connection_peeks_only_at_a_frame_boundary_and_when_not_alone() {
    let mut h = Harness::new(limits());
    assert_eq!(
        h.machine.plan_wait(true, false, || h.now).read,
        Some(false),
        "not before the handshake"
    );
    h.send(&hello());
    assert_eq!(h.machine.plan_wait(true, false, || h.now).read, Some(true));
    assert_eq!(
        h.machine.plan_wait(false, false, || h.now).read,
        Some(false),
        "alone"
    );
    let request = h.request(1, Ask::Status);
    h.send(&request[..3]);
    assert_eq!(
        h.machine.plan_wait(true, false, || h.now).read,
        Some(false),
        "mid-frame"
    );
    h.send(&request[3..]);
    assert_eq!(h.answered_ids(), vec![1]);
}

#[test]
fn bytes_owed_while_waiting_are_checked_for_a_stall_every_check_until_taken_off() {
    let mut h = Harness::negotiated(limits());
    let wait = h.machine.plan_wait(true, true, || h.now);
    assert!(wait.start_stall_watch);
    assert_eq!(h.machine.poll_timeout(), Some(h.now + STALL_CHECK));
    assert!(
        !h.machine.plan_wait(true, true, || h.now).start_stall_watch,
        "started once"
    );
    h.advance(STALL_CHECK);
    assert_eq!(h.stall_checks, 1);
    assert_eq!(
        h.machine.poll_timeout(),
        Some(h.now + STALL_CHECK),
        "checked again later"
    );
    h.stall_still_watched = false;
    h.advance(STALL_CHECK);
    assert_eq!(h.stall_checks, 2);
    h.advance(STALL_CHECK * 4);
    assert_eq!(h.stall_checks, 2, "taken off: no more checks");
    // Nothing owed any more: the watch ends; owed again, it starts again.
    assert!(!h.machine.plan_wait(true, false, || h.now).start_stall_watch);
    assert!(h.machine.plan_wait(true, true, || h.now).start_stall_watch);
}

#[test]
fn a_flood_of_refusals_is_recorded_within_the_budget_and_summarised_at_the_end() {
    let mut h = Harness::negotiated(limits());
    let mut bytes = Vec::new();
    for id in 1..=40 {
        bytes.extend(h.request(id, Ask::Forged));
    }
    h.send(&bytes);
    assert_eq!(
        h.answered_ids(),
        (1..=40).collect::<Vec<_>>(),
        "every refusal is answered"
    );
    assert_eq!(h.refusals.len(), REFUSALS_PER_WINDOW as usize);
    let summary = h.machine.take_refusal_summary(h.wall()).expect("a summary");
    assert!(matches!(
        summary.kind,
        AuditKind::RefusalsSummarised { count: 24 }
    ));
    assert!(
        h.machine.take_refusal_summary(h.wall()).is_none(),
        "summarised once"
    );
}
