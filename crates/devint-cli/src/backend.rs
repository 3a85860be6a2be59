//! The one place that builds the lifecycle backend `devint serve` (and `devint demo`)
//! serves: the reference runtime, [`devint_runtime::reference::ReferenceRuntime`], and the
//! record of how it was configured that `devint profile` reads on the trusted side.
//! This module must never read the process environment: every path comes in through
//! [`BackendSite`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use devint::backend::Lifecycle;
use devint_runtime::reference::{PolicyUrl, ReferenceRuntime, RuntimeConfig};
use serde_json::{json, Value};

/// The record of a serving runtime's configuration, in its backend state directory.
const SERVING_RECORD: &str = "serving.json";

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
    /// The gateway base URL the built-in policy profiles route model traffic to (checked).
    pub gateway_base_url: Option<PolicyUrl>,
    /// How long a plan stays appliable.
    pub plan_ttl: std::time::Duration,
}

/// Build the backend for `site`; runs crash recovery of any interrupted journal first, then
/// records the configuration (`serving.json`, `0600`) for `devint profile`.
pub fn open_backend(site: &BackendSite) -> Result<Arc<dyn Lifecycle>, String> {
    let mut config = RuntimeConfig::new(
        site.state_dir.clone(),
        site.home.clone(),
        site.path_env.clone(),
    );
    config.project_dir = site.project_dir.clone();
    config.gateway_base_url = site.gateway_base_url.clone();
    config.plan_ttl = site.plan_ttl;
    let runtime = ReferenceRuntime::open(config).map_err(|e| e.to_string())?;
    let record = json!({ "gateway_base_url": site.gateway_base_url });
    devint_fs::private::write_private_atomically(
        &site.state_dir.join(SERVING_RECORD),
        record.to_string().as_bytes(),
    )
    .map_err(|e| format!("cannot record the runtime's configuration: {e}"))?;
    Ok(Arc::new(runtime) as Arc<dyn Lifecycle>)
}

/// What the last runtime served from the backend state directory `state_dir` was
/// configured with: `None` when no runtime recorded anything there; otherwise its gateway
/// URL, if it had one.
pub fn served_gateway(state_dir: &Path) -> Option<Option<String>> {
    let path = state_dir.join(SERVING_RECORD);
    let bytes = crate::files::read_private(&path)?;
    let record: Value = serde_json::from_slice(&bytes).ok()?;
    Some(record["gateway_base_url"].as_str().map(str::to_owned))
}
