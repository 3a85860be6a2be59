//! The provenance standing check that runs before every lifecycle command (spec §8), in the
//! command's words.
//!
//! The scan, the assessment and the decision are the client library's
//! (`devint_net::client::{assess_standing, decide}`), shared with `devint sidecar`; this
//! module owns only how a refusal is worded for a person. It must never let
//! `--allow-unverified-runtime` override a *refuted* runtime (the shared decision never
//! does).

use devint::provenance::Standing;
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
}
