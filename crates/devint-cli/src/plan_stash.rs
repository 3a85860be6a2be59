//! The plans `devint plan` showed, kept so that `devint apply TOOL --plan ID` can show the
//! plan again and ask each privileged host step's own consent before executing it.
//!
//! A plan on the wire carries no values (spec §3), and apply takes only its id: the client
//! must remember what it showed to ask about it. This module owns that memory: one `0600`
//! file per plan in `cli-plans/` beside the socket (a `0700` directory), named by the
//! SHA-256 of the plan id (ids are opaque and may hold any printable byte), holding the
//! negotiated DI-API version and the plan's wire encoding, decoded again through the core's
//! view validation. Files older than a day are swept when a plan is kept; an executed plan
//! is kept too, so that applying it again reaches the runtime, which says it was consumed. It is never
//! protection state (the runtime decides whether a plan still exists, expired or belongs
//! to another token) and never holds a value.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use devint::verbs::{PlanId, PlanView};
use devint::version::ApiVersion;
use devint::wire::pb;
use devint_fs::private;
use prost::Message;
use sha2::{Digest, Sha256};

/// The directory beside the socket.
const DIR_NAME: &str = "cli-plans";
/// How long a kept plan is worth keeping (runtimes expire plans much sooner).
const KEEP_FOR: Duration = Duration::from_secs(86_400);

/// Where the plans shown for the runtime at `socket` are kept.
fn dir(socket: &Path) -> PathBuf {
    private::parent_dir(socket).join(DIR_NAME)
}

fn file(socket: &Path, id: &PlanId) -> PathBuf {
    dir(socket).join(format!(
        "{}.plan",
        hex::encode(Sha256::digest(id.as_str().as_bytes()))
    ))
}

/// Keep `plan` (negotiated at `version`) for a later `apply --plan`. Best effort: a plan
/// that cannot be kept can still be applied by planning again with `--scope`.
pub fn keep(socket: &Path, version: u32, plan: &PlanView) -> std::io::Result<()> {
    let dir = dir(socket);
    private::create_private_dir(&dir)?;
    sweep(&dir);
    let mut bytes = version.to_le_bytes().to_vec();
    plan.to_wire(ApiVersion::new(version))
        .encode(&mut bytes)
        .map_err(std::io::Error::other)?;
    private::write_private_atomically(&file(socket, &plan.plan_id), &bytes)
}

/// The plan `id` as it was shown, if this user's devint kept it.
pub fn recall(socket: &Path, id: &PlanId) -> Option<PlanView> {
    let bytes = crate::files::read_private(&file(socket, id))?;
    let (version, body) = bytes.split_at_checked(4)?;
    let version = u32::from_le_bytes(version.try_into().ok()?);
    let wire = pb::PlanView::decode(body).ok()?;
    PlanView::from_wire(&wire, ApiVersion::new(version))
        .ok()
        .filter(|p| &p.plan_id == id)
}

/// Remove kept plans older than [`KEEP_FOR`].
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|at| now.duration_since(at).is_ok_and(|age| age > KEEP_FOR));
        let ours = entry.file_name().to_string_lossy().ends_with(".plan");
        if old && ours {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
