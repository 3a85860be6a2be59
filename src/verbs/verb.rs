//! [`Verb`], its rule table and [`VerbSet`].
//!
//! [`Verb::rule`] is the one table of per-verb facts: tool scope (spec §6), privilege for
//! the provenance standing (spec §8), the audited mutation (spec §10) and the first DI-API
//! version (spec §5). Nothing else in the workspace may classify verbs by listing them.

use crate::version::{ApiVersion, EVENTS_AND_APPROVALS_SINCE, MIN_SUPPORTED};
use crate::wire::pb;

/// One of the nine DI-API verbs. The set is closed: there is no "other" variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verb {
    /// `VERB_LIST_TOOLS` (1): the adapters this runtime knows and what they support.
    ListTools,
    /// `VERB_PLAN` (2): a dry-run plan for one tool.
    Plan,
    /// `VERB_APPLY` (3): execute a plan.
    Apply,
    /// `VERB_STATUS` (4): the evidence-derived protection state of one tool.
    Status,
    /// `VERB_VERIFY` (5): gather fresh evidence for one tool.
    Verify,
    /// `VERB_REPAIR` (6): restore drifted keys we own.
    Repair,
    /// `VERB_REMOVE` (7): plan or execute the removal of an integration.
    Remove,
    /// `VERB_SCOPED_EVENTS` (8, since v2): already-redacted verdict records for one tool.
    ScopedEvents,
    /// `VERB_APPROVAL_RELAY` (9, since v2): relay a user's input to the approval authority.
    ApprovalRelay,
}

/// The wire discriminant was `VERB_UNSPECIFIED` (0) or outside the enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("verb {0} is not one of the nine DI-API verbs")]
pub struct UnknownVerb(pub i32);

/// What the central table says about a verb: one row of [`Verb::rule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerbRule {
    /// Whether the token's tool scope must cover the request's `tool_id` (spec §6: every
    /// verb but `list_tools`).
    pub tool_scoped: bool,
    /// Whether the command that sends the verb is privileged for the provenance standing
    /// (spec §8 table: apply, verify, repair, remove): an unverifiable runtime refuses it.
    pub privileged: bool,
    /// The lifecycle mutation the verb is audited as (spec §10 (b): apply, repair, remove),
    /// or `None`. Not the same as `privileged`, which also counts `verify`. A `remove`
    /// without a plan id only previews and is no mutation (see [`VerbCall::mutation`]).
    ///
    /// [`VerbCall::mutation`]: crate::verbs::VerbCall::mutation
    pub mutation: Option<MutationVerb>,
    /// The first DI-API version at which the verb exists (spec §5).
    pub first_version: ApiVersion,
}

// spec[S10-MUTATIONS] §10 (b): apply, repair and remove are audited with their outcome.
/// A lifecycle mutation verb (spec §10 (b)): the mutation column of the verb table, and
/// what an audit record of a mutation names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MutationVerb {
    /// `apply`.
    Apply,
    /// `repair`.
    Repair,
    /// `remove` (executing, not previewing, a removal).
    Remove,
}

impl MutationVerb {
    /// The mutation `verb` is audited as, if any (the [`Verb::rule`] table decides).
    pub const fn from_verb(verb: Verb) -> Option<MutationVerb> {
        verb.rule().mutation
    }

    /// The verb this mutation is.
    pub const fn verb(self) -> Verb {
        match self {
            MutationVerb::Apply => Verb::Apply,
            MutationVerb::Repair => Verb::Repair,
            MutationVerb::Remove => Verb::Remove,
        }
    }
}

impl Verb {
    /// All nine verbs in wire order.
    pub const ALL: [Verb; 9] = [
        Verb::ListTools,
        Verb::Plan,
        Verb::Apply,
        Verb::Status,
        Verb::Verify,
        Verb::Repair,
        Verb::Remove,
        Verb::ScopedEvents,
        Verb::ApprovalRelay,
    ];

    /// The one table from verb to its rules. Written without a wildcard arm so that a new
    /// verb does not compile until it has a rule (STYLE: "one central table").
    pub const fn rule(self) -> VerbRule {
        const TOOL: bool = true;
        const PRIVILEGED: bool = true;
        const fn r(
            tool_scoped: bool,
            privileged: bool,
            mutation: Option<MutationVerb>,
            first_version: ApiVersion,
        ) -> VerbRule {
            VerbRule {
                tool_scoped,
                privileged,
                mutation,
                first_version,
            }
        }
        use MutationVerb as M;
        const V1: ApiVersion = MIN_SUPPORTED;
        // spec[S5-WINDOW] §5: only v2 added verbs.
        const V2: ApiVersion = EVENTS_AND_APPROVALS_SINCE;
        // spec[S8-STANDING-TABLE] §8: the privileged commands are apply, verify, repair, remove.
        // spec[S10-MUTATIONS] §10 (b): apply, repair and remove are the audited mutations.
        match self {
            // spec[S6-SCOPE] §6: list_tools is the only verb exempt from the tool check.
            Verb::ListTools => r(!TOOL, !PRIVILEGED, None, V1),
            Verb::Plan => r(TOOL, !PRIVILEGED, None, V1),
            Verb::Apply => r(TOOL, PRIVILEGED, Some(M::Apply), V1),
            Verb::Status => r(TOOL, !PRIVILEGED, None, V1),
            Verb::Verify => r(TOOL, PRIVILEGED, None, V1),
            Verb::Repair => r(TOOL, PRIVILEGED, Some(M::Repair), V1),
            Verb::Remove => r(TOOL, PRIVILEGED, Some(M::Remove), V1),
            Verb::ScopedEvents => r(TOOL, !PRIVILEGED, None, V2),
            Verb::ApprovalRelay => r(TOOL, !PRIVILEGED, None, V2),
        }
    }

    /// Whether the command that sends this verb is privileged for the provenance standing
    /// (spec §8): the table's `privileged` column.
    pub const fn is_privileged(self) -> bool {
        self.rule().privileged
    }

    /// Parse the wire discriminant; 0 and anything outside the enum are [`UnknownVerb`]
    /// (spec §6 step 1).
    pub fn from_wire(value: i32) -> Result<Verb, UnknownVerb> {
        match pb::Verb::try_from(value) {
            Ok(pb::Verb::ListTools) => Ok(Verb::ListTools),
            Ok(pb::Verb::Plan) => Ok(Verb::Plan),
            Ok(pb::Verb::Apply) => Ok(Verb::Apply),
            Ok(pb::Verb::Status) => Ok(Verb::Status),
            Ok(pb::Verb::Verify) => Ok(Verb::Verify),
            Ok(pb::Verb::Repair) => Ok(Verb::Repair),
            Ok(pb::Verb::Remove) => Ok(Verb::Remove),
            Ok(pb::Verb::ScopedEvents) => Ok(Verb::ScopedEvents),
            Ok(pb::Verb::ApprovalRelay) => Ok(Verb::ApprovalRelay),
            Ok(pb::Verb::Unspecified) | Err(_) => Err(UnknownVerb(value)),
        }
    }

    /// The wire enum value.
    pub const fn to_wire(self) -> pb::Verb {
        match self {
            Verb::ListTools => pb::Verb::ListTools,
            Verb::Plan => pb::Verb::Plan,
            Verb::Apply => pb::Verb::Apply,
            Verb::Status => pb::Verb::Status,
            Verb::Verify => pb::Verb::Verify,
            Verb::Repair => pb::Verb::Repair,
            Verb::Remove => pb::Verb::Remove,
            Verb::ScopedEvents => pb::Verb::ScopedEvents,
            Verb::ApprovalRelay => pb::Verb::ApprovalRelay,
        }
    }

    /// The snake_case token used in `HelloAck.unavailable_verbs`, audit records and the CLI.
    pub const fn token(self) -> &'static str {
        match self {
            Verb::ListTools => "list_tools",
            Verb::Plan => "plan",
            Verb::Apply => "apply",
            Verb::Status => "status",
            Verb::Verify => "verify",
            Verb::Repair => "repair",
            Verb::Remove => "remove",
            Verb::ScopedEvents => "scoped_events",
            Verb::ApprovalRelay => "approval_relay",
        }
    }

    /// Parse a snake_case token (see [`Verb::token`]).
    pub fn from_token(token: &str) -> Option<Verb> {
        Verb::ALL.into_iter().find(|v| v.token() == token)
    }

    const fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

impl std::fmt::Display for Verb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.token())
    }
}

/// A set of verbs (a token's verb scope). An empty set grants nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct VerbSet(u16);

impl VerbSet {
    /// The empty set: grants nothing.
    pub const EMPTY: VerbSet = VerbSet(0);

    // spec[S7-SCOPE-SETS] §7: read_only = {list_tools, status, verify, scoped_events}.
    /// `read_only` = {list_tools, status, verify, scoped_events} (spec §7).
    pub const fn read_only() -> VerbSet {
        VerbSet(
            Verb::ListTools.bit()
                | Verb::Status.bit()
                | Verb::Verify.bit()
                | Verb::ScopedEvents.bit(),
        )
    }

    /// `full_lifecycle` = all nine verbs (spec §7).
    pub const fn full_lifecycle() -> VerbSet {
        let mut bits = 0;
        let mut i = 0;
        while i < Verb::ALL.len() {
            bits |= Verb::ALL[i].bit();
            i += 1;
        }
        VerbSet(bits)
    }

    /// Whether `verb` is in the set.
    pub const fn contains(self, verb: Verb) -> bool {
        self.0 & verb.bit() != 0
    }

    /// The set with `verb` added.
    pub const fn with(self, verb: Verb) -> VerbSet {
        VerbSet(self.0 | verb.bit())
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The verbs in the set, in wire order.
    pub fn iter(self) -> impl Iterator<Item = Verb> {
        Verb::ALL.into_iter().filter(move |v| self.contains(*v))
    }
}

impl FromIterator<Verb> for VerbSet {
    fn from_iter<I: IntoIterator<Item = Verb>>(iter: I) -> Self {
        iter.into_iter().fold(VerbSet::EMPTY, VerbSet::with)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verb_set_is_exactly_the_nine_of_the_spec() {
        let names: Vec<&str> = Verb::ALL.iter().map(|v| v.token()).collect();
        assert_eq!(
            names,
            [
                "list_tools",
                "plan",
                "apply",
                "status",
                "verify",
                "repair",
                "remove",
                "scoped_events",
                "approval_relay"
            ]
        );
        for (i, v) in Verb::ALL.iter().enumerate() {
            assert_eq!(v.to_wire() as i32, i as i32 + 1);
            assert_eq!(Verb::from_wire(i as i32 + 1), Ok(*v));
        }
        // Anything check-, decide- or audit-like would be a tenth verb.
        assert_eq!(pb::Verb::from_str_name("VERB_CHECK"), None);
        assert!(pb::Verb::try_from(10).is_err());
    }

    #[test]
    fn unknown_wire_verbs_are_refused() {
        for v in [0, -1, 10, 42, 99, 1_000_000, i32::MAX, i32::MIN] {
            assert_eq!(Verb::from_wire(v), Err(UnknownVerb(v)));
        }
    }

    #[test]
    fn only_list_tools_is_exempt_from_the_tool_check() {
        for v in Verb::ALL {
            assert_eq!(v.rule().tool_scoped, v != Verb::ListTools, "{v}");
        }
    }

    #[test]
    fn only_v2_added_verbs() {
        for v in Verb::ALL {
            let expected = if matches!(v, Verb::ScopedEvents | Verb::ApprovalRelay) {
                2
            } else {
                1
            };
            assert_eq!(v.rule().first_version.get(), expected, "{v}");
        }
    }

    #[test]
    fn mutating_verbs_are_apply_repair_remove() {
        let m: Vec<(Verb, MutationVerb)> = Verb::ALL
            .into_iter()
            .filter_map(|v| v.rule().mutation.map(|m| (v, m)))
            .collect();
        assert_eq!(
            m,
            [
                (Verb::Apply, MutationVerb::Apply),
                (Verb::Repair, MutationVerb::Repair),
                (Verb::Remove, MutationVerb::Remove)
            ]
        );
        for (v, m) in m {
            assert_eq!(m.verb(), v);
        }
    }

    #[test]
    fn privileged_verbs_are_apply_verify_repair_remove() {
        let p: Vec<Verb> = Verb::ALL
            .into_iter()
            .filter(|v| v.is_privileged())
            .collect();
        assert_eq!(p, [Verb::Apply, Verb::Verify, Verb::Repair, Verb::Remove]);
    }

    #[test]
    fn named_verb_sets_match_the_spec() {
        let ro: Vec<Verb> = VerbSet::read_only().iter().collect();
        assert_eq!(
            ro,
            [
                Verb::ListTools,
                Verb::Status,
                Verb::Verify,
                Verb::ScopedEvents
            ]
        );
        assert_eq!(VerbSet::full_lifecycle().iter().count(), 9);
        assert!(VerbSet::EMPTY.is_empty());
        assert!(!VerbSet::EMPTY.contains(Verb::ListTools));
    }
}
