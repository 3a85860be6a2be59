//! Views ↔ wire: round trips, version gating (spec §5) and "exactly one view" (spec §6).

mod views_samples;

use devint::verbs::*;
use devint::version::{APPLY_OUTCOME_SINCE, POLICY_SINCE, PROVENANCE_SINCE};
use devint::wire::pb;
use prost::Message;
use views_samples::*;

fn views_set(r: &pb::Response) -> Vec<&'static str> {
    let mut set = vec![];
    if r.tool_list.is_some() {
        set.push("tool_list");
    }
    if r.plan.is_some() {
        set.push("plan");
    }
    if r.apply.is_some() {
        set.push("apply");
    }
    if r.status.is_some() {
        set.push("status");
    }
    if r.verification.is_some() {
        set.push("verification");
    }
    if r.repair.is_some() {
        set.push("repair");
    }
    if r.removal.is_some() {
        set.push("removal");
    }
    if r.events.is_some() {
        set.push("events");
    }
    if r.approval.is_some() {
        set.push("approval");
    }
    set
}

#[test]
fn gate_constants_match_the_spec_version_table() {
    assert_eq!(POLICY_SINCE.get(), 3);
    assert_eq!(PROVENANCE_SINCE.get(), 4);
    assert_eq!(APPLY_OUTCOME_SINCE.get(), 5);
}

#[test]
fn every_view_round_trips_through_the_wire_at_v5() {
    for result in all_results() {
        let verb = result.verb();
        let resp = result.clone().into_response(77, v(5));
        // Through bytes too, as a peer would see it.
        let bytes = resp.encode_to_vec();
        let decoded = pb::Response::decode(bytes.as_slice()).unwrap();
        let back = VerbResult::from_response(verb, &decoded, v(5)).unwrap();
        assert_eq!(back, result, "{verb}");
    }
}

#[test]
fn response_echoes_request_id_and_verb_and_sets_exactly_the_verbs_view() {
    let expected = [
        "tool_list",
        "plan",
        "apply",
        "status",
        "verification",
        "repair",
        "removal",
        "events",
        "approval",
    ];
    for (result, view) in all_results().into_iter().zip(expected) {
        let verb = result.verb();
        for version in (1..=5).map(v) {
            let resp = result.clone().into_response(0xdead_beef, version);
            assert_eq!(resp.request_id, 0xdead_beef);
            assert_eq!(resp.verb, verb.to_wire() as i32);
            assert_eq!(views_set(&resp), [view], "{verb} at v{version}");
        }
    }
}

#[test]
fn status_policy_is_absent_at_v2_and_present_at_v3() {
    let v2 = status().to_wire(v(2));
    assert!(v2.policy.is_none());
    let v3 = status().to_wire(v(3));
    assert_eq!(v3.policy.as_ref().unwrap().state, "enforced");
    // The rest of the view does not depend on the version.
    assert_eq!(pb::StatusView { policy: None, ..v3 }, v2);
}

#[test]
fn verification_policy_is_absent_at_v2_and_present_at_v3() {
    assert!(verification().to_wire(v(1)).policy.is_none());
    assert!(verification().to_wire(v(2)).policy.is_none());
    assert!(verification().to_wire(v(3)).policy.is_some());
    assert!(verification().to_wire(v(5)).policy.is_some());
}

#[test]
fn repair_embedded_status_is_gated_like_any_status() {
    assert!(repair().to_wire(v(2)).status.unwrap().policy.is_none());
    assert!(repair().to_wire(v(3)).status.unwrap().policy.is_some());
}

#[test]
fn apply_outcome_is_absent_at_v4_and_present_at_v5() {
    assert!(apply().to_wire(v(4)).outcome.is_none());
    let v5 = apply().to_wire(v(5));
    assert_eq!(
        v5.outcome.unwrap().mutation,
        pb::ApplyMutation::Changed as i32
    );
}

#[test]
fn gated_fields_sent_below_their_version_are_dropped_when_parsed() {
    // A peer that does not gate v3's PolicyView (spec §5: "we gate all three").
    let wire = status().to_wire(v(5));
    let parsed = StatusView::from_wire(&wire, v(2)).unwrap();
    assert_eq!(parsed.policy, None);
    assert_eq!(StatusView::from_wire(&wire, v(3)).unwrap(), status());
    let wire = apply().to_wire(v(5));
    assert_eq!(ApplyView::from_wire(&wire, v(4)).unwrap().outcome, None);
}

#[test]
fn views_round_trip_at_every_version_minus_gated_fields() {
    for version in (1..=5).map(v) {
        let st = StatusView::from_wire(&status().to_wire(version), version).unwrap();
        assert_eq!(st.policy.is_some(), version.has(POLICY_SINCE));
        let ap = ApplyView::from_wire(&apply().to_wire(version), version).unwrap();
        assert_eq!(ap.outcome.is_some(), version.has(APPLY_OUTCOME_SINCE));
    }
}

#[test]
fn a_response_for_another_verb_is_refused() {
    let resp = VerbResult::Status(status()).into_response(1, v(5));
    assert!(matches!(
        VerbResult::from_response(Verb::Verify, &resp, v(5)),
        Err(ResponseError::VerbMismatch {
            expected: Verb::Verify,
            got: 4
        })
    ));
}

#[test]
fn a_response_with_two_views_or_none_is_refused() {
    let mut resp = VerbResult::Status(status()).into_response(1, v(5));
    resp.tool_list = Some(tool_list().to_wire(v(5)));
    assert!(matches!(
        VerbResult::from_response(Verb::Status, &resp, v(5)),
        Err(ResponseError::ViewCount { set: 2, .. })
    ));
    let empty = pb::Response {
        request_id: 1,
        verb: pb::Verb::Status as i32,
        ..Default::default()
    };
    assert!(matches!(
        VerbResult::from_response(Verb::Status, &empty, v(5)),
        Err(ResponseError::ViewCount { set: 0, .. })
    ));
}

#[test]
fn a_response_with_the_wrong_single_view_is_refused() {
    let mut resp = VerbResult::Status(status()).into_response(1, v(5));
    resp.verification = resp
        .status
        .take()
        .map(|_| Box::new(verification().to_wire(v(5))));
    assert!(matches!(
        VerbResult::from_response(Verb::Status, &resp, v(5)),
        Err(ResponseError::WrongView {
            expected: Verb::Status
        })
    ));
}

#[test]
fn a_view_token_outside_its_vocabulary_is_a_typed_error_that_lists_tokens() {
    let mut wire = status().to_wire(v(5));
    wire.phase = "INSTALLED; rm -rf ~".into();
    let err = StatusView::from_wire(&wire, v(5)).unwrap_err();
    let ViewError::OutsideVocabulary(e) = err else {
        panic!("{err:?}")
    };
    assert_eq!(e.field, "status.phase");
    assert_eq!(e.accepted, Phase::TOKENS);
    let msg = err.to_string();
    assert!(msg.contains("removal_pending"), "{msg}");
    assert!(!msg.contains("rm -rf"), "{msg}");
}

#[test]
fn an_evidence_outcome_must_come_from_its_kinds_vocabulary() {
    let mut wire = status().to_wire(v(5));
    wire.evidence[0].outcome = "healthy".into(); // a host_attested outcome on read_back
    let read = StatusView::from_wire(&wire, v(5)).unwrap();
    assert_eq!(read.evidence.len(), wire.evidence.len() - 1);
    let [u] = read.unrecognized.as_slice() else {
        panic!("{:?}", read.unrecognized)
    };
    assert_eq!(u.field.as_str(), "evidence[0].outcome");
    assert!(
        matches!(u.refusal, ViewError::OutsideVocabulary(e) if e.accepted == ReadBackOutcome::TOKENS),
        "{u:?}"
    );
    let mut wire = status().to_wire(v(5));
    wire.evidence[3].outcome = String::new();
    let read = StatusView::from_wire(&wire, v(5)).unwrap();
    assert_eq!(read.unrecognized[0].field.as_str(), "evidence[3].outcome");
    assert!(matches!(
        read.unrecognized[0].refusal,
        ViewError::MissingField { .. }
    ));
}

#[test]
fn every_unreadable_status_field_is_named_and_the_rest_stays_usable() {
    let good = status();
    assert!(good.next_level.is_some() && good.policy.is_some());
    assert_eq!(good.drift_mismatched.len(), 2);
    let mut wire = good.to_wire(v(5));
    // Another implementation's reason phrase where §4 asks for a snake_case token.
    wire.evidence[3].outcome = "no host enforcement layer on this platform".into();
    wire.evidence[1].kind = "attested_by_host".into();
    wire.drift_mismatched.push("not a key; at all".into());
    wire.planned_level = "fully_protected".into();
    if let Some(p) = wire.policy.as_mut() {
        p.state = "Enforced".into();
    }
    if let Some(n) = wire.next_level.as_mut() {
        n.level = "next".into();
    }
    let read = StatusView::from_wire(&wire, v(5)).unwrap();
    let fields: Vec<&str> = read.unrecognized.iter().map(|u| u.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "planned_level",
            "evidence[1].kind",
            "evidence[3].outcome",
            "next_level",
            "drift_mismatched[2]",
            "policy",
        ]
    );
    // What could be read is there, unchanged.
    assert_eq!(read.tool_id, good.tool_id);
    assert_eq!(read.state, good.state);
    assert_eq!(read.evidence.len(), good.evidence.len() - 2);
    assert_eq!(read.drift_mismatched, good.drift_mismatched);
    assert_eq!(read.planned_level, None);
    // No marker echoes what the peer sent.
    for u in &read.unrecognized {
        let shown = u.to_string();
        assert!(!shown.contains("no host enforcement"), "{shown}");
        assert!(!shown.contains("fully_protected"), "{shown}");
    }
    // A structural field still fails the whole view, typed.
    wire.state = "green".into();
    assert!(matches!(
        StatusView::from_wire(&wire, v(5)),
        Err(ViewError::OutsideVocabulary(e)) if e.field == "status.state"
    ));
}

#[test]
fn a_repair_names_its_unreadable_entries_and_its_status_keeps_its_own() {
    let mut wire = repair().to_wire(v(5));
    wire.repaired.push("bad key".into());
    wire.status.as_mut().unwrap().evidence[0].kind = "other".into();
    let read = RepairView::from_wire(&wire, v(5)).unwrap();
    assert_eq!(read.repaired, repair().repaired);
    let at = format!("repaired[{}]", repair().repaired.len());
    assert_eq!(
        read.unrecognized
            .iter()
            .map(|u| u.field.as_str())
            .collect::<Vec<_>>(),
        [at.as_str()]
    );
    assert_eq!(
        read.status.unrecognized[0].field.as_str(),
        "evidence[0].kind"
    );
}

#[test]
fn malformed_ids_and_missing_fields_are_refused_without_echo() {
    let mut wire = plan().to_wire(v(5));
    wire.plan_id = "ghp_notAPlanId".into();
    let err = PlanView::from_wire(&wire, v(5)).unwrap_err();
    assert!(matches!(
        err,
        ViewError::MalformedField {
            field: "plan.plan_id",
            ..
        }
    ));
    assert!(!err.to_string().contains("ghp_"));

    let mut wire = plan().to_wire(v(5));
    wire.steps[0].summary.clear();
    assert_eq!(
        PlanView::from_wire(&wire, v(5)).unwrap_err(),
        ViewError::MissingField {
            field: "step.summary"
        }
    );

    let mut wire = repair().to_wire(v(5));
    wire.status = None;
    assert_eq!(
        RepairView::from_wire(&wire, v(5)).unwrap_err(),
        ViewError::MissingField {
            field: "repair.status"
        }
    );

    let mut wire = apply().to_wire(v(5));
    wire.outcome.as_mut().unwrap().mutation = 0;
    assert!(matches!(
        ApplyView::from_wire(&wire, v(5)),
        Err(ViewError::UnknownEnumValue { value: 0, .. })
    ));
}

#[test]
fn credential_shaped_text_from_a_peer_is_replaced_by_the_placeholder() {
    let mut wire = status().to_wire(v(5));
    wire.state_reason = "key is sk-ant-api03-AbCdEfGh12345678".into();
    wire.state_remediation = "line one\nline two".into();
    let parsed = StatusView::from_wire(&wire, v(5)).unwrap();
    assert_eq!(
        parsed.state_reason.unwrap().as_str(),
        CREDENTIAL_PLACEHOLDER
    );
    assert_eq!(
        parsed.state_remediation.unwrap().as_str(),
        SHAPE_PLACEHOLDER
    );
}

#[test]
fn key_names_on_the_wire_cannot_smuggle_values() {
    let mut wire = status().to_wire(v(5));
    wire.drift_mismatched = vec!["env.ANTHROPIC_API_KEY=sk-ant-xyz".into()];
    let read = StatusView::from_wire(&wire, v(5)).unwrap();
    // The smuggled value is not kept anywhere in the view: only its position is named.
    assert!(read.drift_mismatched.is_empty());
    assert_eq!(read.unrecognized.len(), 1);
    assert_eq!(read.unrecognized[0].field.as_str(), "drift_mismatched[0]");
    assert!(matches!(
        read.unrecognized[0].refusal,
        ViewError::MalformedField {
            field: "status.drift_mismatched",
            ..
        }
    ));
    assert!(!format!("{read:?}").contains("sk-ant"));
}

#[test]
fn optional_text_and_ids_are_empty_strings_on_the_wire() {
    let mut st = status();
    st.planned_level = None;
    st.state_reason = None;
    st.next_level = None;
    let wire = st.to_wire(v(5));
    assert_eq!(wire.planned_level, "");
    assert_eq!(wire.state_reason, "");
    assert!(wire.next_level.is_none());
    assert_eq!(StatusView::from_wire(&wire, v(5)).unwrap(), st);
}

#[test]
fn an_apply_mutation_number_this_build_does_not_know_is_kept_as_unknown() {
    let mut wire = apply().to_wire(v(5));
    wire.outcome.as_mut().unwrap().mutation = 7;
    let read = ApplyView::from_wire(&wire, v(5)).unwrap();
    assert_eq!(
        read.outcome.as_ref().unwrap().mutation,
        ApplyMutation::Unknown(7)
    );
    // Written back as received; shown as a token.
    assert_eq!(read.to_wire(v(5)), wire);
    assert_eq!(
        serde_json::to_value(ApplyMutation::Unknown(7)).unwrap(),
        serde_json::json!("unknown")
    );
    assert_eq!(
        serde_json::to_value(ApplyMutation::Changed).unwrap(),
        serde_json::json!("changed")
    );
}

#[test]
fn a_verification_names_its_unreadable_entries_and_keeps_the_rest() {
    let good = verification();
    let mut wire = good.to_wire(v(5));
    wire.missing.push("Not A Mechanism".into());
    wire.evidence[0].outcome = "looked fine to us".into();
    let read = VerificationView::from_wire(&wire, v(5)).unwrap();
    assert_eq!(read.outcome, good.outcome);
    assert_eq!(read.missing, good.missing);
    assert_eq!(read.evidence.len(), good.evidence.len() - 1);
    let fields: Vec<&str> = read.unrecognized.iter().map(|u| u.field.as_str()).collect();
    let at = format!("missing[{}]", good.missing.len());
    assert_eq!(fields, [at.as_str(), "evidence[0].outcome"]);
    wire.outcome = "ok".into();
    assert!(VerificationView::from_wire(&wire, v(5)).is_err());
}
