//! Test support (feature `test-support`): the special files the safe reader ([`crate::read`])
//! must refuse without blocking, planted where a test wants them. Never compiled into a
//! release build; it must never be used outside tests.

use std::path::Path;

/// A named pipe at `path`, mode `0600` (a FIFO no one writes to: a blocking open of it would
/// never return).
pub fn mkfifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap_or_else(|e| panic!("mkfifo {}: {e}", path.display()));
}
