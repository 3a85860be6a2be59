//! The provenance standing check that runs before every lifecycle command (spec §8), in the
//! command's words.
//!
//! The scan, the assessment and the decision are the client library's
//! (`devint_net::client::{assess_standing, decide}`), shared with `devint sidecar`; this
//! module owns only how a refusal is worded for a person. It must never let
//! `--allow-unverified-runtime` override a *refuted* runtime (the shared decision never
//! does).

use std::path::Path;

use devint::provenance::{RefutedBecause, Standing};
use devint::wire::pb;
pub use devint_net::client::{assess_standing as assess, decide_for_verb, Decision};

use crate::exit::{CliError, Exit};

/// Why a standing is what it is, in words (empty for verified).
pub fn explain(standing: &Standing) -> String {
    devint_net::client::standing_reason(standing).unwrap_or_default()
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

/// [`refusal`], naming the runtime's pid and the exact command that fixes it when the
/// runtime is refuted for running another binary than the one at its path (replaced,
/// removed, or another build): spec §8 still refuses it; `devint restart` re-executes the
/// binary now at the path on the same socket.
pub fn refusal_naming(
    standing: &Standing,
    exit: Exit,
    command: &str,
    socket: &Path,
    provenance: Option<&pb::RuntimeProvenance>,
) -> CliError {
    let error = refusal(standing, exit, command);
    let (Standing::Refuted(why), Some(p)) = (standing, provenance) else {
        return error;
    };
    let restart = format!("devint restart --socket {}", socket.display());
    let fix = match why {
        RefutedBecause::ExecutableGone => format!(
            "run `{restart}`: the runtime (pid {}) re-executes the binary now at {} on the same \
             socket (a runtime serving with the default --on-upgrade reexec does so by itself \
             within seconds)",
            p.pid, p.executable_path
        ),
        RefutedBecause::DifferentBuild(_) => format!(
            "run `{restart}` if the binary now at {} is the build you are using (the runtime, \
             pid {}, re-executes it on the same socket); otherwise `devint stop --socket {}` \
             and start `devint serve` from your build",
            p.executable_path,
            p.pid,
            socket.display()
        ),
        _ => return error,
    };
    CliError {
        message: format!("{} (pid {})", error.message, p.pid),
        remediation: Some(fix),
        ..error
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use devint::provenance::{RefutedBecause, UnverifiableBecause};

    #[test]
    fn a_refusal_names_the_command_the_standing_and_the_way_out() {
        let s = Standing::Refuted(RefutedBecause::MultipleRuntimes {
            reachable: vec!["/run/devint.sock".into(), "/run/devint-2.sock".into()],
        });
        let e = refusal(&s, Exit::Refuted, "apply");
        assert_eq!(e.exit, Exit::Refuted);
        assert!(e
            .message
            .contains("`apply` refused: the runtime is refuted"));
        assert!(e
            .remediation
            .expect("a fix")
            .contains("stop the other runtime"));
        let s = Standing::Unverifiable(UnverifiableBecause::NoProvenance);
        let e = refusal(&s, Exit::Unverifiable, "verify");
        assert!(e
            .remediation
            .expect("a fix")
            .contains("--allow-unverified-runtime"));
    }

    #[test]
    fn a_replaced_executable_names_the_pid_and_the_restart_command() {
        let p = pb::RuntimeProvenance {
            pid: 4242,
            executable_path: "/usr/local/bin/devint".into(),
            ..pb::RuntimeProvenance::default()
        };
        let s = Standing::Refuted(RefutedBecause::ExecutableGone);
        let e = refusal_naming(
            &s,
            Exit::Refuted,
            "tools",
            Path::new("/r/devint.sock"),
            Some(&p),
        );
        assert_eq!(e.exit, Exit::Refuted);
        assert!(e.message.contains("(pid 4242)"), "{}", e.message);
        let fix = e.remediation.expect("a fix");
        assert!(
            fix.contains("`devint restart --socket /r/devint.sock`"),
            "{fix}"
        );
        assert!(fix.contains("/usr/local/bin/devint"), "{fix}");
        assert!(!fix.contains("  "), "one space between words: {fix}");
        use devint::provenance::{FieldReport, FieldState};
        let other = Standing::Refuted(RefutedBecause::DifferentBuild(FieldReport {
            core_version: FieldState::Matched,
            build_sha: FieldState::Mismatched,
            build_id_source: FieldState::Matched,
        }));
        let e = refusal_naming(
            &other,
            Exit::Refuted,
            "tools",
            Path::new("/r/devint.sock"),
            Some(&p),
        );
        let fix = e.remediation.expect("a fix");
        assert!(!fix.contains("  "), "one space between words: {fix}");
    }
}
