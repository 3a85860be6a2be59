//! The one place that builds the lifecycle backend `devint serve` (and `devint demo`)
//! serves.
//!
//! Until the reference runtime (`devint::lifecycle::reference::ReferenceRuntime`) is in
//! this tree, [`open_backend`] returns [`DiscoveryOnlyBackend`], which answers `tools` and
//! `status` and refuses everything else. The swap is the body of [`open_backend`] (the
//! replacement is written out in its comment), `HAS_LIFECYCLE_BACKEND = true`, and deleting
//! `discovery_only.rs`. This module must never read the process environment: every path
//! comes in through [`BackendSite`].

use std::path::PathBuf;
use std::sync::Arc;

use crate::discovery_only::DiscoveryOnlyBackend;
use devint::lifecycle::Lifecycle;

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

/// Build the backend for `site`. The one place the binary chooses its backend.
pub fn open_backend(site: &BackendSite) -> Result<Arc<dyn Lifecycle>, String> {
    // With the reference runtime in the tree, this body becomes:
    //
    //     use devint::lifecycle::reference::{ReferenceRuntime, RuntimeConfig};
    //     let mut config = RuntimeConfig::new(
    //         site.state_dir.clone(),
    //         site.home.clone(),
    //         site.path_env.clone(),
    //     );
    //     config.project_dir = site.project_dir.clone();
    //     config.gateway_base_url = site.gateway_base_url.clone();
    //     ReferenceRuntime::open(config)
    //         .map(|r| Arc::new(r) as Arc<dyn Lifecycle>)
    //         .map_err(|e| e.to_string())
    //
    // (tried against the `backend` branch: the demo then runs every step end to end.)
    let _ = (&site.state_dir, &site.project_dir, &site.gateway_base_url);
    Ok(Arc::new(DiscoveryOnlyBackend::new(
        &site.home,
        &site.path_env,
    )))
}

/// Whether the backend [`open_backend`] builds can change a tool's configuration.
pub const HAS_LIFECYCLE_BACKEND: bool = false;
