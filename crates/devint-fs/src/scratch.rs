//! [`ScratchDir`]: a fresh private (`0700`) directory for one fuzz input, removed on drop.
//!
//! The fuzz harnesses of the state-file parsers write each input as a real file, because
//! the parsers check modes and owners; this is the one place that makes such a directory.

use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh `0700` directory under the system temp dir, removed (with its contents) on drop.
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// Make `<tmp>/<prefix>-<pid>-<n>`, replacing any leftover of that name.
    pub fn new(prefix: &str) -> ScratchDir {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "{prefix}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .expect("create the fuzz scratch directory");
        // The umask may have cleared bits we need, never added any; set the mode exactly.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
            .expect("set the scratch directory's mode");
        ScratchDir(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}
