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
    /// (outside the lock) and remembered when it is `Ok`.
    pub(super) fn get_or_try<E>(
        &self,
        key: K,
        compute: impl FnOnce(&K) -> Result<V, E>,
    ) -> Result<V, E> {
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
    use super::PureMemo;
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
        assert_eq!(memo.get_or_try("abc".into(), len), Ok(3));
        assert_eq!(memo.get_or_try("abc".into(), len), Ok(3));
        assert_eq!(calls.get(), 1);
        assert_eq!(memo.get_or_try("abd".into(), len), Ok(3));
        assert_eq!(calls.get(), 2, "equal length, other text: computed");
        assert_eq!(memo.get_or_try(String::new(), len), Err(()));
        assert_eq!(memo.get_or_try(String::new(), len), Err(()));
        assert_eq!(calls.get(), 4, "an error is never remembered");
        // Capacity 2: "abc" was used least recently once "x" arrives, and is gone.
        memo.get_or_try("x".into(), len).unwrap();
        memo.get_or_try("abc".into(), len).unwrap();
        assert_eq!(calls.get(), 6);
    }
}
