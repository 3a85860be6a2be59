//! Install directories shared by several tools: where the package managers they are
//! installed with put executables, each with the public page that says so.
//!
//! Owns these shared groups only, as `static` data; a tool's own installer directories sit
//! in its descriptor beside them. Must never hold behaviour or be built at run time.
//!
//! Why this exists: a runtime started by a service manager gets a minimal `PATH`
//! (systemd: `/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin`; launchd:
//! `/usr/bin:/bin:/usr/sbin:/sbin`), so a tool installed by npm into `~/.npm-global/bin` or
//! by Homebrew into `/opt/homebrew/bin` is not on it. Detection searches these directories
//! after `PATH`, resolving `~` against the runtime's `HOME`.

use super::descriptor::InstallDir;

const NPM_EACCES_DOC: &str =
    "https://docs.npmjs.com/resolving-eacces-permissions-errors-when-installing-packages-globally";
const NPM_FOLDERS_DOC: &str = "https://docs.npmjs.com/cli/v11/configuring-npm/folders";
const NVM_DOC: &str = "https://github.com/nvm-sh/nvm#installing-and-updating";
const VOLTA_DOC: &str = "https://docs.volta.sh/guide/getting-started";
const BUN_DOC: &str = "https://bun.sh/docs/cli/add#global";
const PNPM_DOC: &str = "https://pnpm.io/npmrc#global-bin-dir";
const BREW_DOC: &str = "https://docs.brew.sh/Installation";

/// Where `npm install -g` (and the Node version managers people use with it) put a
/// package's executables: the prefix npm's own docs recommend for a user, the default
/// prefix, nvm's per-version prefixes (newest first), Volta, Bun and pnpm.
pub static NPM_GLOBAL: &[InstallDir] = &[
    InstallDir::home(".npm-global/bin", NPM_EACCES_DOC),
    InstallDir::home(".nvm/versions/node/*/bin", NVM_DOC),
    InstallDir::home(".volta/bin", VOLTA_DOC),
    InstallDir::home(".bun/bin", BUN_DOC),
    InstallDir::home(".local/share/pnpm", PNPM_DOC),
    InstallDir::home("Library/pnpm", PNPM_DOC),
    InstallDir::absolute("/usr/local/bin", NPM_FOLDERS_DOC),
];

/// Homebrew's executables: Apple silicon, Intel macOS, Linux.
pub static HOMEBREW: &[InstallDir] = &[
    InstallDir::absolute("/opt/homebrew/bin", BREW_DOC),
    InstallDir::absolute("/usr/local/bin", BREW_DOC),
    InstallDir::absolute("/home/linuxbrew/.linuxbrew/bin", BREW_DOC),
];
