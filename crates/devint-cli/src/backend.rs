//! The one place that builds the lifecycle backend `devint serve` (and `devint demo`)
//! serves: the reference runtime, [`devint_runtime::reference::ReferenceRuntime`].
//! This module must never read the process environment: every path comes in through
//! [`BackendSite`].

use std::path::PathBuf;
use std::sync::Arc;

use devint::backend::Lifecycle;
use devint_runtime::reference::{ReferenceRuntime, RuntimeConfig};

/// Where a backend lives and what host it looks at.
#[derive(Debug, Clone)]
pub struct BackendSite {
    /// The runtime's state directory (receipts, journal, profiles).
    pub state_dir: PathBuf,
    /// The HOME whose tools are detected and integrated.
    pub home: PathBuf,
    /// The `PATH` tools are detected on.
    pub path_env: String,
    /// The project directory for `--scope project`, if any (never inferred).
    pub project_dir: Option<PathBuf>,
    /// The gateway base URL the built-in policy profiles route model traffic to.
    pub gateway_base_url: Option<String>,
}

/// Build the backend for `site`; runs crash recovery of any interrupted journal first.
pub fn open_backend(site: &BackendSite) -> Result<Arc<dyn Lifecycle>, String> {
    let mut config = RuntimeConfig::new(
        site.state_dir.clone(),
        site.home.clone(),
        site.path_env.clone(),
    );
    config.project_dir = site.project_dir.clone();
    config.gateway_base_url = site.gateway_base_url.clone();
    ReferenceRuntime::open(config)
        .map(|r| Arc::new(r) as Arc<dyn Lifecycle>)
        .map_err(|e| e.to_string())
}
