//! Where a tool's binary is looked for, the lookup itself, and the folders its version
//! command needs first on `PATH`.
//!
//! Owns the search order — the runtime's `PATH`, then the descriptor's documented install
//! directories (`~` resolved against the runtime's `HOME`, absolute ones under the
//! detector's root, a `*` segment expanded to every entry, highest version first), each
//! directory once — and finding the first executable of a tool's names in it. A known shim
//! directory ([`super::install::SHIM_DIRS`]: asdf, mise, pyenv), met on `PATH` or among the
//! install directories, is searched only after the tool's install directories under that
//! manager's installs (a shim needs the manager and its shell environment to run; the real
//! file it stands for does not). Also owns [`own_dirs`]: the folder a binary was found in,
//! the folders of the links it resolves through and of the file it finally resolves to, and
//! for an npm package the prefix folder where node sits — where a `#!/usr/bin/env node`
//! script finds its interpreter. Must never read the process environment, run anything, or
//! write anything: it only `stat`s, lists directories and reads symlinks.

use std::fs::Metadata;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::descriptor::{Detection, InstallDir, PathBase};
use super::detected::parse_version;
use super::install::{ShimDir, SHIM_DIRS};

/// A found binary: where, and the `stat` of the file it resolves to.
#[derive(Debug, Clone)]
pub struct FoundBinary {
    /// The path it was found at (before symlinks are followed).
    pub path: PathBuf,
    /// The identity of the file it resolves to.
    pub identity: FileIdentity,
}

/// What identifies one version of a file: device, inode, size and modification time of the
/// file a path resolves to. A replaced binary (a package upgrade, a repointed symlink, a
/// rewrite in place) changes at least one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileIdentity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
}

impl FileIdentity {
    /// The identity of the file `metadata` describes.
    pub fn of(metadata: &Metadata) -> FileIdentity {
        FileIdentity {
            dev: metadata.dev(),
            ino: metadata.ino(),
            size: metadata.size(),
            mtime: (metadata.mtime(), metadata.mtime_nsec()),
        }
    }

    /// Whether the file was last modified at least two seconds ago. A directory changed
    /// again within the file system's timestamp granularity can keep its mtime, so an
    /// identity that recent does not prove "unchanged since" (git's "racily clean").
    pub fn is_settled(&self) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        now.saturating_sub(self.mtime.0) >= 2
    }

    /// The identity of what `path` resolves to now, if it exists.
    pub fn at(path: &Path) -> Option<FileIdentity> {
        std::fs::metadata(path).ok().map(|m| FileIdentity::of(&m))
    }
}

/// The directories searched for a tool's binaries, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchDirs {
    /// Every directory, each once, in search order: `PATH`'s entries (a shim directory
    /// after the real install directories it stands for), then the install directories.
    pub dirs: Vec<PathBuf>,
    /// `PATH`'s entries, as given.
    pub path: Vec<PathBuf>,
    /// The install directories not on `PATH`, expanded, each once.
    pub installed: Vec<PathBuf>,
}

impl SearchDirs {
    /// The directories searched for `detection`'s binaries: `path_env`'s entries, then the
    /// install directories (`~` against `home`, absolute ones under `root`), a known shim
    /// directory after the tool's install directories under its manager's installs; none
    /// for a tool without binaries.
    pub fn new(detection: &Detection, path_env: &str, home: &Path, root: &Path) -> SearchDirs {
        let mut found = SearchDirs {
            dirs: Vec::new(),
            path: Vec::new(),
            installed: Vec::new(),
        };
        if detection.binaries.is_empty() {
            return found;
        }
        for dir in path_env.split(':').filter(|d| !d.is_empty()) {
            found.path.push(PathBuf::from(dir));
        }
        for group in detection.install_dirs {
            for dir in *group {
                for expanded in expand(dir, home, root) {
                    if !found.path.contains(&expanded) {
                        push_new(&mut found.installed, expanded);
                    }
                }
            }
        }
        let shims: Vec<(PathBuf, &ShimDir)> = SHIM_DIRS
            .iter()
            .flat_map(|shim| {
                expand(&shim.shims, home, root)
                    .into_iter()
                    .map(move |d| (d, shim))
            })
            .collect();
        let order = found.path.iter().chain(&found.installed);
        for dir in order {
            if let Some((_, shim)) = shims.iter().find(|(path, _)| path == dir) {
                let real = detection
                    .install_dirs
                    .iter()
                    .flat_map(|group| group.iter())
                    .filter(|d| d.base == shim.shims.base && d.path.starts_with(shim.installs));
                for expanded in real.flat_map(|d| expand(d, home, root)) {
                    push_new(&mut found.dirs, expanded);
                }
            }
            push_new(&mut found.dirs, dir.clone());
        }
        found
    }

    /// The first executable named one of `names` here (names in order, then directories).
    pub fn find(&self, names: &[&str]) -> Option<FoundBinary> {
        find_binary(names, &self.dirs)
    }
}

fn push_new(dirs: &mut Vec<PathBuf>, dir: PathBuf) {
    if !dirs.contains(&dir) {
        dirs.push(dir);
    }
}

/// What `dir` is relative to: `home`, or `root` for an absolute one.
fn base_of(dir: &InstallDir, home: &Path, root: &Path) -> PathBuf {
    match dir.base {
        PathBase::Home => home.to_path_buf(),
        _ => root.to_path_buf(),
    }
}

/// The install directory as a path, its `*` segment expanded (highest version first; an
/// unreadable parent expands to nothing).
fn expand(dir: &InstallDir, home: &Path, root: &Path) -> Vec<PathBuf> {
    let base = base_of(dir, home, root);
    let relative = dir.path.trim_start_matches('/');
    let Some((before, after)) = relative.split_once("/*") else {
        return vec![base.join(relative)];
    };
    let parent = base.join(before);
    let after = after.trim_start_matches('/');
    let Ok(entries) = std::fs::read_dir(&parent) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort_by(|a, b| {
        parse_version(b)
            .cmp(&parse_version(a))
            .then_with(|| b.cmp(a))
    });
    names
        .into_iter()
        .map(|name| parent.join(name).join(after))
        .collect()
}

/// The first executable named one of `names` in `dirs` (names in order, then directories).
pub fn find_binary(names: &[&str], dirs: &[PathBuf]) -> Option<FoundBinary> {
    names.iter().find_map(|name| {
        dirs.iter().find_map(|dir| {
            let path = dir.join(name);
            let metadata = std::fs::metadata(&path).ok()?;
            is_executable(&metadata).then(|| FoundBinary {
                identity: FileIdentity::of(&metadata),
                path,
            })
        })
    })
}

/// How many symlinks [`own_dirs`] follows (the kernel's own limit for one path).
const MAX_LINKS: usize = 40;

/// The folders a found binary's version command should find first on `PATH`, in order:
/// the folder `path` was found in; when `path` is a symlink, the folder of each link it
/// resolves through and of the file it finally resolves to; and when that file is in an
/// npm package, the folder where that install's node sits — `<prefix>/bin` for
/// `<prefix>/lib/node_modules/<package>/…` (npm's global layout, used by nvm, fnm, asdf,
/// mise and a user prefix such as `~/.npm-global`), `<dir>/node_modules/.bin` for
/// `<dir>/node_modules/<package>/…` (a local install, where the `node` package puts its
/// node). Each folder once; a link that cannot be read ends the walk.
pub fn own_dirs(path: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(parent) = path.parent() {
        push_new(&mut dirs, parent.to_path_buf());
    }
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let Ok(target) = std::fs::read_link(&current) else {
            break;
        };
        current = match current.parent() {
            Some(parent) => parent.join(target),
            None => target,
        };
        if let Some(parent) = current.parent() {
            push_new(&mut dirs, canonical(parent));
        }
    }
    if let Ok(real) = std::fs::canonicalize(path) {
        if let Some(parent) = real.parent() {
            push_new(&mut dirs, parent.to_path_buf());
        }
        if let Some(bin) = node_bin_of(&real) {
            push_new(&mut dirs, bin);
        }
    }
    dirs
}

/// `dir` with its symlinks and `..` resolved, or as it is when it cannot be.
fn canonical(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// Where node sits for a file inside an npm package: `<prefix>/bin` for
/// `<prefix>/lib/node_modules/…`, `<dir>/node_modules/.bin` for `<dir>/node_modules/…`
/// (the outermost `node_modules` counts).
fn node_bin_of(file: &Path) -> Option<PathBuf> {
    let components: Vec<_> = file.components().collect();
    let at = components
        .iter()
        .position(|c| c.as_os_str() == "node_modules")?;
    let before: PathBuf = components[..at].iter().collect();
    if components.get(at.checked_sub(1)?)?.as_os_str() == "lib" {
        return before.parent().map(|prefix| prefix.join("bin"));
    }
    Some(before.join("node_modules/.bin"))
}

fn is_executable(metadata: &Metadata) -> bool {
    metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
}

/// `path` as people write it: `~/…` under `home`, otherwise as is.
pub fn display(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
}
