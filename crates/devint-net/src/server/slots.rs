//! Connection-slot accounting: never above the total or per-uid limit, a slot released on
//! every exit path because it is a guard that releases on drop, and — at a limit — room
//! made for the newcomer by evicting the longest-idle connection, so a flood of idle
//! connections cannot lock the user out.
//!
//! Eviction order: a connection that has not finished its `Hello` first, then one that
//! negotiated but never had a call authorised, then an authorised one; within each, the one
//! idle longest. A connection with a call in flight is never evicted: when every slot is
//! busy the newcomer is refused. Idleness is a logical clock (a counter bumped at each
//! change of state), so the order is exact and this module reads no time.
//!
//! How many connections are open is mirrored in an atomic, refreshed by every change of the
//! table as its lock is released, so a connection task can read it at every request without
//! taking the lock (see [`ConnectionSlots::open`]).
//!
//! This module decides and accounts; it never touches a socket. The evicted connection's
//! slot leaves the counts at once (the newcomer takes it) and the evicted task learns of
//! it through its [`Slot`] and closes.

use std::collections::HashMap;

#[cfg(loom)]
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
#[cfg(loom)]
use loom::sync::{Arc, Mutex};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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

/// How far a connection got; also the eviction order (first evicted first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// No `Hello` answered yet.
    Handshake,
    /// Negotiated; no call authorised yet.
    Negotiated,
    /// At least one call was authorised on it.
    Authorised,
}

/// The connection evicted to admit a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evicted {
    /// The server's id of the evicted connection.
    pub connection: u64,
    /// Its peer's uid.
    pub uid: u32,
    /// How far it had got.
    pub stage: Stage,
    /// The limit that made room necessary.
    pub limit: SlotRefusal,
}

/// A new connection's slot, and the connection evicted to make room for it, if any.
#[derive(Debug)]
pub struct Admission {
    /// The newcomer's slot.
    pub slot: Slot,
    /// Who was evicted for it.
    pub evicted: Option<Evicted>,
}

/// The eviction notice one connection's task waits on.
#[derive(Debug, Default)]
struct Notice {
    evicted: AtomicBool,
    #[cfg(not(loom))]
    wake: tokio::sync::Notify,
}

#[derive(Debug)]
struct Entry {
    uid: u32,
    stage: Stage,
    /// Calls in flight (a busy connection is never evicted).
    busy: bool,
    /// The logical time it last became idle (or changed stage).
    since: u64,
    notice: Arc<Notice>,
}

#[derive(Debug, Default)]
struct Table {
    per_uid: HashMap<u32, usize>,
    open: HashMap<u64, Entry>,
    clock: u64,
}

impl Table {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Take `connection` out of the counts; its entry, if it was still there.
    fn release(&mut self, connection: u64) -> Option<Entry> {
        let entry = self.open.remove(&connection)?;
        if let Some(n) = self.per_uid.get_mut(&entry.uid) {
            *n -= 1;
            if *n == 0 {
                self.per_uid.remove(&entry.uid);
            }
        }
        Some(entry)
    }

    /// The idle connection to evict (of `uid` when given): lowest stage, then idle longest.
    fn victim(&self, uid: Option<u32>) -> Option<u64> {
        self.open
            .iter()
            .filter(|(_, e)| !e.busy && uid.is_none_or(|u| e.uid == u))
            .min_by_key(|(id, e)| (e.stage, e.since, **id))
            .map(|(id, _)| *id)
    }
}

/// The table, behind its lock, and the count of its open connections, readable without it.
#[derive(Debug, Default)]
struct Inner {
    table: Mutex<Table>,
    /// `table.open.len()` as of the last release of the lock.
    open: AtomicUsize,
}

#[cfg(not(loom))]
type Guard<'a> = std::sync::MutexGuard<'a, Table>;
#[cfg(loom)]
type Guard<'a> = loom::sync::MutexGuard<'a, Table>;

/// The table, locked; released by dropping, which first brings the lock-free count in step.
struct Locked<'a> {
    table: Guard<'a>,
    /// [`Inner::open`], stored before the guard above is released (fields drop after
    /// `Drop::drop`), so the stores happen in the lock's order.
    count: &'a AtomicUsize,
}

impl Inner {
    fn lock(&self) -> Locked<'_> {
        Locked {
            table: self.table.lock().unwrap_or_else(|p| p.into_inner()),
            count: &self.open,
        }
    }
}

impl std::ops::Deref for Locked<'_> {
    type Target = Table;
    fn deref(&self) -> &Table {
        &self.table
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Table {
        &mut self.table
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        self.count.store(self.table.open.len(), Ordering::Relaxed);
    }
}

/// The shared table of open connections.
#[derive(Debug, Clone)]
pub struct ConnectionSlots {
    inner: Arc<Inner>,
    max_total: usize,
    max_per_uid: usize,
}

/// One open connection's slot; released when dropped.
#[derive(Debug)]
pub struct Slot {
    inner: Arc<Inner>,
    connection: u64,
    notice: Arc<Notice>,
}

impl ConnectionSlots {
    /// A table with these limits.
    pub fn new(max_total: usize, max_per_uid: usize) -> ConnectionSlots {
        ConnectionSlots {
            inner: Arc::new(Inner::default()),
            max_total,
            max_per_uid,
        }
    }

    /// Take a slot for `connection` of `uid`. At a limit, evict the connection that has
    /// been idle longest (of this uid, at the per-uid limit) to make room; refuse, naming
    /// the limit, only when every connection that could make room is busy.
    pub fn acquire(&self, uid: u32, connection: u64) -> Result<Admission, SlotRefusal> {
        let mut table = self.inner.lock();
        let mine = table.per_uid.get(&uid).copied().unwrap_or(0);
        let full = if mine >= self.max_per_uid {
            Some((SlotRefusal::PerUid, Some(uid)))
        } else if table.open.len() >= self.max_total {
            Some((SlotRefusal::Total, None))
        } else {
            None
        };
        let evicted = match full {
            None => None,
            Some((limit, among)) => {
                let victim = table.victim(among).ok_or(limit)?;
                let entry = table.release(victim).ok_or(limit)?;
                entry.notice.evicted.store(true, Ordering::SeqCst);
                #[cfg(not(loom))]
                entry.notice.wake.notify_one();
                Some(Evicted {
                    connection: victim,
                    uid: entry.uid,
                    stage: entry.stage,
                    limit,
                })
            }
        };
        let since = table.tick();
        let notice = Arc::new(Notice::default());
        *table.per_uid.entry(uid).or_insert(0) += 1;
        table.open.insert(
            connection,
            Entry {
                uid,
                stage: Stage::Handshake,
                busy: false,
                since,
                notice: Arc::clone(&notice),
            },
        );
        Ok(Admission {
            slot: Slot {
                inner: Arc::clone(&self.inner),
                connection,
                notice,
            },
            evicted,
        })
    }

    /// Connections open now (an evicted one no longer counts), as of the last change of
    /// the table: read without its lock.
    pub fn open(&self) -> usize {
        self.inner.open.load(Ordering::Relaxed)
    }
}

impl Slot {
    /// The connection negotiated: it is no longer evicted before the handshaking ones.
    pub fn negotiated(&self) {
        let mut table = self.inner.lock();
        let since = table.tick();
        if let Some(e) = table.open.get_mut(&self.connection) {
            e.stage = e.stage.max(Stage::Negotiated);
            e.since = since;
        }
    }

    /// Mark the connection busy (a call is about to run: never evicted from now) or idle
    /// again (every answer written). False when it was already evicted: nothing may run.
    pub fn set_busy(&self, busy: bool) -> bool {
        let mut table = self.inner.lock();
        let since = table.tick();
        match table.open.get_mut(&self.connection) {
            Some(e) => {
                e.busy = busy;
                e.since = since;
                if busy {
                    e.stage = Stage::Authorised;
                }
                true
            }
            None => false,
        }
    }

    /// Whether this connection was evicted to make room for another (the connection task
    /// learns it through [`Slot::eviction`]; the tests and the loom model ask directly).
    #[cfg(any(test, loom))]
    pub fn is_evicted(&self) -> bool {
        self.notice.evicted.load(Ordering::SeqCst)
    }

    /// Resolves once this connection is evicted; owns what it waits on, so a connection's
    /// task makes it once and keeps it (its wait stays registered, instead of registering
    /// and withdrawing at every turn of the task's loop).
    #[cfg(not(loom))]
    pub fn eviction(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        wait_evicted(Arc::clone(&self.notice))
    }
}

#[cfg(not(loom))]
async fn wait_evicted(notice: Arc<Notice>) {
    loop {
        // Registered before the flag is read, so an eviction between the two is not missed
        // (`notify_one` also leaves a permit when nobody waits).
        let notified = notice.wake.notified();
        if notice.evicted.load(Ordering::SeqCst) {
            return;
        }
        notified.await;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        // An evicted slot already left the counts.
        self.inner.lock().release(self.connection);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn limits_refuse_busy_tables_and_drop_releases() {
        let slots = ConnectionSlots::new(3, 2);
        let a = slots.acquire(1, 1).unwrap().slot;
        let b = slots.acquire(1, 2).unwrap().slot;
        assert!(a.set_busy(true) && b.set_busy(true));
        assert_eq!(slots.acquire(1, 3).unwrap_err(), SlotRefusal::PerUid);
        let c = slots.acquire(2, 4).unwrap().slot;
        assert!(c.set_busy(true));
        assert_eq!(slots.acquire(3, 5).unwrap_err(), SlotRefusal::Total);
        drop(a);
        assert_eq!(slots.open(), 2);
        assert!(slots.acquire(1, 6).is_ok());
    }

    #[test]
    fn eviction_takes_handshaking_then_negotiated_then_authorised_longest_idle_first() {
        let slots = ConnectionSlots::new(4, 4);
        let authorised = slots.acquire(1, 1).unwrap().slot;
        assert!(authorised.set_busy(true) && authorised.set_busy(false));
        let older_negotiated = slots.acquire(1, 2).unwrap().slot;
        older_negotiated.negotiated();
        let newer_negotiated = slots.acquire(1, 3).unwrap().slot;
        newer_negotiated.negotiated();
        let handshaking = slots.acquire(1, 4).unwrap().slot;
        let order: Vec<(u64, Stage)> = (10..14)
            .map(|id| {
                let admitted = slots.acquire(1, id).unwrap();
                assert!(admitted.slot.set_busy(true), "the newcomer holds its slot");
                std::mem::forget(admitted.slot);
                let e = admitted.evicted.unwrap();
                assert_eq!(e.limit, SlotRefusal::PerUid);
                (e.connection, e.stage)
            })
            .collect();
        assert_eq!(
            order,
            [
                (4, Stage::Handshake),
                (2, Stage::Negotiated),
                (3, Stage::Negotiated),
                (1, Stage::Authorised)
            ]
        );
        for evicted in [
            &authorised,
            &older_negotiated,
            &newer_negotiated,
            &handshaking,
        ] {
            assert!(evicted.is_evicted());
            assert!(
                !evicted.set_busy(true),
                "an evicted connection runs nothing"
            );
        }
        // Everything busy now: refused.
        assert_eq!(slots.acquire(1, 20).unwrap_err(), SlotRefusal::PerUid);
        assert_eq!(slots.open(), 4);
    }

    #[test]
    fn a_busy_connection_is_never_evicted_and_becomes_evictable_when_idle() {
        let slots = ConnectionSlots::new(1, 1);
        let a = slots.acquire(1, 1).unwrap().slot;
        assert!(a.set_busy(true));
        assert_eq!(slots.acquire(1, 2).unwrap_err(), SlotRefusal::PerUid);
        assert!(!a.is_evicted());
        assert!(a.set_busy(false));
        let b = slots.acquire(1, 3).unwrap();
        assert_eq!(b.evicted.map(|e| e.connection), Some(1));
        assert!(a.is_evicted());
        drop(a);
        // Dropping the evicted slot does not release the newcomer's.
        assert_eq!(slots.open(), 1);
    }
}
