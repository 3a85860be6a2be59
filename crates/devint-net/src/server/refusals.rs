//! The per-connection budget of refusal records: a connection that keeps
//! sending refused frames or requests gets its first [`REFUSALS_PER_WINDOW`] refusals of
//! each [`REFUSAL_WINDOW`] recorded one by one; further ones are counted and written as one
//! `refusals_summarised` record with the count — when the window ends (at the next
//! refusal) or when the connection closes — so nothing is dropped silently and a flood of
//! garbage cannot grow the audit log and the log without bound.
//!
//! This module only counts; it reads no clock (the caller passes the instant) and records
//! nothing itself. It never limits mutations' records or any answer: every refused request
//! is still answered.

use std::time::{Duration, Instant};

/// Refusals of one connection recorded one by one per window.
pub const REFUSALS_PER_WINDOW: u32 = 16;

/// The window the budget is counted over.
pub const REFUSAL_WINDOW: Duration = Duration::from_secs(60);

/// What to do with one refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// Record this refusal's own event.
    pub(crate) record: bool,
    /// First write a summary of this many refusals counted in the window that ended.
    pub(crate) summary: Option<u32>,
    /// This refusal is the first one counted instead of recorded in its window.
    pub(crate) began_counting: bool,
}

/// One connection's budget.
#[derive(Debug)]
pub(crate) struct RefusalBudget {
    window_start: Instant,
    recorded: u32,
    counted: u32,
}

impl RefusalBudget {
    pub(crate) fn new(now: Instant) -> RefusalBudget {
        RefusalBudget {
            window_start: now,
            recorded: 0,
            counted: 0,
        }
    }

    /// One refusal at `now`.
    pub(crate) fn refusal(&mut self, now: Instant) -> Verdict {
        let mut summary = None;
        if now.saturating_duration_since(self.window_start) >= REFUSAL_WINDOW {
            summary = self.take_summary();
            self.window_start = now;
            self.recorded = 0;
        }
        if self.recorded < REFUSALS_PER_WINDOW {
            self.recorded += 1;
            return Verdict {
                record: true,
                summary,
                began_counting: false,
            };
        }
        self.counted = self.counted.saturating_add(1);
        Verdict {
            record: false,
            summary,
            began_counting: self.counted == 1,
        }
    }

    /// The refusals counted and not yet summarised (the connection is closing).
    pub(crate) fn take_summary(&mut self) -> Option<u32> {
        let counted = std::mem::take(&mut self.counted);
        (counted > 0).then_some(counted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_budget_refusals_are_counted_and_summarised_per_window() {
        let t0 = Instant::now();
        let mut budget = RefusalBudget::new(t0);
        for _ in 0..REFUSALS_PER_WINDOW {
            let v = budget.refusal(t0);
            assert!(v.record && v.summary.is_none() && !v.began_counting);
        }
        let first = budget.refusal(t0);
        assert!(!first.record && first.began_counting);
        for _ in 0..9 {
            assert!(!budget.refusal(t0 + Duration::from_secs(59)).record);
        }
        // The next window: its first refusal is recorded after the summary of ten.
        let next = budget.refusal(t0 + REFUSAL_WINDOW);
        assert_eq!(
            next,
            Verdict {
                record: true,
                summary: Some(10),
                began_counting: false
            }
        );
        assert_eq!(budget.take_summary(), None);
        for _ in 0..REFUSALS_PER_WINDOW + 2 {
            budget.refusal(t0 + REFUSAL_WINDOW);
        }
        // Closing: what was counted is summarised once.
        assert_eq!(budget.take_summary(), Some(3));
        assert_eq!(budget.take_summary(), None);
    }
}
