//! Reading the small private files the command keeps for itself (kept plans, the serving
//! record): never through a symlink, never blocking on a FIFO or device, only a regular
//! file this user owns and nobody else can read, at most [`MAX_BYTES`].
//!
//! This module owns that one read. Anything that is not such a file reads as absent: these
//! files are conveniences, and a stranger's file in their place is ignored, not trusted.

use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use devint_fs::private;

/// The largest such file read: one DI-API frame.
pub const MAX_BYTES: u64 = 1 << 20;

/// The bytes of the private file at `path`, or `None` if it is absent or not such a file.
pub fn read_private(path: &Path) -> Option<Vec<u8>> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if private::check_private(&meta, false).is_err() || meta.size() > MAX_BYTES {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.size() as usize);
    file.take(MAX_BYTES).read_to_end(&mut bytes).ok()?;
    Some(bytes)
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
