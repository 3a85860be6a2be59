//! The client's [`Standing`] towards the runtime that answered, and what it permits (spec
//! §8, exit codes §9).

use std::path::PathBuf;

use super::compare::{compare, FieldReport, Verdict};
use super::identity::BuildIdentity;
use crate::exit::Exit;
use crate::verbs::Verb;
use crate::wire::pb;

/// Why a standing is unverifiable: an absence of evidence, not a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UnverifiableBecause {
    /// The `HelloAck` carried no provenance (a peer below v4, or one that said nothing).
    #[error("the runtime sent no provenance")]
    NoProvenance,
    /// One side's identity is not authoritative (source `absent`, or no commit).
    #[error("a build identity is not authoritative ({0})")]
    NotAuthoritative(FieldReport),
}

/// Sockets a multiplicity refusal names at most; the rest are counted.
pub const NAMED_SOCKETS_MAX: usize = 4;

/// Why a standing is refuted: a positive finding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RefutedBecause {
    /// More than one runtime accepted a connection in the socket's directory.
    #[error(
        "{} runtimes are reachable in the socket's directory: {}",
        .reachable.len(),
        name_sockets(.reachable)
    )]
    MultipleRuntimes {
        /// The sockets that accepted a connection (local paths, opaque), the answering
        /// one among them.
        reachable: Vec<PathBuf>,
    },
    /// The file at the runtime's executable path is no longer the binary it runs.
    #[error("the runtime's executable was deleted or replaced since it started")]
    ExecutableGone,
    /// The builds differ.
    #[error("the runtime is a different build ({0})")]
    DifferentBuild(FieldReport),
}

/// The sockets of a multiplicity refusal, each quoted (control bytes escaped), the first
/// [`NAMED_SOCKETS_MAX`] by name and the rest counted.
fn name_sockets(sockets: &[PathBuf]) -> String {
    let mut named: Vec<String> = sockets
        .iter()
        .take(NAMED_SOCKETS_MAX)
        .map(|p| format!("{p:?}"))
        .collect();
    if sockets.len() > NAMED_SOCKETS_MAX {
        named.push(format!("and {} more", sockets.len() - NAMED_SOCKETS_MAX));
    }
    named.join(", ")
}

/// How far a client may trust that the runtime which answered is the one it was built with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// Same build, executable present, no duplicate observed. An attribution claim about
    /// this connection, never a claim that no other runtime serves.
    Verified,
    /// Nothing refutes the runtime, but nothing establishes it either.
    Unverifiable(UnverifiableBecause),
    /// Positively not (only) the runtime this client was built with.
    Refuted(RefutedBecause),
}

/// CLI exit code for a refuted runtime (spec §9).
pub const EXIT_REFUTED: u8 = Exit::Refuted.code();
/// CLI exit code for a privileged command refused on an unverifiable runtime (spec §9).
pub const EXIT_UNVERIFIABLE: u8 = Exit::Unverifiable.code();

/// What a standing allows a command to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Permit {
    /// Proceed.
    Proceed,
    /// Proceed, and report the standing as `unverifiable` (never as verified).
    ProceedReportingUnverifiable,
}

/// A command refused because of the standing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StandingRefusal {
    /// Refused everywhere: exit 10.
    #[error(
        "runtime refuted: {0}; stop the other runtime or restart this one from the build you \
         are using"
    )]
    Refuted(RefutedBecause),
    /// A privileged command on an unverifiable runtime: exit 11.
    #[error(
        "runtime unverifiable: {0}; privileged commands need a runtime from an identified \
         build matching this client (read-only commands still work)"
    )]
    Unverifiable(UnverifiableBecause),
}

impl StandingRefusal {
    /// The CLI exit code (spec §9): 10 refuted, 11 unverifiable.
    pub fn exit_code(&self) -> u8 {
        self.exit().code()
    }

    /// The CLI exit (spec §9): [`Exit::Refuted`] or [`Exit::Unverifiable`].
    pub const fn exit(&self) -> Exit {
        match self {
            StandingRefusal::Refuted(_) => Exit::Refuted,
            StandingRefusal::Unverifiable(_) => Exit::Unverifiable,
        }
    }
}

impl Standing {
    // spec[S8-STANDING] §8: no provenance → unverifiable; executable gone or Mismatch →
    // refuted; Unverifiable → unverifiable; Match → verified.
    /// The standing from the `HelloAck`'s provenance (if any), our own identity, and the
    /// sockets the multiplicity scan found answering (spec §8). Refutations are positive findings and win over
    /// absences; otherwise, in the spec's order: no provenance → unverifiable; executable
    /// not present → refuted; Mismatch → refuted; Unverifiable → unverifiable; Match →
    /// verified.
    pub fn assess(
        provenance: Option<&pb::RuntimeProvenance>,
        ours: &BuildIdentity,
        reachable_runtimes: &[PathBuf],
    ) -> Standing {
        // spec[S8-STANDING] §8: more than one runtime reachable → refuted.
        if reachable_runtimes.len() > 1 {
            return Standing::Refuted(RefutedBecause::MultipleRuntimes {
                reachable: reachable_runtimes.to_vec(),
            });
        }
        let Some(peer) = provenance else {
            return Standing::Unverifiable(UnverifiableBecause::NoProvenance);
        };
        if !peer.executable_present {
            return Standing::Refuted(RefutedBecause::ExecutableGone);
        }
        let comparison = compare(peer, ours);
        match comparison.verdict {
            Verdict::Mismatch => {
                Standing::Refuted(RefutedBecause::DifferentBuild(comparison.fields))
            }
            Verdict::Unverifiable => {
                Standing::Unverifiable(UnverifiableBecause::NotAuthoritative(comparison.fields))
            }
            Verdict::Match => Standing::Verified,
        }
    }

    /// The token shown on every surface: `verified`, `unverifiable` or `refuted`.
    pub const fn token(&self) -> &'static str {
        match self {
            Standing::Verified => "verified",
            Standing::Unverifiable(_) => "unverifiable",
            Standing::Refuted(_) => "refuted",
        }
    }

    /// [`Standing::permits`] for the command that sends `verb`; whether it is privileged is
    /// the verb table's privilege column ([`Verb::is_privileged`]).
    pub fn permits_verb(&self, verb: Verb) -> Result<Permit, StandingRefusal> {
        self.permits(verb.is_privileged())
    }

    // spec[S8-STANDING-TABLE] §8: verified proceeds; unverifiable refuses privileged commands
    // (exit 11); refuted refuses everything (exit 10).
    /// Whether a command may run (spec §8 table). `privileged` is true for apply, verify,
    /// repair and remove.
    ///
    /// | standing | read-only | privileged |
    /// |---|---|---|
    /// | verified | proceed | proceed |
    /// | unverifiable | proceed, reporting `unverifiable` | refuse, exit 11 |
    /// | refuted | refuse, exit 10 | refuse, exit 10 |
    pub fn permits(&self, privileged: bool) -> Result<Permit, StandingRefusal> {
        match (self, privileged) {
            (Standing::Verified, _) => Ok(Permit::Proceed),
            (Standing::Unverifiable(_), false) => Ok(Permit::ProceedReportingUnverifiable),
            (Standing::Unverifiable(why), true) => Err(StandingRefusal::Unverifiable(*why)),
            (Standing::Refuted(why), _) => Err(StandingRefusal::Refuted(why.clone())),
        }
    }
}
