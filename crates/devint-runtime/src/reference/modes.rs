//! The modes a tool's settings file, and the directories devint creates for it, are written
//! with: decided here per target, from its scope and the tool's descriptor, and passed to
//! every durable write of a settings file.
//!
//! - **Managed scope**: the tool reads the file as whichever user runs it, so the file is
//!   `0644` and each directory devint creates `0755`, exactly (whatever root's umask), and an
//!   existing file is reset to `0644` and the writer's (root's) ownership: a managed policy
//!   another user could rewrite, or no user could read, is no policy.
//! - **User and project scope**: an existing file keeps its mode and owner (the user chose
//!   them); a new one gets the mode the tool itself creates it with
//!   ([`SettingsFile::new_file_mode`], less the umask), and each new directory `0777` less the
//!   umask (how `mkdir -p`, Node's `fs.mkdir` and Rust's `create_dir_all` create them).
//!
//! It must never change the mode of a directory devint did not create (an unreadable one is
//! reported at plan time instead, see [`unreachable_dir`]), and never pick a mode for a
//! settings file anywhere else.
//!
//! [`SettingsFile::new_file_mode`]: crate::adapters::SettingsFile::new_file_mode

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::adapters::{self, COMMON_NEW_FILE_MODE, MANAGED_FILE_MODE};
use devint::verbs::SettingsScope;
use devint_fs::mode::{Existing, Mode, Modes};

/// The mode of a directory devint creates for a managed settings file.
pub const MANAGED_DIR_MODE: u32 = 0o755;

/// What `mkdir -p` asks for before the umask.
const COMMON_NEW_DIR_MODE: u32 = 0o777;

/// The modes `tool`'s settings file at `scope` is written with.
pub fn settings_modes(tool: &str, scope: SettingsScope) -> Modes {
    match scope {
        SettingsScope::Managed => Modes {
            file: Mode::Exactly(MANAGED_FILE_MODE),
            existing: Existing::Reset,
            dirs: Mode::Exactly(MANAGED_DIR_MODE),
        },
        SettingsScope::User | SettingsScope::Project => Modes {
            file: Mode::Umasked(
                adapters::find(tool)
                    .and_then(|d| d.settings_for(scope))
                    .map_or(COMMON_NEW_FILE_MODE, |s| s.new_file_mode),
            ),
            existing: Existing::Kept,
            dirs: Mode::Umasked(COMMON_NEW_DIR_MODE),
        },
    }
}

/// The first existing directory between `root` (exclusive, unless it is `/`) and `file`
/// that other users cannot search (no `o+x`): a tool running as another user could not
/// reach a managed file below it. devint never changes a directory it did not create, so a
/// plan reports it instead.
pub fn unreachable_dir(file: &Path, root: &Path) -> Option<PathBuf> {
    let mut dirs: Vec<&Path> = file
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(root) && (*d != root || root == Path::new("/")))
        .collect();
    dirs.reverse();
    dirs.into_iter()
        .find(|d| std::fs::metadata(d).is_ok_and(|m| m.is_dir() && m.mode() & 0o001 == 0))
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn managed_files_are_exact_and_reset_user_files_keep_theirs() {
        let managed = settings_modes("claude-code", SettingsScope::Managed);
        assert_eq!(managed.file, Mode::Exactly(0o644));
        assert_eq!(managed.dirs, Mode::Exactly(0o755));
        assert_eq!(managed.existing, Existing::Reset);
        let user = settings_modes("claude-code", SettingsScope::User);
        assert_eq!(user.file, Mode::Umasked(0o666));
        assert_eq!(user.existing, Existing::Kept);
        assert_eq!(
            settings_modes("codex", SettingsScope::User).file,
            Mode::Umasked(0o600),
            "Codex creates config.toml 0600"
        );
    }

    #[test]
    fn a_directory_others_cannot_search_is_named() {
        let root = tempfile::tempdir().unwrap();
        let etc = root.path().join("etc");
        let tool = etc.join("claude-code");
        std::fs::create_dir_all(&tool).unwrap();
        std::fs::set_permissions(&etc, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o700)).unwrap();
        let file = tool.join("managed-settings.json");
        assert_eq!(unreachable_dir(&file, root.path()), Some(tool.clone()));
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            unreachable_dir(&file, root.path()),
            None,
            "the sandbox root itself (a 0700 temporary directory) is not the host's"
        );
    }
}
