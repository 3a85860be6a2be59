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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_parsing_takes_the_first_full_triple() {
        assert_eq!(
            parse_version("Zed 0.210.4 abc"),
            Some(semver::Version::new(0, 210, 4))
        );
        assert_eq!(
            parse_version("v1.2 then 3.4.5"),
            Some(semver::Version::new(3, 4, 5))
        );
        assert_eq!(
            parse_version("1.7.3\ncommit 1.2.3"),
            Some(semver::Version::new(1, 7, 3))
        );
        assert_eq!(
            parse_version("aider 0.86.1-dev"),
            Some(semver::Version::new(0, 86, 1))
        );
        assert_eq!(parse_version("no version"), None);
        assert_eq!(parse_version("1.2."), None);
        assert_eq!(parse_version("99999999999999999999999.1.1"), None);
    }

    #[test]
    fn compatibility_needs_both_a_version_and_a_readable_range() {
        let v = semver::Version::new(1, 0, 0);
        assert_eq!(
            compatibility(">=1.0.0", Some(&v)),
            Compatibility::Compatible
        );
        assert_eq!(
            compatibility(">=2.0.0", Some(&v)),
            Compatibility::Incompatible
        );
        assert_eq!(compatibility(">=1.0.0", None), Compatibility::Unknown);
        assert_eq!(
            compatibility("not a range", Some(&v)),
            Compatibility::Unknown
        );
    }

    /// What real releases print for `--version` (stdout and stderr as the probe reads them,
    /// one pipe), run with `HOME` a fresh temporary directory: the tool, the text, and the
    /// version it must parse to.
    const REAL_VERSION_OUTPUTS: &[(&str, &str, (u64, u64, u64))] = &[
        ("claude-code", "2.1.332 (Claude Code)\n", (2, 1, 332)),
        (
            "codex",
            "WARNING: proceeding, even though we could not create PATH aliases: Refusing to \
             create helper binaries under temporary dir \"/tmp\" (codex_home: \
             AbsolutePathBuf(\"/tmp/tmp.JY33PBzgoM/.codex\"))\ncodex-cli 0.171.0\n",
            (0, 171, 0),
        ),
        ("gemini-cli", "0.61.0\n", (0, 61, 0)),
        ("qwen-code", "0.24.4\n", (0, 24, 4)),
        ("continue", "1.5.47\n", (1, 5, 47)),
        ("factory-droid", "0.225.2\n", (0, 225, 2)),
        ("opencode", "1.18.33\n", (1, 18, 33)),
        ("pi", "0.73.1\n", (0, 73, 1)),
        // Amp's patch number is its release time in Unix seconds (the same instant as the
        // release date it prints after it): later releases compare higher.
        (
            "amp",
            "0.0.1790142911-g7618fb (released 2026-09-23T05:55:11.000Z, 2mo ago)\n",
            (0, 0, 1790142911),
        ),
        ("aider", "aider 0.86.2\n", (0, 86, 2)),
        // Cline's CLI (`cline` is its VS Code extension), and a tool without a descriptor (Kimi
        // CLI).
        ("auggie", "0.36.0 (commit 7c61e5bb)\n", (0, 36, 0)),
        ("cline-cli", "3.0.65\n", (3, 0, 65)),
        (
            "github-copilot-cli",
            "GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n",
            (1, 0, 102),
        ),
        ("grok-cli", "1.0.1\n", (1, 0, 1)),
        ("kilo-code-cli", "7.7.7\n", (7, 7, 7)),
        (
            "kimi-cli",
            "kimi, version 1.52.0\nkimi-cli is no longer maintained. Please use the new Kimi \
             Code CLI. Install: curl -fsSL https://code.kimi.com/kimi-code/install.sh | bash\n",
            (1, 52, 0),
        ),
        ("mistral-vibe", "vibe 3.0.3\n", (3, 0, 3)),
    ];

    #[test]
    fn real_version_outputs_parse_to_their_release_versions_in_the_supported_range() {
        for &(tool, output, (major, minor, patch)) in REAL_VERSION_OUTPUTS {
            let version = parse_version(output);
            assert_eq!(
                version,
                Some(semver::Version::new(major, minor, patch)),
                "{tool}: {output:?}"
            );
            if let Some(descriptor) = crate::adapters::find(tool) {
                assert_eq!(
                    compatibility(descriptor.detection.supported, version.as_ref()),
                    Compatibility::Compatible,
                    "{tool} {version:?} against {}",
                    descriptor.detection.supported
                );
            }
        }
    }
}
