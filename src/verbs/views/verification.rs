//! `VerificationView`: fresh evidence gathered by `verify`.

use super::status::{policy_from_wire, policy_to_wire};
use super::tolerant::{Tolerant, Unrecognized};
use super::{
    id_from_wire, opt_text_from_wire, opt_text_to_wire, strs_to_wire, EvidenceView, MechanismName,
    PolicyView, ViewError,
};
use crate::time::UnixSecs;
use crate::verbs::{Sentence, VerificationOutcome};
use crate::version::ApiVersion;
use crate::wire::pb;

/// The result of a verification.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerificationView {
    /// When it ran (unix seconds).
    pub verified_at_unix_secs: UnixSecs,
    /// The outcome.
    pub outcome: VerificationOutcome,
    /// Mechanisms whose evidence is missing.
    pub missing: Vec<MechanismName>,
    /// Why the outcome is what it is.
    pub reason: Option<Sentence>,
    /// The evidence gathered.
    pub evidence: Vec<EvidenceView>,
    /// The policy state (on the wire only at DI-API ≥ [`POLICY_SINCE`](crate::version::POLICY_SINCE)).
    pub policy: Option<PolicyView>,
    /// The fields the client could not read ([`VerificationView::from_wire`]): an
    /// unreadable `missing` or `evidence` entry is left out of its list and an unreadable
    /// policy is `None`, each named here. Never on the wire; a backend leaves it empty.
    pub unrecognized: Vec<Unrecognized>,
}

impl VerificationView {
    /// To the wire; `policy` only at DI-API ≥ [`POLICY_SINCE`](crate::version::POLICY_SINCE).
    pub fn to_wire(&self, version: ApiVersion) -> pb::VerificationView {
        pb::VerificationView {
            verified_at_unix_secs: self.verified_at_unix_secs.get(),
            outcome: self.outcome.token().to_owned(),
            missing: strs_to_wire(&self.missing),
            reason: opt_text_to_wire(&self.reason),
            evidence: self.evidence.iter().map(|e| e.to_wire(version)).collect(),
            // spec[S5-FIELD-GATING] §5: v3 added `VerificationView.policy`; we gate it too.
            policy: policy_to_wire(&self.policy, version),
        }
    }

    /// From the wire; a `policy` below [`POLICY_SINCE`](crate::version::POLICY_SINCE) is ignored.
    /// Tolerant like [`super::StatusView::from_wire`]: the outcome is required, every list
    /// entry and the policy are read as far as they can be and the rest named in
    /// [`VerificationView::unrecognized`].
    pub fn from_wire(
        w: &pb::VerificationView,
        version: ApiVersion,
    ) -> Result<VerificationView, ViewError> {
        let mut t = Tolerant::default();
        let missing = t.list(
            "missing",
            &w.missing,
            |m| id_from_wire(m, "verification.missing", MechanismName::parse),
            false,
        );
        let evidence = t.list(
            "evidence",
            &w.evidence,
            |e| EvidenceView::from_wire(e, version),
            true,
        );
        let policy = t.optional("policy", policy_from_wire(&w.policy, version));
        Ok(VerificationView {
            verified_at_unix_secs: UnixSecs::new(w.verified_at_unix_secs),
            outcome: VerificationOutcome::parse_as(&w.outcome, "verification.outcome")?,
            missing,
            reason: opt_text_from_wire(&w.reason),
            evidence,
            policy,
            unrecognized: t.finish(),
        })
    }
}
