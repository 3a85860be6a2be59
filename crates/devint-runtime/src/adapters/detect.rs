//! Detection: is a tool installed on this host, which version, and is that version in the
//! adapter's supported range.
//!
//! Owns the only IO in `adapters`: looking binaries up on a `PATH` given as a parameter,
//! running their version command under a timeout (the whole process group is killed when
//! it expires), and listing editor-extension directories under a `HOME` given as a
//! parameter. Must never read the process environment, write anything, or wait unbounded.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::descriptor::{Detection, ToolDescriptor};
use super::vocabulary::Compatibility;

/// How long a version command may run before it is killed and read as `unknown`.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(3);

/// At most this much version output is read.
const MAX_VERSION_OUTPUT: u64 = 64 * 1024;

/// What detection found for one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    /// Whether a binary or extension directory was found.
    pub present: bool,
    /// The version read from it, if one could be parsed.
    pub version: Option<semver::Version>,
    /// The version against the supported range (`unknown` when absent or unreadable).
    pub compatibility: Compatibility,
    /// Where it was found (binary path or extension directory).
    pub location: Option<PathBuf>,
}

impl Detected {
    /// Nothing found.
    pub const fn absent() -> Self {
        Detected {
            present: false,
            version: None,
            compatibility: Compatibility::Unknown,
            location: None,
        }
    }
}

/// Detects `descriptor` using `path_env` (a `PATH`-style string) and `home`, with the
/// default [`VERSION_TIMEOUT`].
pub fn detect(descriptor: &ToolDescriptor, path_env: &str, home: &Path) -> Detected {
    detect_with_timeout(descriptor, path_env, home, VERSION_TIMEOUT)
}

/// Detects `descriptor`, killing a version command that runs longer than `timeout`.
pub fn detect_with_timeout(
    descriptor: &ToolDescriptor,
    path_env: &str,
    home: &Path,
    timeout: Duration,
) -> Detected {
    let detection = &descriptor.detection;
    if let Some(binary) = find_binary(detection.binaries, path_env) {
        let version = run_version(&binary, detection.version_args, path_env, home, timeout)
            .and_then(|out| parse_version(&out));
        return finish(detection, version, binary);
    }
    if let Some((dir, version)) = find_extension(detection, home) {
        return finish(detection, version, dir);
    }
    Detected::absent()
}

fn finish(detection: &Detection, version: Option<semver::Version>, location: PathBuf) -> Detected {
    let compatibility = compatibility(detection.supported, version.as_ref());
    Detected {
        present: true,
        version,
        compatibility,
        location: Some(location),
    }
}

/// `compatible` when `version` is in `supported`, `incompatible` when outside it, `unknown`
/// when there is no version or the range does not parse.
pub fn compatibility(supported: &str, version: Option<&semver::Version>) -> Compatibility {
    match (semver::VersionReq::parse(supported), version) {
        (Ok(req), Some(v)) if req.matches(v) => Compatibility::Compatible,
        (Ok(_), Some(_)) => Compatibility::Incompatible,
        _ => Compatibility::Unknown,
    }
}

/// The first executable named one of `names` in the `:`-separated `path_env`.
pub fn find_binary(names: &[&str], path_env: &str) -> Option<PathBuf> {
    names.iter().find_map(|name| {
        path_env
            .split(':')
            .filter(|dir| !dir.is_empty())
            .map(|dir| Path::new(dir).join(name))
            .find(|candidate| is_executable(candidate))
    })
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The first `MAJOR.MINOR.PATCH` triple of digits in `output`, pre-release and build ignored.
pub fn parse_version(output: &str) -> Option<semver::Version> {
    let bytes = output.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        if bytes[start].is_ascii_digit() && (start == 0 || !bytes[start - 1].is_ascii_digit()) {
            if let Some(v) = triple_at(&output[start..]) {
                return Some(v);
            }
        }
        start += 1;
    }
    None
}

fn triple_at(s: &str) -> Option<semver::Version> {
    let mut parts = [0u64; 3];
    let mut rest = s;
    for (i, part) in parts.iter_mut().enumerate() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        *part = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        if i < 2 {
            rest = rest.strip_prefix('.')?;
        }
    }
    Some(semver::Version::new(parts[0], parts[1], parts[2]))
}

/// Runs `binary args` with a cleared environment (only `PATH` and `HOME`), returning its
/// stdout and stderr, or `None` on spawn failure or timeout.
fn run_version(
    binary: &Path,
    args: &[&str],
    path_env: &str,
    home: &Path,
    timeout: Duration,
) -> Option<String> {
    let mut child = Command::new(binary)
        .args(args)
        .env_clear()
        .env("PATH", path_env)
        .env("HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Own process group, so a timeout kills the script and everything it started.
        .process_group(0)
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let stderr = child.stderr.take()?;
    let (tx, rx) = std::sync::mpsc::channel();
    for pipe in [Box::new(stdout) as Box<dyn Read + Send>, Box::new(stderr)] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let _ = tx.send(read_bounded(pipe));
        });
    }
    drop(tx);
    let deadline = Instant::now() + timeout;
    let exited = loop {
        match child.try_wait() {
            Ok(Some(_)) => break true,
            Ok(None) if Instant::now() >= deadline => break false,
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(_) => break false,
        }
    };
    if !exited {
        // Not yet reaped, so the group id is still ours to signal.
        kill_group(child.id());
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    // A descendant that outlives the binary may hold a pipe open: never wait past the deadline.
    let mut text = String::new();
    for _ in 0..2 {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(chunk) => {
                text.push_str(&chunk);
                text.push('\n');
            }
            Err(_) => return None,
        }
    }
    Some(text)
}

fn kill_group(pid: u32) {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

fn read_bounded(pipe: impl Read) -> String {
    let mut buf = Vec::new();
    let _ = pipe.take(MAX_VERSION_OUTPUT).read_to_end(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// The installed extension directory with the highest version, if any.
fn find_extension(
    detection: &Detection,
    home: &Path,
) -> Option<(PathBuf, Option<semver::Version>)> {
    let mut best: Option<(PathBuf, Option<semver::Version>)> = None;
    for ext in detection.extensions {
        let Ok(entries) = std::fs::read_dir(home.join(ext.parent)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(ext.prefix)) else {
                continue;
            };
            if !entry.path().is_dir() {
                continue;
            }
            let version = parse_version(rest);
            let better = match &best {
                None => true,
                Some((_, old)) => version > *old,
            };
            if better {
                best = Some((entry.path(), version));
            }
        }
    }
    best
}
