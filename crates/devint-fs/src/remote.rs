//! Filesystems where a file can change without this kernel seeing it: network filesystems
//! (another host writes), FUSE (a daemon writes), cluster filesystems. A cache kept true by
//! an `inotify` watch must not be kept for a file on one of these: no event would say it
//! changed.
//!
//! Owns the table of their `statfs(2)` `f_type` magic numbers (from `linux/magic.h` and the
//! filesystems' sources) and the question "is this path on one?"; it never watches, reads
//! or opens anything.

use std::io;
use std::path::Path;

/// `statfs(2)` `f_type` magic numbers of the filesystems a local watch cannot vouch for.
const REMOTE_FILESYSTEMS: &[(u64, &str)] = &[
    (0x6969, "nfs"),
    (0xFF53_4D42, "cifs"),
    (0xFE53_4D42, "smb2"),
    (0x517B, "smb"),
    (0x6573_5546, "fuse"),
    (0x0102_1997, "9p"),
    (0x00C3_6400, "ceph"),
    (0x6B41_4653, "afs"),
    (0x5346_414F, "afs"),
    (0x7375_7245, "coda"),
    (0x7461_636F, "ocfs2"),
    (0x0116_1970, "gfs2"),
    (0x0BD0_0BD0, "lustre"),
];

/// The name of the filesystem type `f_type` when changes on it can come from elsewhere
/// than this kernel; `None` for a local one.
pub fn remote_kind(f_type: u64) -> Option<&'static str> {
    REMOTE_FILESYSTEMS
        .iter()
        .find(|(magic, _)| *magic == f_type)
        .map(|(_, name)| *name)
}

/// The `f_type` of the filesystem `path` (following symlinks) is on.
pub fn filesystem_type(path: &Path) -> io::Result<u64> {
    let fs = rustix::fs::statfs(path)?;
    // `f_type` is a signed word on some targets; the magic numbers are 32-bit patterns.
    #[allow(clippy::unnecessary_cast)]
    Ok(fs.f_type as u64 & 0xFFFF_FFFF)
}

/// The remote filesystem `path` is on, if it is on one (see the module doc).
pub fn remote_filesystem(path: &Path) -> io::Result<Option<&'static str>> {
    filesystem_type(path).map(remote_kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_and_fuse_filesystems_are_remote_and_local_ones_are_not() {
        assert_eq!(remote_kind(0x6969), Some("nfs"));
        assert_eq!(remote_kind(0x6573_5546), Some("fuse"));
        assert_eq!(remote_kind(0xFE53_4D42), Some("smb2"));
        // ext4, tmpfs, btrfs, xfs: local.
        for local in [0xEF53, 0x0102_1994, 0x9123_683E, 0x5846_5342] {
            assert_eq!(remote_kind(local), None, "{local:#x}");
        }
    }

    #[test]
    fn a_temporary_directory_is_on_a_filesystem_with_a_type() {
        let dir = tempfile::tempdir().unwrap();
        assert!(filesystem_type(dir.path()).is_ok());
        assert!(remote_filesystem(&dir.path().join("absent")).is_err());
    }
}
