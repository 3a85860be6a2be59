//! Typed verb calls: parsing requests, refusals mapped to deny codes, and the client's
//! `to_request` round trip.

use devint::time::UnixSecs;
use devint::verbs::*;
use devint::wire::pb;

const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn tool() -> ToolId {
    ToolId::parse("codex").unwrap()
}

fn sample_calls() -> Vec<VerbCall> {
    vec![
        VerbCall::ListTools,
        VerbCall::Plan {
            tool: tool(),
            args: PlanArgs {
                profile: Profile::Strict,
                requested_level: Level::Integrated,
                scope: SettingsScope::Project,
                allow_privileged_host_steps: true,
                policy_profile_id: Some(PolicyProfileId::parse("team-default").unwrap()),
            },
        },
        VerbCall::Apply {
            tool: tool(),
            plan_id: PlanId::random(),
        },
        VerbCall::Status { tool: tool() },
        VerbCall::Verify { tool: tool() },
        VerbCall::Repair { tool: tool() },
        VerbCall::Remove {
            tool: tool(),
            plan_id: None,
        },
        VerbCall::Remove {
            tool: tool(),
            plan_id: Some(PlanId::random()),
        },
        VerbCall::ScopedEvents {
            tool: tool(),
            limit: 50,
            since: UnixSecs::new(1_700_000_000),
        },
        VerbCall::ApprovalRelay {
            tool: tool(),
            approval_id: ApprovalId::random(),
            input: UserInput::Approve,
        },
    ]
}

fn plan_request(args: pb::PlanArgs) -> pb::Request {
    pb::Request {
        request_id: 9,
        verb: pb::Verb::Plan as i32,
        capability_token: TOKEN.into(),
        tool_id: "codex".into(),
        plan: Some(args),
        ..Default::default()
    }
}

fn good_plan_args() -> pb::PlanArgs {
    pb::PlanArgs {
        profile: "recommended".into(),
        requested_level: "integrated".into(),
        settings_scope: "user".into(),
        allow_privileged_host_steps: false,
        policy_profile_id: String::new(),
    }
}

#[test]
fn every_call_round_trips_through_a_request() {
    for call in sample_calls() {
        let req = call.to_request(42, TOKEN);
        assert_eq!(req.request_id, 42);
        assert_eq!(req.capability_token, TOKEN);
        assert_eq!(req.verb, call.verb().to_wire() as i32);
        assert_eq!(VerbCall::parse(call.verb(), &req), Ok(call.clone()));
        assert_eq!(call.tool().is_some(), call.verb() != Verb::ListTools);
    }
}

#[test]
fn empty_requested_level_means_gateway_protected() {
    let req = plan_request(pb::PlanArgs {
        requested_level: String::new(),
        ..good_plan_args()
    });
    let VerbCall::Plan { args, .. } = VerbCall::parse(Verb::Plan, &req).unwrap() else {
        panic!()
    };
    assert_eq!(args.requested_level, Level::GatewayProtected);
    assert_eq!(args.policy_profile_id, None);
}

#[test]
fn plan_without_settings_scope_is_refused_never_inferred() {
    let req = plan_request(pb::PlanArgs {
        settings_scope: String::new(),
        ..good_plan_args()
    });
    let err = VerbCall::parse(Verb::Plan, &req).unwrap_err();
    assert_eq!(err, CallError::MissingSettingsScope);
    assert_eq!(err.deny_code(), pb::DenyCode::LifecycleError);
    assert_eq!(
        err.remediation(),
        "set settings_scope to one of: user, project, managed"
    );

    let mut req = plan_request(good_plan_args());
    req.plan = None;
    assert_eq!(
        VerbCall::parse(Verb::Plan, &req),
        Err(CallError::MissingSettingsScope)
    );
}

#[test]
fn an_argument_outside_its_vocabulary_is_a_lifecycle_error_listing_accepted_tokens() {
    let hostile = "Managed\u{1b}[31m sk-ant-api03-zzzzzzzzzzzz";
    let req = plan_request(pb::PlanArgs {
        settings_scope: hostile.into(),
        ..good_plan_args()
    });
    let err = VerbCall::parse(Verb::Plan, &req).unwrap_err();
    assert_eq!(err.deny_code(), pb::DenyCode::LifecycleError);
    let remediation = err.remediation();
    assert!(
        remediation.contains("user, project, managed"),
        "{remediation}"
    );
    for text in [err.to_string(), remediation] {
        assert!(!text.contains("sk-ant"), "{text}");
        assert!(!text.contains("Managed"), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
    }

    // Tokens are exact: case matters.
    let req = plan_request(pb::PlanArgs {
        profile: "Strict".into(),
        ..good_plan_args()
    });
    assert!(matches!(
        VerbCall::parse(Verb::Plan, &req),
        Err(CallError::OutsideVocabulary(OutsideVocabulary {
            field: "plan.profile",
            got_len: 6,
            ..
        }))
    ));

    let req = plan_request(pb::PlanArgs {
        requested_level: "level_9000".into(),
        ..good_plan_args()
    });
    let err = VerbCall::parse(Verb::Plan, &req).unwrap_err();
    assert!(err
        .remediation()
        .contains("not_installed, detected_not_integrated"));
}

#[test]
fn approval_input_outside_its_vocabulary_is_refused() {
    let mut req = VerbCall::ApprovalRelay {
        tool: tool(),
        approval_id: ApprovalId::random(),
        input: UserInput::Deny,
    }
    .to_request(1, TOKEN);
    req.approval.as_mut().unwrap().user_input = "allow_always".into();
    let err = VerbCall::parse(Verb::ApprovalRelay, &req).unwrap_err();
    assert_eq!(err.deny_code(), pb::DenyCode::LifecycleError);
    assert!(err.remediation().contains("approve, deny, defer"));

    req.approval.as_mut().unwrap().user_input.clear();
    assert!(matches!(
        VerbCall::parse(Verb::ApprovalRelay, &req),
        Err(CallError::MissingArgument {
            field: "approval.user_input",
            ..
        })
    ));
}

#[test]
fn a_missing_or_malformed_tool_id_maps_to_unknown_tool() {
    for (tool_id, verb) in [
        ("", Verb::Status),
        ("Codex", Verb::Verify),
        ("../etc", Verb::Repair),
    ] {
        let req = pb::Request {
            verb: verb.to_wire() as i32,
            tool_id: tool_id.into(),
            ..Default::default()
        };
        let err = VerbCall::parse(verb, &req).unwrap_err();
        assert_eq!(err.deny_code(), pb::DenyCode::UnknownTool, "{tool_id:?}");
        assert!(!err.remediation().is_empty());
    }
}

#[test]
fn list_tools_ignores_tool_id() {
    let req = pb::Request {
        verb: pb::Verb::ListTools as i32,
        tool_id: "whatever".into(),
        ..Default::default()
    };
    assert_eq!(
        VerbCall::parse(Verb::ListTools, &req),
        Ok(VerbCall::ListTools)
    );
}

#[test]
fn apply_needs_a_well_formed_plan_id() {
    let mut req = pb::Request {
        verb: pb::Verb::Apply as i32,
        tool_id: "codex".into(),
        ..Default::default()
    };
    assert!(matches!(
        VerbCall::parse(Verb::Apply, &req),
        Err(CallError::MissingArgument {
            field: "apply.plan_id",
            ..
        })
    ));
    // Ids are opaque (spec §3): another implementation's form is parsed byte for byte;
    // whether the backend knows it is the backend's answer, not the parser's.
    for theirs in [
        "1700000000",
        "plan-1",
        "550e8400-e29b-41d4-a716-446655440000",
    ] {
        req.apply = Some(pb::ApplyArgs {
            plan_id: theirs.into(),
        });
        match VerbCall::parse(Verb::Apply, &req) {
            Ok(VerbCall::Apply { plan_id, .. }) => assert_eq!(plan_id.as_str(), theirs),
            other => panic!("{theirs}: {other:?}"),
        }
    }
    for bad in [
        "plan 1",
        "plan\u{7}1",
        "ghp_1234567890abcdefghij",
        &"p".repeat(129),
    ] {
        req.apply = Some(pb::ApplyArgs {
            plan_id: bad.into(),
        });
        let err = VerbCall::parse(Verb::Apply, &req).unwrap_err();
        assert!(matches!(
            err,
            CallError::MalformedArgument {
                field: "apply.plan_id",
                ..
            }
        ));
        assert!(
            err.remediation().contains("printable ASCII"),
            "{}",
            err.remediation()
        );
        assert!(!err.to_string().contains(bad));
        assert!(!err.remediation().contains(bad));
    }
}

#[test]
fn remove_without_a_plan_id_previews_and_with_one_executes() {
    let mut req = pb::Request {
        verb: pb::Verb::Remove as i32,
        tool_id: "codex".into(),
        ..Default::default()
    };
    assert!(matches!(
        VerbCall::parse(Verb::Remove, &req),
        Ok(VerbCall::Remove { plan_id: None, .. })
    ));
    req.remove = Some(pb::RemoveArgs::default());
    assert!(matches!(
        VerbCall::parse(Verb::Remove, &req),
        Ok(VerbCall::Remove { plan_id: None, .. })
    ));
    let id = PlanId::random();
    req.remove = Some(pb::RemoveArgs {
        plan_id: id.as_str().into(),
    });
    assert_eq!(
        VerbCall::parse(Verb::Remove, &req),
        Ok(VerbCall::Remove {
            tool: tool(),
            plan_id: Some(id)
        })
    );
}

#[test]
fn scoped_events_without_args_means_defaults() {
    let req = pb::Request {
        verb: pb::Verb::ScopedEvents as i32,
        tool_id: "codex".into(),
        ..Default::default()
    };
    assert_eq!(
        VerbCall::parse(Verb::ScopedEvents, &req),
        Ok(VerbCall::ScopedEvents {
            tool: tool(),
            limit: 0,
            since: UnixSecs::EPOCH
        })
    );
}

#[test]
fn requested_tool_is_none_only_for_list_tools() {
    for call in sample_calls() {
        let req = call.to_request(1, TOKEN);
        assert_eq!(
            VerbCall::requested_tool(call.verb(), &req)
                .unwrap()
                .as_ref(),
            call.tool()
        );
    }
    let req = pb::Request {
        verb: pb::Verb::Status as i32,
        tool_id: "NOT A TOOL".into(),
        ..Default::default()
    };
    assert_eq!(
        VerbCall::requested_tool(Verb::Status, &req)
            .unwrap_err()
            .deny_code(),
        pb::DenyCode::UnknownTool
    );
}
