//! What detection found for one tool, and how a version is read and judged: the finding
//! [`Detected`], [`parse_version`] (the first `MAJOR.MINOR.PATCH` of a version command's
//! output) and [`compatibility`] (that version against a descriptor's supported range).
//!
//! Plain data and pure functions, below both the [`super::detect::Detector`] (which finds
//! and caches) and [`super::capability`] (which resolves a finding against a descriptor).
//! Must never touch the file system, run a command or read the environment.

use std::path::PathBuf;
use std::sync::Arc;

use super::vocabulary::Compatibility;

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
    /// When nothing was found: the tool's configuration directory, if it exists ("the tool
    /// is configured but its binary was not found").
    pub configured: Option<PathBuf>,
    /// When nothing was found: one sentence saying so, and where detection looked.
    pub absence: Option<Arc<str>>,
}

impl Detected {
    /// Nothing found.
    pub const fn absent() -> Self {
        Detected {
            present: false,
            version: None,
            compatibility: Compatibility::Unknown,
            location: None,
            configured: None,
            absence: None,
        }
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
