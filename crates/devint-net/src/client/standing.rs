//! The provenance standing check every client runs before it sends a verb (spec §8): the
//! multiplicity scan of the answering socket's directory, the assessment of the `HelloAck`
//! provenance against this build's identity, the one decision (standing × verb × override →
//! proceed or refuse), and the `runtime` report the `devint` command and the sidecar show.
//!
//! The `devint` command and `devint sidecar` both decide here, so a runtime is refused the
//! same way on every surface. This module must never report a standing better than the
//! evidence, and never let the unverified-runtime override pass a *refuted* runtime: a
//! refutation is a positive finding, not an absence of evidence.

use std::path::Path;
use std::time::Duration;

use devint::provenance::{BuildIdentity, Permit, Standing, StandingRefusal};
use devint::verbs::Verb;
use devint::wire::pb;

use crate::provenance::scan_runtimes;

/// How long the multiplicity scan may take at most.
pub const SCAN_TIMEOUT: Duration = Duration::from_millis(500);

/// Scan the socket's directory and assess the runtime that answered on `socket` with
/// `provenance` (spec §8: the scan runs once, as the session opens).
pub fn assess_standing(socket: &Path, provenance: Option<&pb::RuntimeProvenance>) -> Standing {
    let dir = socket.parent().unwrap_or_else(|| Path::new("/"));
    let reachable = scan_runtimes(dir, SCAN_TIMEOUT);
    Standing::assess(provenance, &BuildIdentity::compiled(), &reachable)
}

/// What the standing allows a command or a call to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Proceed; the runtime is verified.
    Proceed,
    /// Proceed and say that the runtime is unverifiable (a read-only verb).
    ProceedUnverifiable,
    /// Proceed because the unverified-runtime override turned a refusal into a warned
    /// proceed.
    ProceedOverridden,
    /// Refuse (exit 10 or 11, [`StandingRefusal::exit`]).
    Refuse(StandingRefusal),
}

/// [`decide`] for a command that sends `verb` (privileged per spec §8: apply, verify,
/// repair, remove).
pub fn decide_for_verb(standing: &Standing, verb: Verb, allow_unverified: bool) -> Decision {
    decide(standing, verb.is_privileged(), allow_unverified)
}

// spec[S8-STANDING-TABLE] §8: unverifiable refuses privileged commands (11); refuted refuses all (10).
/// The spec §8 table for a command (`privileged` for apply, verify, repair, remove), plus
/// the override rule: `allow_unverified` turns an *unverifiable* refusal (exit 11) into a
/// warned proceed, and nothing else.
pub fn decide(standing: &Standing, privileged: bool, allow_unverified: bool) -> Decision {
    match standing.permits(privileged) {
        Ok(Permit::Proceed) => Decision::Proceed,
        Ok(Permit::ProceedReportingUnverifiable) => Decision::ProceedUnverifiable,
        Err(StandingRefusal::Unverifiable(_)) if allow_unverified => Decision::ProceedOverridden,
        Err(refusal) => Decision::Refuse(refusal),
    }
}

/// Why a standing is what it is, in words (`None` for verified).
pub fn standing_reason(standing: &Standing) -> Option<String> {
    match standing {
        Standing::Verified => None,
        Standing::Unverifiable(why) => Some(why.to_string()),
        Standing::Refuted(why) => Some(why.to_string()),
    }
}

/// The runtime that answered, as every surface reports it: the `runtime` object of the
/// `devint` command's JSON envelope (`devint.cli.v1`) and of the sidecar's `session/open`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RuntimeReport {
    /// The socket it answered on.
    pub socket: String,
    /// The negotiated DI-API version.
    pub di_api_version: u32,
    /// `HelloAck.core_version`.
    pub core_version: String,
    /// Whether the negotiation was `DEGRADED` (some verbs unavailable).
    pub degraded: bool,
    /// `HelloAck.provenance` (`None` below DI-API v4).
    pub provenance: Option<ProvenanceReport>,
    /// `verified`, `unverifiable` or `refuted`.
    pub standing: &'static str,
    /// Why, unless verified.
    pub standing_reason: Option<String>,
    /// Whether the unverified-runtime override let a privileged command proceed.
    pub standing_overridden: bool,
}

/// `HelloAck.provenance`, field by field (an empty `build_id_source` reads as `absent`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ProvenanceReport {
    /// The runtime's core version.
    pub core_version: String,
    /// Its build commit, or `unknown`.
    pub build_sha: String,
    /// Where the build id came from (`injected`, `checkout`, `packaged`, `absent`).
    pub build_id_source: String,
    /// Its pid.
    pub pid: u32,
    /// Its executable's path.
    pub executable_path: String,
    /// Whether that file is still the running binary.
    pub executable_present: bool,
    /// Its compiled source path.
    pub source_path: String,
    /// When it started.
    pub started_at_unix_secs: u64,
}

impl ProvenanceReport {
    /// The report of a wire provenance.
    pub fn new(p: &pb::RuntimeProvenance) -> ProvenanceReport {
        ProvenanceReport {
            core_version: p.core_version.clone(),
            build_sha: p.build_sha.clone(),
            build_id_source: if p.build_id_source.is_empty() {
                "absent".to_owned()
            } else {
                p.build_id_source.clone()
            },
            pid: p.pid,
            executable_path: p.executable_path.clone(),
            executable_present: p.executable_present,
            source_path: p.source_path.clone(),
            started_at_unix_secs: p.started_at_unix_secs,
        }
    }
}

impl RuntimeReport {
    /// The report for the runtime that answered on `socket` with `ack`, assessed as
    /// `standing`; `overridden` when the override let a privileged command proceed.
    pub fn new(
        socket: &Path,
        ack: &pb::HelloAck,
        standing: &Standing,
        overridden: bool,
    ) -> RuntimeReport {
        RuntimeReport {
            socket: socket.display().to_string(),
            di_api_version: ack.di_api_version,
            core_version: ack.core_version.clone(),
            degraded: !ack.unavailable_verbs.is_empty(),
            provenance: ack.provenance.as_ref().map(ProvenanceReport::new),
            standing: standing.token(),
            standing_reason: standing_reason(standing),
            standing_overridden: overridden,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use devint::exit::Exit;
    use devint::provenance::{BuildIdSource, RefutedBecause, UnverifiableBecause};

    fn provenance(sha: &str, source: BuildIdSource, present: bool) -> pb::RuntimeProvenance {
        let ours = BuildIdentity::compiled();
        pb::RuntimeProvenance {
            core_version: ours.core_version,
            build_sha: sha.to_owned(),
            pid: 1,
            executable_path: "/bin/devint".into(),
            executable_present: present,
            source_path: String::new(),
            started_at_unix_secs: 1,
            build_id_source: source.token().to_owned(),
        }
    }

    fn refused_with(decision: Decision) -> Option<Exit> {
        match decision {
            Decision::Refuse(r) => Some(r.exit()),
            _ => None,
        }
    }

    #[test]
    fn read_only_proceeds_on_an_unverifiable_runtime_and_says_so() {
        let s = Standing::Unverifiable(UnverifiableBecause::NoProvenance);
        assert_eq!(
            decide_for_verb(&s, Verb::Status, false),
            Decision::ProceedUnverifiable
        );
    }

    #[test]
    fn privileged_is_refused_with_11_on_an_unverifiable_runtime() {
        let s = Standing::Unverifiable(UnverifiableBecause::NoProvenance);
        for verb in [Verb::Apply, Verb::Verify, Verb::Repair, Verb::Remove] {
            assert_eq!(
                refused_with(decide_for_verb(&s, verb, false)),
                Some(Exit::Unverifiable)
            );
        }
    }

    #[test]
    fn the_override_lets_privileged_proceed_on_unverifiable_with_a_warning() {
        let s = Standing::Unverifiable(UnverifiableBecause::NoProvenance);
        assert_eq!(
            decide_for_verb(&s, Verb::Apply, true),
            Decision::ProceedOverridden
        );
    }

    #[test]
    fn refuted_is_refused_with_10_even_with_the_override() {
        let s = Standing::Refuted(RefutedBecause::ExecutableGone);
        for verb in [Verb::ListTools, Verb::Apply] {
            for allow in [false, true] {
                assert_eq!(
                    refused_with(decide_for_verb(&s, verb, allow)),
                    Some(Exit::Refuted)
                );
            }
        }
    }

    #[test]
    fn verified_proceeds_everywhere() {
        for verb in [Verb::ListTools, Verb::Apply, Verb::Remove] {
            assert_eq!(
                decide_for_verb(&Standing::Verified, verb, false),
                Decision::Proceed
            );
        }
    }

    #[test]
    fn an_unknown_build_sha_makes_privileged_commands_exit_11() {
        let p = provenance("unknown", BuildIdSource::Absent, true);
        let s = Standing::assess(Some(&p), &BuildIdentity::compiled(), &sockets(1));
        assert_eq!(s.token(), "unverifiable");
        assert_eq!(
            refused_with(decide_for_verb(&s, Verb::Apply, false)),
            Some(Exit::Unverifiable)
        );
    }

    #[test]
    fn a_deleted_executable_refutes_the_runtime() {
        let ours = BuildIdentity::compiled();
        let p = provenance(&ours.sha, ours.source, false);
        let s = Standing::assess(Some(&p), &ours, &sockets(1));
        assert_eq!(
            refused_with(decide_for_verb(&s, Verb::ListTools, true)),
            Some(Exit::Refuted)
        );
    }

    #[test]
    fn two_reachable_runtimes_refute_even_a_matching_build() {
        let ours = BuildIdentity::compiled();
        let p = provenance(&ours.sha, ours.source, true);
        let s = Standing::assess(Some(&p), &ours, &sockets(2));
        assert_eq!(
            refused_with(decide_for_verb(&s, Verb::ListTools, false)),
            Some(Exit::Refuted)
        );
        // The reason every surface shows names the other socket.
        let reason = standing_reason(&s).unwrap();
        assert!(reason.contains("\"/run/devint-1.sock\""), "{reason}");
    }

    fn sockets(n: usize) -> Vec<std::path::PathBuf> {
        (0..n)
            .map(|i| format!("/run/devint-{i}.sock").into())
            .collect()
    }

    #[test]
    fn the_report_reads_an_empty_build_source_as_absent_and_no_reason_when_verified() {
        let mut p = provenance("abc", BuildIdSource::Checkout, true);
        p.build_id_source.clear();
        let ack = pb::HelloAck {
            di_api_version: 5,
            core_version: "0.1.0".into(),
            provenance: Some(p),
            ..pb::HelloAck::default()
        };
        let r = RuntimeReport::new(
            Path::new("/r/devint.sock"),
            &ack,
            &Standing::Verified,
            false,
        );
        assert_eq!(r.provenance.expect("present").build_id_source, "absent");
        assert_eq!((r.standing, r.standing_reason), ("verified", None));
        assert!(!r.degraded);
    }
}
