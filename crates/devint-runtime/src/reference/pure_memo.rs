//! [`PureMemo`]: the last few results of a pure function of its inputs, kept by those inputs.
//!
//! A `plan` parses the settings file twice (the edit and its read-back) and the policy
//! profile's TOML; an IDE that plans again and again hands the same bytes every time. A
//! result is reused only for inputs **equal** to the ones it was computed from — the whole
//! text, compared — so no identity, size or timestamp stands in for content.
//!
//! Owns that bounded store and nothing else. It must only ever hold a function whose result
//! depends on nothing but its key (no clock, no file read, no configuration outside the key),
//! and never keep an error (a refusal is always derived again, with its own message).

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

/// The most input bytes a remembered result is kept for. Larger inputs are derived every
/// time: no memo holds a settings file near its 4 MiB read limit, eight times over.
pub(super) const MAX_KEPT_BYTES: usize = 256 * 1024;

/// Up to `capacity` (input, result) pairs, the most recently used first.
#[derive(Debug)]
pub(super) struct PureMemo<K, V> {
    entries: Mutex<VecDeque<(K, V)>>,
    capacity: usize,
}

impl<K: PartialEq, V: Clone> PureMemo<K, V> {
    /// An empty memo keeping at most `capacity` results.
    pub(super) const fn new(capacity: usize) -> PureMemo<K, V> {
        PureMemo {
            entries: Mutex::new(VecDeque::new()),
            capacity,
        }
    }

    /// The result of `compute(&key)`: remembered when `key` was seen, else computed now
    /// (outside the lock) and remembered when it is `Ok` and the key's `size` (its bytes of
    /// input) is at most [`MAX_KEPT_BYTES`].
    pub(super) fn get_or_try<E>(
        &self,
        key: K,
        size: usize,
        compute: impl FnOnce(&K) -> Result<V, E>,
    ) -> Result<V, E> {
        if size > MAX_KEPT_BYTES {
            return compute(&key);
        }
        {
            let mut entries = self.lock();
            if let Some(at) = entries.iter().position(|(k, _)| *k == key) {
                let entry = entries.remove(at).expect("the position was just found");
                let value = entry.1.clone();
                entries.push_front(entry);
                return Ok(value);
            }
        }
        let value = compute(&key)?;
        let mut entries = self.lock();
        entries.push_front((key, value.clone()));
        entries.truncate(self.capacity);
        Ok(value)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(K, V)>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::{PureMemo, MAX_KEPT_BYTES};
    use std::cell::Cell;

    #[test]
    fn equal_inputs_reuse_a_result_other_inputs_and_errors_are_computed() {
        let memo: PureMemo<String, usize> = PureMemo::new(2);
        let calls = Cell::new(0);
        let len = |k: &String| -> Result<usize, ()> {
            calls.set(calls.get() + 1);
            if k.is_empty() {
                Err(())
            } else {
                Ok(k.len())
            }
        };
        assert_eq!(memo.get_or_try("abc".into(), 3, len), Ok(3));
        assert_eq!(memo.get_or_try("abc".into(), 3, len), Ok(3));
        assert_eq!(calls.get(), 1);
        assert_eq!(memo.get_or_try("abd".into(), 3, len), Ok(3));
        assert_eq!(calls.get(), 2, "equal length, other text: computed");
        assert_eq!(memo.get_or_try(String::new(), 0, len), Err(()));
        assert_eq!(memo.get_or_try(String::new(), 0, len), Err(()));
        assert_eq!(calls.get(), 4, "an error is never remembered");
        // Capacity 2: "abc" was used least recently once "x" arrives, and is gone.
        memo.get_or_try("x".into(), 1, len).unwrap();
        memo.get_or_try("abc".into(), 3, len).unwrap();
        assert_eq!(calls.get(), 6);
        // Over the size bound: derived every time, never kept.
        let big = "y".repeat(MAX_KEPT_BYTES + 1);
        memo.get_or_try(big.clone(), big.len(), len).unwrap();
        memo.get_or_try(big.clone(), big.len(), len).unwrap();
        assert_eq!(calls.get(), 8);
        memo.get_or_try("abc".into(), 3, len).unwrap();
        assert_eq!(calls.get(), 8, "the oversize key displaced nothing");
    }
}
