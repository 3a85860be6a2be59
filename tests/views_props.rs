//! Property tests of the views layer: hostile strings never panic, never get echoed, and
//! never reach a typed view unless they are in vocabulary or pass the sentence check.

use devint::verbs::*;
use devint::version::{ApiVersion, POLICY_SINCE};
use devint::wire::pb;
use proptest::prelude::*;

/// A string that is sometimes a valid token and sometimes anything at all.
fn token_or_junk(tokens: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(tokens).prop_map(str::to_owned),
        any::<String>(),
        "[a-z_]{0,24}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z ,.]{0,60}",
        any::<String>(),
        "sk-[A-Za-z0-9]{8,30}",
        "[0-9a-f]{32,64}",
    ]
}

fn evidence() -> impl Strategy<Value = pb::EvidenceView> {
    (
        token_or_junk(CapabilityName::TOKENS),
        token_or_junk(EvidenceKind::TOKENS),
        prop_oneof![
            token_or_junk(ExercisedOutcome::TOKENS),
            token_or_junk(ReadBackOutcome::TOKENS)
        ],
        any::<u64>(),
        text(),
    )
        .prop_map(|(mechanism, kind, outcome, t, detail)| pb::EvidenceView {
            mechanism,
            kind,
            outcome,
            observed_at_unix_secs: t,
            detail,
        })
}

fn status() -> impl Strategy<Value = pb::StatusView> {
    (
        prop_oneof![Just("claude-code".to_owned()), any::<String>()],
        token_or_junk(Phase::TOKENS),
        token_or_junk(StatusState::TOKENS),
        token_or_junk(Level::TOKENS),
        token_or_junk(AdapterCeiling::TOKENS),
        token_or_junk(Compatibility::TOKENS),
        prop::collection::vec(evidence(), 0..3),
        prop::collection::vec(
            prop_oneof![Just("env.ANTHROPIC_BASE_URL".to_owned()), any::<String>()],
            0..3,
        ),
        text(),
        prop::option::of((token_or_junk(PolicyState::TOKENS), text())),
    )
        .prop_map(
            |(tool_id, phase, state, level, ceiling, compat, evidence, drift, reason, policy)| {
                pb::StatusView {
                    tool_id,
                    phase,
                    state,
                    achieved_level: level.clone(),
                    planned_level: level,
                    adapter_ceiling: ceiling,
                    compatibility: compat,
                    evidence,
                    next_level: None,
                    observed_at_unix_secs: 1,
                    drift_mismatched: drift,
                    state_reason: reason.clone(),
                    state_remediation: reason,
                    policy: policy.map(|(state, detail)| pb::PolicyView {
                        state,
                        source: String::new(),
                        detail,
                    }),
                }
            },
        )
}

proptest! {
    #[test]
    fn or_placeholder_always_yields_a_valid_sentence(input in text()) {
        let (s, why) = Sentence::or_placeholder(&input);
        prop_assert!(Sentence::new(s.as_str()).is_ok());
        match why {
            None => prop_assert_eq!(s.as_str(), input.as_str()),
            Some(r) => prop_assert_eq!(s.as_str(), r.placeholder()),
        }
        prop_assert!(s.as_str().chars().count() <= Sentence::MAX_CHARS);
        prop_assert!(!s.as_str().contains('\n'));
    }

    #[test]
    fn a_vendor_key_inside_any_accepted_sentence_is_refused(
        prose in "[A-Za-z ,.]{0,80}",
        key in "(sk-ant-api03-|ghp_|glpat-|xoxb-|sk_live_)[A-Za-z0-9]{16,40}",
    ) {
        let text = format!("{prose} {key} {prose}");
        prop_assert_eq!(Sentence::new(&text).err(), Some(SentenceRefusal::KeyPrefix));
    }

    #[test]
    fn a_digest_inside_any_sentence_is_refused(prose in "[g-z ]{0,80}", hex in "[0-9a-f]{64}") {
        let text = format!("{prose} {hex}");
        prop_assert_eq!(Sentence::new(&text).err(), Some(SentenceRefusal::HexRun));
    }

    #[test]
    fn vocabulary_refusals_never_echo_input(junk in "[A-Z]{3}[ -~]{0,40}") {
        let err = Phase::parse(&junk).unwrap_err();
        let msg = err.to_string();
        prop_assert!(!msg.contains(&junk[..3]));
        prop_assert!(msg.contains("removal_pending"));
        prop_assert_eq!(err.got_len, junk.len());
    }

    #[test]
    fn parsing_hostile_status_views_never_panics_and_is_stable(w in status(), version in 1u32..=5) {
        let version = ApiVersion::new(version);
        if let Ok(view) = StatusView::from_wire(&w, version) {
            // Everything textual that survived is a valid sentence.
            for s in view.state_reason.iter().chain(view.state_remediation.iter()) {
                prop_assert!(Sentence::new(s.as_str()).is_ok());
            }
            let policy_unread = view.unrecognized.iter().any(|u| u.field.as_str() == "policy");
            prop_assert_eq!(
                view.policy.is_some() || policy_unread,
                w.policy.is_some() && version.has(POLICY_SINCE)
            );
            // What was read re-reads identically, with nothing left unrecognized.
            let again = StatusView::from_wire(&view.to_wire(version), version).unwrap();
            prop_assert_eq!(again, StatusView { unrecognized: Vec::new(), ..view });
        }
    }

    #[test]
    fn ids_never_accept_control_characters_or_secrets(junk in any::<String>()) {
        if let Ok(id) = ToolId::parse(&junk) {
            prop_assert!(id.as_str().bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-'));
        }
        if let Ok(k) = KeyName::parse(&junk) {
            prop_assert!(!k.as_str().chars().any(char::is_control));
            prop_assert!(!k.as_str().contains('='));
        }
        if let Ok(p) = ArtifactPath::parse(&junk) {
            prop_assert!(!p.as_str().chars().any(char::is_control));
        }
    }
}
