//! The multiplicity scan (spec §8): which `devint*.sock` sockets in the answering socket's
//! directory answer (their paths, so a refusal can name the other runtime's socket).
//!
//! One-directional evidence: a count above one proves ambiguity (each counted socket
//! accepted a connection, so each runtime exists); a count of one proves only that no
//! duplicate was observed — a runtime bound under another name, in another directory, or a
//! moment later is not seen.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::transport::probe_socket;

/// Entries examined at most, whatever the deadline, so a huge directory cannot stall a
/// session's opening.
const MAX_ENTRIES: usize = 4096;

/// Whether a file name is one the scan probes: `devint*.sock`.
pub fn is_runtime_socket_name(name: &str) -> bool {
    name.starts_with("devint") && name.ends_with(".sock") && name.len() >= "devint.sock".len()
}

// spec[S8-STANDING] §8: more than one `devint*.sock` in the answering socket's directory
// that accepts a connection means more than one runtime is reachable.
/// The sockets named `devint*.sock` directly in `socket_dir` that accept a connection, in
/// directory order. Each probe is one non-blocking `connect()` and a close — never a byte sent,
/// never a `Hello`. The scan stops when `timeout` has elapsed (between probes) or after a
/// bounded number of entries; an unreadable directory yields none.
pub fn scan_runtimes(socket_dir: &Path, timeout: Duration) -> Vec<PathBuf> {
    let deadline = Instant::now() + timeout;
    let Ok(entries) = std::fs::read_dir(socket_dir) else {
        return Vec::new();
    };
    let mut reachable = Vec::new();
    for entry in entries.take(MAX_ENTRIES) {
        if Instant::now() >= deadline {
            break;
        }
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_runtime_socket_name) {
            continue;
        }
        // Not following symlinks: a link to a counted socket would count one runtime twice.
        if !entry.file_type().is_ok_and(|t| t.is_socket()) {
            continue;
        }
        let path = entry.path();
        if probe_socket(&path).is_live() {
            reachable.push(path);
        }
    }
    reachable
}
