//! Reading the small private files the command keeps for itself (kept plans, the serving
//! record), through the one safe reader (`devint_fs::read`: never blocking on a FIFO, never
//! reading a device, capped): only a regular file this user owns that nobody else can read,
//! not through a symlink, at most [`LIMIT`].
//!
//! This module owns that policy. Anything that is not such a file reads as absent: these
//! files are conveniences, and a stranger's file in their place is ignored, not trusted.

use std::path::Path;

use devint_fs::private;
use devint_fs::read::{open_regular, read_capped, Follow, Limit};

/// The largest such file read: one DI-API frame.
pub const LIMIT: Limit = Limit {
    bytes: 1 << 20,
    what: "file the command keeps",
};

/// The bytes of the private file at `path`, or `None` if it is absent or not such a file.
pub fn read_private(path: &Path) -> Option<Vec<u8>> {
    let (mut file, meta) = open_regular(path, Follow::NoFinalSymlink).ok()??;
    private::check_private(&meta, false).ok()?;
    read_capped(path, &mut file, &meta, LIMIT).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_reads_as_absent_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("record");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        assert_eq!(read_private(&fifo), None);
    }

    #[test]
    fn a_file_others_can_read_reads_as_absent() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("record");
        std::fs::write(&file, b"{}").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(read_private(&file), None);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(read_private(&file).as_deref(), Some(&b"{}"[..]));
    }
}
