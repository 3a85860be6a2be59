//! Following scoped events: the DI-API has no push, so a follow polls `scoped_events` with a
//! moving `since` and delivers only what it has not delivered before, oldest first.
//!
//! This module owns the [`Cursor`] (sans-IO: answers in, new events out). `since` is
//! inclusive on the wire, so events of the cursor's own second come back on every poll; the
//! cursor remembers those it delivered and skips exactly them (an event is identified by
//! its whole content: the views carry no id). It must never deliver an event twice, never
//! deliver an event older than one already delivered, and never hold more than one answer's
//! worth of events.

use devint::time::UnixSecs;
use devint::verbs::ScopedEvent;

/// Where a follow stands: the second to poll from, and what of that second was delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    since: UnixSecs,
    delivered_at_since: Vec<ScopedEvent>,
}

impl Cursor {
    /// A cursor that will deliver events at or after `since`.
    pub fn new(since: UnixSecs) -> Cursor {
        Cursor {
            since,
            delivered_at_since: Vec::new(),
        }
    }

    /// The `since_unix_secs` of the next poll.
    pub fn since(&self) -> UnixSecs {
        self.since
    }

    /// Take one poll's answer; return the events not delivered before, oldest first (the
    /// runtime's order within one second), and move the cursor past them.
    pub fn advance(&mut self, mut answer: Vec<ScopedEvent>) -> Vec<ScopedEvent> {
        answer.sort_by_key(|e| e.occurred_at_unix_secs);
        let mut already = std::mem::take(&mut self.delivered_at_since);
        let mut moved = false;
        let mut fresh = Vec::new();
        for event in answer {
            if event.occurred_at_unix_secs < self.since {
                continue;
            }
            if event.occurred_at_unix_secs == self.since {
                if let Some(at) = already.iter().position(|d| *d == event) {
                    already.swap_remove(at);
                    self.delivered_at_since.push(event);
                    continue;
                }
            }
            if event.occurred_at_unix_secs > self.since {
                self.since = event.occurred_at_unix_secs;
                self.delivered_at_since.clear();
                moved = true;
            }
            self.delivered_at_since.push(event.clone());
            fresh.push(event);
        }
        // Events of the cursor's second delivered earlier but absent now stay remembered,
        // so a later answer that has them again does not deliver them twice.
        if !moved {
            self.delivered_at_since.append(&mut already);
        }
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use devint::verbs::{MechanismName, VerdictKind};

    fn event(at: u64, count: u32) -> ScopedEvent {
        ScopedEvent {
            occurred_at_unix_secs: UnixSecs::new(at),
            verdict_kind: VerdictKind::Deny,
            mechanism: MechanismName::parse("hooks").expect("a mechanism name"),
            count,
            redaction_labels: Vec::new(),
        }
    }

    #[test]
    fn each_event_is_delivered_once_oldest_first() {
        let mut c = Cursor::new(UnixSecs::new(0));
        assert_eq!(
            c.advance(vec![event(20, 1), event(10, 1)]),
            vec![event(10, 1), event(20, 1)]
        );
        assert_eq!(c.since(), UnixSecs::new(20));
        // The same second comes back (since is inclusive) with one more event in it.
        assert_eq!(
            c.advance(vec![event(20, 1), event(20, 2)]),
            vec![event(20, 2)]
        );
        assert_eq!(c.advance(vec![event(20, 2), event(20, 1)]), vec![]);
        assert_eq!(
            c.advance(vec![event(20, 1), event(21, 1)]),
            vec![event(21, 1)]
        );
    }

    #[test]
    fn an_event_older_than_the_cursor_is_never_delivered() {
        let mut c = Cursor::new(UnixSecs::new(100));
        assert_eq!(
            c.advance(vec![event(99, 1), event(100, 1)]),
            vec![event(100, 1)]
        );
    }

    #[test]
    fn identical_events_in_one_second_are_each_delivered_once() {
        let mut c = Cursor::new(UnixSecs::new(0));
        assert_eq!(c.advance(vec![event(5, 1)]), vec![event(5, 1)]);
        assert_eq!(c.advance(vec![event(5, 1), event(5, 1)]), vec![event(5, 1)]);
        assert_eq!(c.advance(vec![event(5, 1), event(5, 1)]), vec![]);
    }
}
