//! Test support: how many times this thread has read each file through the safe reader
//! ([`super::read_capped`], which every read of file contents goes through), so a test can
//! pin "each settings file is read once per request at most" without timing anything.
//!
//! Owns the per-thread count only. It is compiled for tests and the `test-support` feature
//! alone, must never change what a read does, and never holds file contents.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

thread_local! {
    static READS: RefCell<BTreeMap<PathBuf, usize>> = const { RefCell::new(BTreeMap::new()) };
}

/// Counts one read of `path` on this thread.
pub(super) fn record(path: &Path) {
    READS.with(|r| *r.borrow_mut().entry(path.to_owned()).or_default() += 1);
}

/// Forgets every count on this thread.
pub fn reset() {
    READS.with(|r| r.borrow_mut().clear());
}

/// How many times this thread read `path` since the last [`reset`].
pub fn reads_of(path: &Path) -> usize {
    READS.with(|r| r.borrow().get(path).copied().unwrap_or(0))
}

/// Every file this thread read since the last [`reset`], with its count, in path order.
pub fn all() -> Vec<(PathBuf, usize)> {
    READS.with(|r| r.borrow().iter().map(|(p, n)| (p.clone(), *n)).collect())
}

#[cfg(test)]
mod tests {
    use super::super::{read_text, Follow, Limit};
    use super::*;

    #[test]
    fn each_read_of_contents_is_counted_per_path_and_reset_forgets() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::write(&a, "x").unwrap();
        reset();
        read_text(&a, Follow::Symlinks, Limit::SETTINGS).unwrap();
        read_text(&a, Follow::Symlinks, Limit::SETTINGS).unwrap();
        read_text(
            &dir.path().join("absent"),
            Follow::Symlinks,
            Limit::SETTINGS,
        )
        .unwrap();
        assert_eq!(reads_of(&a), 2);
        assert_eq!(all(), vec![(a.clone(), 2)], "an absent file is not a read");
        reset();
        assert_eq!(reads_of(&a), 0);
    }
}
