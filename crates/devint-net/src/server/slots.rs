//! Connection-slot accounting: never above the total or per-uid limit, and a slot is
//! released on every exit path because it is a guard that releases on drop.

use std::collections::HashMap;

#[cfg(loom)]
use loom::sync::{Arc, Mutex};
#[cfg(not(loom))]
use std::sync::{Arc, Mutex};

/// Which limit refused a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotRefusal {
    /// All peers together are at the limit.
    Total,
    /// This uid is at its limit.
    PerUid,
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_uid: HashMap<u32, usize>,
}

/// The shared counters of open connections.
#[derive(Debug, Clone)]
pub struct ConnectionSlots {
    counts: Arc<Mutex<Counts>>,
    max_total: usize,
    max_per_uid: usize,
}

/// One open connection's slot; released when dropped.
#[derive(Debug)]
pub struct Slot {
    counts: Arc<Mutex<Counts>>,
    uid: u32,
}

impl ConnectionSlots {
    /// Counters with these limits.
    pub fn new(max_total: usize, max_per_uid: usize) -> ConnectionSlots {
        ConnectionSlots {
            counts: Arc::new(Mutex::new(Counts::default())),
            max_total,
            max_per_uid,
        }
    }

    /// Take a slot for `uid`, or say which limit refuses it.
    pub fn acquire(&self, uid: u32) -> Result<Slot, SlotRefusal> {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        if counts.total >= self.max_total {
            return Err(SlotRefusal::Total);
        }
        let mine = counts.per_uid.get(&uid).copied().unwrap_or(0);
        if mine >= self.max_per_uid {
            return Err(SlotRefusal::PerUid);
        }
        counts.total += 1;
        counts.per_uid.insert(uid, mine + 1);
        Ok(Slot {
            counts: Arc::clone(&self.counts),
            uid,
        })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.counts.lock().unwrap_or_else(|p| p.into_inner()).total
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.total -= 1;
        if let Some(n) = counts.per_uid.get_mut(&self.uid) {
            *n -= 1;
            if *n == 0 {
                counts.per_uid.remove(&self.uid);
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn limits_refuse_and_drop_releases() {
        let slots = ConnectionSlots::new(3, 2);
        let a = slots.acquire(1).unwrap();
        let _b = slots.acquire(1).unwrap();
        assert_eq!(slots.acquire(1).unwrap_err(), SlotRefusal::PerUid);
        let _c = slots.acquire(2).unwrap();
        assert_eq!(slots.acquire(3).unwrap_err(), SlotRefusal::Total);
        drop(a);
        assert_eq!(slots.open(), 2);
        assert!(slots.acquire(1).is_ok());
    }
}
