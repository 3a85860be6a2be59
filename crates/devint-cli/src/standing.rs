//! The provenance standing check that runs before every lifecycle command (spec §8).
//!
//! This module owns the multiplicity scan of the answering socket's directory, the
//! assessment of the `HelloAck` provenance against this binary's own build identity, and
//! the one decision function [`decide`] (standing × privileged × override → proceed or
//! refuse). It must never report a standing better than the evidence, and never let
//! `--allow-unverified-runtime` override a *refuted* runtime: a refutation is a positive
//! finding, not an absence of evidence.

use std::path::Path;
use std::time::Duration;

use devint::provenance::{BuildIdentity, Permit, Standing};
use devint::wire::pb;
use devint_net::provenance::scan_runtimes;

use crate::exit::{CliError, Exit};

/// How long the multiplicity scan may take at most.
const SCAN_TIMEOUT: Duration = Duration::from_millis(500);

/// What the standing allows this command to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Proceed; the runtime is verified.
    Proceed,
    /// Proceed and say that the runtime is unverifiable (a read-only command).
    ProceedUnverifiable,
    /// Proceed because `--allow-unverified-runtime` overrode a refusal; warn.
    ProceedOverridden,
    /// Refuse with this exit code (10 or 11).
    Refuse(Exit),
}

/// spec §8 table, plus our override rule: `allow_unverified` turns an unverifiable refusal
/// (exit 11) into a warned proceed, and nothing else.
// spec[S8-STANDING-TABLE] §8: unverifiable refuses privileged commands (11); refuted refuses all (10).
pub fn decide(standing: &Standing, privileged: bool, allow_unverified: bool) -> Decision {
    match standing.permits(privileged) {
        Ok(Permit::Proceed) => Decision::Proceed,
        Ok(Permit::ProceedReportingUnverifiable) => Decision::ProceedUnverifiable,
        Err(refusal) => {
            let exit = Exit::from_standing_code(refusal.exit_code());
            if exit == Exit::Unverifiable && allow_unverified {
                Decision::ProceedOverridden
            } else {
                Decision::Refuse(exit)
            }
        }
    }
}

/// Scan the socket's directory and assess the answering runtime (spec §8: the scan runs
/// once, as the session opens).
pub fn assess(socket: &Path, provenance: Option<&pb::RuntimeProvenance>) -> Standing {
    let dir = socket.parent().unwrap_or_else(|| Path::new("/"));
    let reachable = scan_runtimes(dir, SCAN_TIMEOUT);
    Standing::assess(provenance, &BuildIdentity::compiled(), reachable)
}

/// Why a standing is what it is, in words (empty for verified).
pub fn explain(standing: &Standing) -> String {
    match standing {
        Standing::Verified => String::new(),
        Standing::Unverifiable(why) => why.to_string(),
        Standing::Refuted(why) => why.to_string(),
    }
}

/// The error for a refused command.
pub fn refusal(standing: &Standing, exit: Exit, command: &str) -> CliError {
    let message = format!(
        "`{command}` refused: the runtime is {} ({})",
        standing.token(),
        explain(standing)
    );
    let fix = if exit == Exit::Refuted {
        "stop the other runtime, or restart the runtime from the build you are using \
         (`devint serve`)"
    } else {
        "restart the runtime from an identified build matching this devint, or pass \
         --allow-unverified-runtime to proceed anyway"
    };
    CliError::new(exit, message).fix(fix)
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn read_only_proceeds_on_an_unverifiable_runtime_and_says_so() {
        let s = Standing::Unverifiable(UnverifiableBecause::NoProvenance);
        assert_eq!(decide(&s, false, false), Decision::ProceedUnverifiable);
    }

    #[test]
    fn privileged_is_refused_with_11_on_an_unverifiable_runtime() {
        let s = Standing::Unverifiable(UnverifiableBecause::NoProvenance);
        assert_eq!(
            decide(&s, true, false),
            Decision::Refuse(Exit::Unverifiable)
        );
    }

    #[test]
    fn the_override_lets_privileged_proceed_on_unverifiable_with_a_warning() {
        let s = Standing::Unverifiable(UnverifiableBecause::NoProvenance);
        assert_eq!(decide(&s, true, true), Decision::ProceedOverridden);
    }

    #[test]
    fn refuted_is_refused_with_10_even_with_the_override() {
        let s = Standing::Refuted(RefutedBecause::ExecutableGone);
        for privileged in [false, true] {
            for allow in [false, true] {
                assert_eq!(
                    decide(&s, privileged, allow),
                    Decision::Refuse(Exit::Refuted)
                );
            }
        }
    }

    #[test]
    fn verified_proceeds_everywhere() {
        assert_eq!(decide(&Standing::Verified, true, false), Decision::Proceed);
        assert_eq!(decide(&Standing::Verified, false, false), Decision::Proceed);
    }

    #[test]
    fn an_unknown_build_sha_makes_privileged_commands_exit_11() {
        let p = provenance("unknown", BuildIdSource::Absent, true);
        let s = Standing::assess(Some(&p), &BuildIdentity::compiled(), 1);
        assert_eq!(s.token(), "unverifiable");
        assert_eq!(
            decide(&s, true, false),
            Decision::Refuse(Exit::Unverifiable)
        );
    }

    #[test]
    fn a_deleted_executable_refutes_the_runtime() {
        let ours = BuildIdentity::compiled();
        let p = provenance(&ours.sha, ours.source, false);
        let s = Standing::assess(Some(&p), &ours, 1);
        assert_eq!(decide(&s, false, true), Decision::Refuse(Exit::Refuted));
    }

    #[test]
    fn two_reachable_runtimes_refute_even_a_matching_build() {
        let ours = BuildIdentity::compiled();
        let p = provenance(&ours.sha, ours.source, true);
        let s = Standing::assess(Some(&p), &ours, 2);
        assert_eq!(decide(&s, false, false), Decision::Refuse(Exit::Refuted));
    }
}
