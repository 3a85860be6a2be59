//! Install directories shared by several tools: where the package and version managers
//! they are installed with put executables, each with the public page that names it, and
//! the version managers' shim directories.
//!
//! Owns these shared groups and [`SHIM_DIRS`] only, as `static` data; a tool's own
//! installer directories sit in its descriptor beside them. Must never hold behaviour or
//! be built at run time.
//!
//! Why this exists: a runtime started by a service manager gets a minimal `PATH`
//! (systemd: `/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin`; launchd:
//! `/usr/bin:/bin:/usr/sbin:/sbin`), so a tool installed by npm into `~/.npm-global/bin`,
//! by nvm into `~/.nvm/versions/node/v22.11.0/bin` or by Homebrew into `/opt/homebrew/bin`
//! is not on it. Detection searches these directories after `PATH`, resolving `~` against
//! the runtime's `HOME` (see [`super::locate`]).
//!
//! Shims: asdf's shims (`#!/usr/bin/env bash` scripts running `exec asdf exec <bin>`),
//! mise's (symlinks to the `mise` binary) and pyenv's (scripts running `pyenv exec`) need
//! the manager on `PATH` and its shell environment to pick a version; the files they stand
//! for do not. So the manager's real install directories (`~/.asdf/installs/nodejs/*/bin`,
//! `~/.local/share/mise/installs/node/*/bin`, …) are listed in the groups below, and a shim
//! directory met on `PATH` is searched only after them (see [`ShimDir`]). Volta's shims in
//! `~/.volta/bin` are different: `volta-shim` finds its data under `$VOLTA_HOME`, which
//! defaults to `$HOME/.volta`, and runs the package with its pinned node first on `PATH`,
//! so they run as they are with only `HOME` set.
//!
//! What cannot be known without the user's shell environment, and is therefore not
//! searched: a data directory moved by a variable (`XDG_DATA_HOME`, `FNM_DIR`,
//! `ASDF_DATA_DIR`, `MISE_DATA_DIR`, `PIPX_HOME`, `UV_TOOL_DIR`, `VOLTA_HOME`,
//! `PNPM_HOME`), fnm's per-shell `fnm_multishells` links, and an npm prefix set in
//! `~/.npmrc` other than the ones below. Only the defaults each manager documents are.

use super::descriptor::InstallDir;

const NPM_EACCES_DOC: &str =
    "https://docs.npmjs.com/resolving-eacces-permissions-errors-when-installing-packages-globally";
const NPM_FOLDERS_DOC: &str = "https://docs.npmjs.com/cli/v11/configuring-npm/folders";
const NPM_USER_PREFIX_DOC: &str =
    "https://wiki.archlinux.org/title/Node.js#Allow_user-wide_installations";
const NVM_DOC: &str = "https://github.com/nvm-sh/nvm#installing-and-updating";
const FNM_DOC: &str = "https://github.com/Schniz/fnm#parameters";
const VOLTA_DOC: &str = "https://docs.volta.sh/guide/getting-started";
const ASDF_DOC: &str = "https://asdf-vm.com/manage/configuration.html#asdf-data-dir";
const MISE_DOC: &str = "https://mise.jdx.dev/directories.html";
const BUN_DOC: &str = "https://bun.sh/docs/cli/add#global";
const PNPM_DOC: &str = "https://pnpm.io/npmrc#global-bin-dir";
const BREW_DOC: &str = "https://docs.brew.sh/Installation";
const PIPX_DOC: &str = "https://pipx.pypa.io/latest/how-to/configure-paths/";
const UV_TOOLS_DOC: &str = "https://docs.astral.sh/uv/concepts/tools/#tools-directory";
const UV_BIN_DOC: &str = "https://docs.astral.sh/uv/concepts/tools/#tool-executables";
const PYENV_DOC: &str = "https://github.com/pyenv/pyenv#understanding-shims";

/// Where `npm install -g` (and the Node version managers people use with it) put a
/// package's executables: the prefix npm's own docs recommend for a user, `~/.local` as a
/// prefix, nvm's and fnm's per-version prefixes (newest first; node sits beside the
/// package's executables there), Volta's shims, asdf's and mise's per-version node
/// installs (the files their shims stand for), Bun, pnpm, and the default prefix.
pub static NPM_GLOBAL: &[InstallDir] = &[
    InstallDir::home(".npm-global/bin", NPM_EACCES_DOC),
    InstallDir::home(".local/bin", NPM_USER_PREFIX_DOC),
    InstallDir::home(".nvm/versions/node/*/bin", NVM_DOC),
    InstallDir::home(".local/share/fnm/node-versions/*/installation/bin", FNM_DOC),
    InstallDir::home(".fnm/node-versions/*/installation/bin", FNM_DOC),
    InstallDir::home(
        "Library/Application Support/fnm/node-versions/*/installation/bin",
        FNM_DOC,
    ),
    InstallDir::home(".volta/bin", VOLTA_DOC),
    InstallDir::home(".asdf/installs/nodejs/*/bin", ASDF_DOC),
    InstallDir::home(".local/share/mise/installs/node/*/bin", MISE_DOC),
    InstallDir::home(".bun/bin", BUN_DOC),
    InstallDir::home(".local/share/pnpm", PNPM_DOC),
    InstallDir::home("Library/pnpm", PNPM_DOC),
    InstallDir::absolute("/usr/local/bin", NPM_FOLDERS_DOC),
];

/// Where Python command-line tools are installed: the directory pipx and `uv tool` link
/// their commands into, their per-package virtual environments (pipx's current, older and
/// macOS homes; uv's tools directory), and the per-version Python installs of asdf, mise
/// and pyenv (the files their shims stand for).
pub static PYTHON_TOOLS: &[InstallDir] = &[
    InstallDir::home(".local/bin", UV_BIN_DOC),
    InstallDir::home(".local/share/pipx/venvs/*/bin", PIPX_DOC),
    InstallDir::home(".local/pipx/venvs/*/bin", PIPX_DOC),
    InstallDir::home("Library/Application Support/pipx/venvs/*/bin", PIPX_DOC),
    InstallDir::home(".local/share/uv/tools/*/bin", UV_TOOLS_DOC),
    InstallDir::home(".asdf/installs/python/*/bin", ASDF_DOC),
    InstallDir::home(".local/share/mise/installs/python/*/bin", MISE_DOC),
    InstallDir::home(".pyenv/versions/*/bin", PYENV_DOC),
];

/// Homebrew's executables: Apple silicon, Intel macOS, Linux.
pub static HOMEBREW: &[InstallDir] = &[
    InstallDir::absolute("/opt/homebrew/bin", BREW_DOC),
    InstallDir::absolute("/usr/local/bin", BREW_DOC),
    InstallDir::absolute("/home/linuxbrew/.linuxbrew/bin", BREW_DOC),
];

/// A version manager's shim directory, and where the files its shims stand for live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShimDir {
    /// The shim directory.
    pub shims: InstallDir,
    /// The `HOME`-relative prefix of the manager's real install directories: a tool's
    /// install directories under it are searched before the shim directory.
    pub installs: &'static str,
}

/// The shim directories that need their manager to run: asdf's, mise's and pyenv's.
pub static SHIM_DIRS: &[ShimDir] = &[
    ShimDir {
        shims: InstallDir::home(".asdf/shims", ASDF_DOC),
        installs: ".asdf/installs/",
    },
    ShimDir {
        shims: InstallDir::home(".local/share/mise/shims", MISE_DOC),
        installs: ".local/share/mise/installs/",
    },
    ShimDir {
        shims: InstallDir::home(".pyenv/shims", PYENV_DOC),
        installs: ".pyenv/versions/",
    },
];
