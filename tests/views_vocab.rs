//! The string vocabularies are exactly spec §4's tables, and refusals list the accepted
//! tokens without echoing the input.

use devint::verbs::*;

#[test]
fn vocabularies_are_exactly_the_spec_tables() {
    assert_eq!(Profile::TOKENS, ["recommended", "strict", "observe_only"]);
    assert_eq!(SettingsScope::TOKENS, ["user", "project", "managed"]);
    assert_eq!(
        Level::TOKENS,
        [
            "not_installed",
            "detected_not_integrated",
            "partially_integrated",
            "integrated",
            "gateway_protected",
            "host_enforced"
        ]
    );
    assert_eq!(
        AdapterCeiling::TOKENS,
        ["l0_discover", "l1_observe", "l2_enforce", "l3_native"]
    );
    assert_eq!(
        StatusState::TOKENS,
        ["ladder", "drifted", "degraded", "incompatible"]
    );
    assert_eq!(
        Phase::TOKENS,
        [
            "not_installed",
            "detected_not_integrated",
            "planned",
            "installed",
            "partially_installed",
            "removal_pending"
        ]
    );
    assert_eq!(
        CapabilityName::TOKENS,
        [
            "discovery",
            "managed_settings",
            "managed_launch",
            "model_path_interception",
            "model_gateway_base_url",
            "http_proxy",
            "hooks",
            "mcp_discovery",
            "mcp_governance",
            "tool_action_approval",
            "native_ide_ui",
            "host_enforcement"
        ]
    );
    assert_eq!(
        Support::TOKENS,
        ["supported", "unsupported", "requires_version", "absent"]
    );
    assert_eq!(
        Compatibility::TOKENS,
        ["compatible", "unknown", "incompatible"]
    );
    assert_eq!(Requirement::TOKENS, ["required", "optional"]);
    assert_eq!(Privilege::TOKENS, ["user", "privileged_host"]);
    assert_eq!(
        ActionKind::TOKENS,
        [
            "write_managed_settings",
            "install_hook",
            "remove_hook",
            "configure_model_gateway_base_url",
            "configure_proxy",
            "materialise_trust_material",
            "inject_launch_environment",
            "configure_mcp_servers",
            "register_ide_client",
            "connect_local_runtime",
            "run_protection_test",
            "manage_artifact"
        ]
    );
    assert_eq!(StepOutcome::TOKENS, ["applied", "skipped", "failed"]);
    assert_eq!(
        EvidenceKind::TOKENS,
        ["read_back", "exercised", "host_attested", "absent"]
    );
    assert_eq!(ReadBackOutcome::TOKENS, ["matched", "mismatched"]);
    assert_eq!(
        ExercisedOutcome::TOKENS,
        [
            "blocked",
            "redacted",
            "observed_only",
            "leaked",
            "inconclusive"
        ]
    );
    assert_eq!(HostAttestedOutcome::TOKENS, ["healthy", "unhealthy"]);
    assert_eq!(
        VerificationOutcome::TOKENS,
        ["passed", "partially_passed", "failed", "unverifiable"]
    );
    assert_eq!(
        PolicyState::TOKENS,
        [
            "enforced",
            "permissive",
            "unconfigured",
            "load_failed",
            "unknown"
        ]
    );
    assert_eq!(
        VerdictKind::TOKENS,
        ["allow", "deny", "redacted", "approval_required"]
    );
    assert_eq!(UserInput::TOKENS, ["approve", "deny", "defer"]);
}

macro_rules! round_trips {
    ($($t:ty),+) => {$(
        assert_eq!(<$t>::ALL.len(), <$t>::TOKENS.len());
        for (v, tok) in <$t>::ALL.iter().zip(<$t>::TOKENS) {
            assert_eq!(v.token(), *tok);
            assert_eq!(<$t>::parse(tok), Ok(*v));
            assert_eq!(v.to_string(), *tok);
            // Exact match only: no case folding, no whitespace trimming.
            assert!(<$t>::parse(&tok.to_uppercase()).is_err());
            assert!(<$t>::parse(&format!(" {tok}")).is_err());
        }
    )+};
}

#[test]
fn every_token_round_trips_and_nothing_else_parses() {
    round_trips!(
        Profile,
        SettingsScope,
        Level,
        AdapterCeiling,
        StatusState,
        Phase,
        CapabilityName,
        Support,
        Compatibility,
        Requirement,
        Privilege,
        ActionKind,
        StepOutcome,
        EvidenceKind,
        ReadBackOutcome,
        ExercisedOutcome,
        HostAttestedOutcome,
        VerificationOutcome,
        PolicyState,
        VerdictKind,
        UserInput
    );
}

#[test]
fn the_ladder_orders_lowest_first() {
    let mut sorted = Level::ALL.to_vec();
    sorted.sort();
    assert_eq!(sorted, Level::ALL);
    assert!(Level::NotInstalled < Level::HostEnforced);
    assert!(AdapterCeiling::L0Discover < AdapterCeiling::L3Native);
}

#[test]
fn refusal_lists_accepted_tokens_and_never_echoes_input() {
    let hostile = "ghp_1234567890abcdefghijklmnop\n\u{1b}]0;pwned\u{7}";
    let err = UserInput::parse_as(hostile, "approval.user_input").unwrap_err();
    assert_eq!(err.field, "approval.user_input");
    assert_eq!(err.got_len, hostile.len());
    assert_eq!(err.accepted, UserInput::TOKENS);
    for text in [err.to_string(), err.remediation()] {
        assert!(text.contains("approve, deny, defer"), "{text}");
        assert!(!text.contains("ghp_"), "{text}");
        assert!(!text.contains("pwned"), "{text}");
        assert!(!text.contains('\n') && !text.contains('\u{1b}'), "{text}");
    }
}

#[test]
fn empty_defaults_are_only_where_the_spec_says() {
    assert_eq!(Level::parse_requested(""), Ok(Level::GatewayProtected));
    // `RuntimeProvenance.build_id_source`: empty (and anything outside the vocabulary) is
    // `absent`, read by the provenance module.
    assert_eq!(
        devint::provenance::BuildIdSource::from_token(""),
        devint::provenance::BuildIdSource::Absent
    );
    assert!(Level::parse("").is_err());
    assert!(Profile::parse("").is_err());
    assert!(SettingsScope::parse("").is_err());
}

#[test]
fn vocabularies_serialise_as_their_tokens() {
    assert_eq!(
        serde_json::to_string(&Level::GatewayProtected).unwrap(),
        "\"gateway_protected\""
    );
    assert_eq!(
        serde_json::to_string(&ApplyMutation::Unchanged).unwrap(),
        "\"unchanged\""
    );
}
