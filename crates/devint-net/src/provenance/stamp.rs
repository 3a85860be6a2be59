//! [`FileStamp`]: a file as its metadata shows it, to tell whether it changed between two
//! looks (an executable being replaced, or still being written).

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Which file is at a path, how big it is, when it was last written and changed, and its
/// mode. Two equal stamps a look apart: nobody changed the file in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    file: (u64, u64),
    size: u64,
    modified: (i64, i64),
    changed: (i64, i64),
    mode: u32,
}

impl FileStamp {
    /// The file at `path` now (following symlinks), or `None` when nothing readable is
    /// there.
    pub fn of(path: &Path) -> Option<FileStamp> {
        let m = std::fs::metadata(path).ok()?;
        Some(FileStamp {
            file: (m.dev(), m.ino()),
            size: m.size(),
            modified: (m.mtime(), m.mtime_nsec()),
            changed: (m.ctime(), m.ctime_nsec()),
            mode: m.mode(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_stamp_changes_with_the_content_the_mode_and_the_file_and_not_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "one").unwrap();
        let first = FileStamp::of(&path).unwrap();
        assert_eq!(FileStamp::of(&path), Some(first));
        std::fs::write(&path, "one more").unwrap();
        let written = FileStamp::of(&path).unwrap();
        assert_ne!(written, first);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert_ne!(FileStamp::of(&path).unwrap(), written);
        let other = dir.path().join("g");
        std::fs::write(&other, "one more").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_ne!(FileStamp::of(&path).unwrap(), written);
        assert_eq!(FileStamp::of(&dir.path().join("missing")), None);
    }
}
