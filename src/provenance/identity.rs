//! [`BuildIdentity`]: a build's core version, commit and how the commit was recorded.

use crate::wire::pb;

/// How `build.rs` obtained the build's commit (spec §8, `RuntimeProvenance.build_id_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BuildIdSource {
    /// `AA_BUILD_SHA` at build time (validated as ≥ 40 hex digits).
    Injected,
    /// `git rev-parse HEAD` of the crate's own checkout.
    Checkout,
    /// `.cargo_vcs_info.json` of a packaged crate that was not dirty.
    Packaged,
    /// No recorded mechanism: the identity is not authoritative.
    Absent,
}

impl BuildIdSource {
    /// The wire token (spec §4).
    pub const fn token(self) -> &'static str {
        match self {
            BuildIdSource::Injected => "injected",
            BuildIdSource::Checkout => "checkout",
            BuildIdSource::Packaged => "packaged",
            BuildIdSource::Absent => "absent",
        }
    }

    // spec[S4-EMPTY-DEFAULTS] §4: an empty `build_id_source` reads as `absent`.
    /// Read a wire token. spec §4: empty reads as `absent`; **we** also read any token
    /// outside the vocabulary as `absent`, since it names no recorded mechanism and so can
    /// never make an identity authoritative.
    pub fn from_token(token: &str) -> BuildIdSource {
        match token {
            "injected" => BuildIdSource::Injected,
            "checkout" => BuildIdSource::Checkout,
            "packaged" => BuildIdSource::Packaged,
            _ => BuildIdSource::Absent,
        }
    }
}

/// What a build says it is: its core (package) version, its commit and how the commit was
/// recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildIdentity {
    /// The crate version (`CARGO_PKG_VERSION`); may falsify, never verify.
    pub core_version: String,
    /// The commit (lowercase hex) or `unknown`.
    pub sha: String,
    /// How the commit was recorded.
    pub source: BuildIdSource,
}

impl BuildIdentity {
    /// The identity compiled into this binary by `build.rs`.
    pub fn compiled() -> BuildIdentity {
        BuildIdentity {
            core_version: env!("CARGO_PKG_VERSION").to_string(),
            sha: env!("DEVINT_BUILD_SHA").to_string(),
            source: BuildIdSource::from_token(env!("DEVINT_BUILD_ID_SOURCE")),
        }
    }

    /// The source checkout path compiled in by `build.rs` (empty when the build set
    /// `AA_BUILD_SOURCE_PATH` empty): what a runtime reports as `source_path`.
    pub fn compiled_source_path() -> &'static str {
        env!("DEVINT_BUILD_SOURCE_PATH")
    }

    /// The identity a peer claims in its `RuntimeProvenance`.
    pub fn from_wire(p: &pb::RuntimeProvenance) -> BuildIdentity {
        BuildIdentity {
            core_version: p.core_version.clone(),
            sha: p.build_sha.clone(),
            source: BuildIdSource::from_token(&p.build_id_source),
        }
    }

    /// Whether a commit is stated at all (not empty and not `unknown`).
    pub fn has_sha(&self) -> bool {
        !self.sha.is_empty() && !self.sha.eq_ignore_ascii_case("unknown")
    }

    // spec[S8-COMPARE] §8: not authoritative = source `absent`, or sha empty / `unknown`.
    /// spec §8: an identity is authoritative only when a recorded mechanism produced it
    /// (source not `absent`) and it states a commit (sha neither empty nor `unknown`).
    pub fn is_authoritative(&self) -> bool {
        self.source != BuildIdSource::Absent && self.has_sha()
    }
}
