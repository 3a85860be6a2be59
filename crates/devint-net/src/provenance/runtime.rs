//! [`RuntimeProvenance`]: what a runtime says about its own process, captured at start.

use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use devint::provenance::BuildIdentity;
use devint::wire::pb;

/// The runtime's self-description (spec §8, `HelloAck.provenance`), captured once at start.
/// Only `executable_present` is re-evaluated, each time it is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeProvenance {
    build: BuildIdentity,
    pid: u32,
    executable_path: PathBuf,
    /// `(dev, ino)` of the running binary at start; `None` when it could not be read.
    executable_id: Option<(u64, u64)>,
    source_path: String,
    started_at_unix_secs: u64,
}

impl RuntimeProvenance {
    /// Capture this process's provenance now: the compiled build identity, our pid, the
    /// running executable's path and `(dev, ino)`, and the compiled source path (empty when
    /// the build set `AA_BUILD_SOURCE_PATH` empty).
    pub fn capture() -> RuntimeProvenance {
        let executable_path = std::env::current_exe().unwrap_or_default();
        // On Linux /proc/self/exe names the inode actually running, even if the path was
        // replaced before we looked; elsewhere the path is the best we have.
        let executable_id = file_id(Path::new("/proc/self/exe"))
            .or_else(|_| file_id(&executable_path))
            .ok();
        RuntimeProvenance {
            build: BuildIdentity::compiled(),
            pid: std::process::id(),
            executable_path,
            executable_id,
            source_path: BuildIdentity::compiled_source_path().to_string(),
            started_at_unix_secs: unix_secs(SystemTime::now()),
        }
    }

    /// Provenance for an explicit executable path, recording its `(dev, ino)` now (the
    /// compiled build identity and our pid otherwise). For runtimes whose served binary is
    /// not `current_exe`, and for tests that replace the file.
    pub fn for_executable(
        executable_path: PathBuf,
        started_at: SystemTime,
    ) -> io::Result<RuntimeProvenance> {
        let executable_id = Some(file_id(&executable_path)?);
        Ok(RuntimeProvenance {
            build: BuildIdentity::compiled(),
            pid: std::process::id(),
            executable_path,
            executable_id,
            source_path: BuildIdentity::compiled_source_path().to_string(),
            started_at_unix_secs: unix_secs(started_at),
        })
    }

    /// The build identity this runtime reports.
    pub fn build(&self) -> &BuildIdentity {
        &self.build
    }

    /// The runtime's pid.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The executable path recorded at start.
    pub fn executable_path(&self) -> &Path {
        &self.executable_path
    }

    /// The source path compiled in (empty when suppressed).
    pub fn source_path(&self) -> &str {
        &self.source_path
    }

    /// When the runtime started, in seconds since the Unix epoch.
    pub fn started_at_unix_secs(&self) -> u64 {
        self.started_at_unix_secs
    }

    /// Whether the file at `executable_path` is still the binary that was running at start:
    /// false when the path is gone or its `(dev, ino)` differ (e.g. replaced by a rebuild).
    /// Evaluated now, every call.
    pub fn executable_present(&self) -> bool {
        match (self.executable_id, file_id(&self.executable_path)) {
            (Some(at_start), Ok(now)) => at_start == now,
            _ => false,
        }
    }

    // spec[S8-EXEC-PRESENT] §8: `executable_present` is evaluated each time a HelloAck is
    // written.
    /// The wire message, with `executable_present` evaluated at this moment (spec §8: each
    /// time a `HelloAck` is written).
    pub fn to_wire(&self) -> pb::RuntimeProvenance {
        pb::RuntimeProvenance {
            core_version: self.build.core_version.clone(),
            build_sha: self.build.sha.clone(),
            pid: self.pid,
            executable_path: self.executable_path.to_string_lossy().into_owned(),
            executable_present: self.executable_present(),
            source_path: self.source_path.clone(),
            started_at_unix_secs: self.started_at_unix_secs,
            build_id_source: self.build.source.token().to_string(),
        }
    }
}

fn file_id(path: &Path) -> io::Result<(u64, u64)> {
    if path.as_os_str().is_empty() {
        return Err(io::Error::from(io::ErrorKind::NotFound));
    }
    let meta = std::fs::metadata(path)?;
    Ok((meta.dev(), meta.ino()))
}

fn unix_secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
