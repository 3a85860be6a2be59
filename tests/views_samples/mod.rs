//! Fully populated sample views shared by the `views_*` tests.
#![allow(dead_code)]

pub use devint::time::UnixSecs;
use devint::verbs::*;
pub use devint::version::ApiVersion;

/// DI-API version `n`.
pub fn v(n: u32) -> ApiVersion {
    ApiVersion::new(n)
}

pub fn s(text: &str) -> Sentence {
    Sentence::new(text).expect("sample sentence")
}

pub fn tool() -> ToolId {
    ToolId::parse("claude-code").unwrap()
}

pub fn digest(byte: &str) -> Digest {
    Digest::parse(&byte.repeat(32)).unwrap()
}

pub fn policy() -> PolicyView {
    PolicyView {
        state: PolicyState::Enforced,
        source: Some(s("runtime policy bundle")),
        detail: Some(s("3 rules active")),
    }
}

pub fn evidence() -> Vec<EvidenceView> {
    vec![
        EvidenceView {
            mechanism: CapabilityName::ManagedSettings.into(),
            evidence: Evidence::ReadBack(ReadBackOutcome::Matched),
            observed_at_unix_secs: UnixSecs::new(1_700_000_000),
            detail: Some(s("read back env.ANTHROPIC_BASE_URL")),
        },
        EvidenceView {
            mechanism: CapabilityName::ModelGatewayBaseUrl.into(),
            evidence: Evidence::Exercised(ExercisedOutcome::Inconclusive),
            observed_at_unix_secs: UnixSecs::new(1_700_000_001),
            detail: None,
        },
        EvidenceView {
            mechanism: CapabilityName::HostEnforcement.into(),
            evidence: Evidence::HostAttested(HostAttestedOutcome::Unhealthy),
            observed_at_unix_secs: UnixSecs::new(1_700_000_002),
            detail: None,
        },
        EvidenceView {
            mechanism: MechanismName::parse("gateway_probe").unwrap(),
            evidence: Evidence::Absent(AbsentReason::parse("no_probe_configured").unwrap()),
            observed_at_unix_secs: UnixSecs::new(1_700_000_003),
            detail: Some(s("No gateway probe is configured.")),
        },
    ]
}

pub fn status() -> StatusView {
    StatusView {
        tool_id: tool(),
        phase: Phase::Installed,
        state: StatusState::Drifted,
        achieved_level: Level::Integrated,
        planned_level: Some(Level::GatewayProtected),
        adapter_ceiling: AdapterCeiling::L2Enforce,
        compatibility: Compatibility::Compatible,
        evidence: evidence(),
        next_level: Some(NextLevelView {
            level: Level::GatewayProtected,
            blocked_because: Some(s("no exercised probe was observed by a gateway")),
        }),
        observed_at_unix_secs: UnixSecs::new(1_700_000_010),
        drift_mismatched: vec![
            ManagedRef::parse("env.ANTHROPIC_BASE_URL").unwrap(),
            ManagedRef::parse("~/.claude/hooks/aa-hook").unwrap(),
        ],
        state_reason: Some(s("env.ANTHROPIC_BASE_URL no longer matches the receipt")),
        state_remediation: Some(s("run `devint repair claude-code`")),
        policy: Some(policy()),
        unrecognized: Vec::new(),
    }
}

pub fn step(id: &str) -> StepView {
    StepView {
        id: StepId::parse(id).unwrap(),
        summary: s("Point Claude Code at the local gateway."),
        action_kind: ActionKind::ConfigureModelGatewayBaseUrl,
        requirement: Requirement::Required,
        privilege: Privilege::User,
        consent_prompt: None,
        settings_scope: SettingsScope::User,
        managed_keys: vec![KeyName::parse("env.ANTHROPIC_BASE_URL").unwrap()],
        artifact_paths: vec![ArtifactPath::parse("~/.claude/settings.json").unwrap()],
        content_sha256: Some(digest("ab")),
        reversible: true,
    }
}

pub fn privileged_step() -> StepView {
    StepView {
        id: StepId::parse("trust-ca").unwrap(),
        summary: s("Add the gateway CA to the user trust store."),
        action_kind: ActionKind::MaterialiseTrustMaterial,
        requirement: Requirement::Optional,
        privilege: Privilege::PrivilegedHost,
        consent_prompt: Some(s(
            "Allow devint to add a CA certificate to your trust store?",
        )),
        settings_scope: SettingsScope::Managed,
        managed_keys: vec![],
        artifact_paths: vec![ArtifactPath::parse("/etc/ssl/certs/aa-gateway.pem").unwrap()],
        content_sha256: None,
        reversible: false,
    }
}

pub fn unsupported() -> UnsupportedMechanismView {
    UnsupportedMechanismView {
        capability: CapabilityName::NativeIdeUi,
        reason: s("Claude Code has no IDE extension surface."),
    }
}

pub fn tool_list() -> ToolList {
    ToolList {
        tools: vec![ToolSummary {
            tool_id: tool(),
            display_name: s("Claude Code"),
            detected: true,
            detected_version: Some(VersionLabel::parse("2.0.14").unwrap()),
            compatibility: Compatibility::Compatible,
            capabilities: CapabilityName::ALL
                .iter()
                .map(|&capability| CapabilityView {
                    capability,
                    support: if capability == CapabilityName::NativeIdeUi {
                        Support::Unsupported
                    } else {
                        Support::Supported
                    },
                    reason: (capability == CapabilityName::NativeIdeUi)
                        .then(|| s("no IDE extension surface")),
                })
                .collect(),
            adapter_ceiling: AdapterCeiling::L2Enforce,
        }],
    }
}

pub fn plan() -> PlanView {
    PlanView {
        schema_version: 1,
        plan_id: PlanId::random(),
        tool_id: tool(),
        profile: Profile::Recommended,
        settings_scope: SettingsScope::User,
        policy_profile: Some(PolicyProfileRefView {
            id: PolicyProfileId::parse("default").unwrap(),
            display_name: s("Default policy"),
            digest: digest("cd"),
        }),
        planned_level: Level::Integrated,
        adapter_ceiling: AdapterCeiling::L2Enforce,
        steps: vec![step("s1"), privileged_step()],
        unsupported: vec![unsupported()],
        warnings: vec![s("Restart Claude Code after applying.")],
    }
}

pub fn apply() -> ApplyView {
    ApplyView {
        plan_id: PlanId::random(),
        receipt_id: ReceiptId::random(),
        applied_at_unix_secs: UnixSecs::new(1_700_000_100),
        steps: vec![
            StepOutcomeView {
                step_id: StepId::parse("s1").unwrap(),
                outcome: StepOutcome::Applied,
                fingerprint: Some(digest("ef")),
            },
            StepOutcomeView {
                step_id: StepId::parse("trust-ca").unwrap(),
                outcome: StepOutcome::Skipped,
                fingerprint: None,
            },
        ],
        planned_level: Level::Integrated,
        achieved_level: Level::Integrated,
        outcome: Some(ApplyOutcomeView {
            mutation: ApplyMutation::Changed,
            detail: Some(s("1 step applied, 1 skipped")),
        }),
    }
}

pub fn verification() -> VerificationView {
    VerificationView {
        verified_at_unix_secs: UnixSecs::new(1_700_000_200),
        outcome: VerificationOutcome::PartiallyPassed,
        missing: vec![CapabilityName::HttpProxy.into()],
        reason: Some(s("the proxy was not exercised")),
        evidence: evidence(),
        policy: Some(policy()),
        unrecognized: Vec::new(),
    }
}

pub fn repair() -> RepairView {
    RepairView {
        tool_id: tool(),
        repaired: vec![ManagedRef::parse("env.ANTHROPIC_BASE_URL").unwrap()],
        unrepairable: vec![unsupported()],
        status: status(),
        unrecognized: Vec::new(),
    }
}

pub fn removal() -> RemovalView {
    RemovalView {
        schema_version: 1,
        plan_id: PlanId::random(),
        tool_id: tool(),
        steps: vec![step("undo-s1")],
        residual: vec![ManagedRef::parse("env.ANTHROPIC_API_KEY").unwrap()],
        warnings: vec![s(
            "env.ANTHROPIC_API_KEY was withheld and stays as you left it.",
        )],
    }
}

pub fn events() -> ScopedEventList {
    ScopedEventList {
        events: vec![ScopedEvent {
            occurred_at_unix_secs: UnixSecs::new(1_700_000_300),
            verdict_kind: VerdictKind::Redacted,
            mechanism: CapabilityName::ModelGatewayBaseUrl.into(),
            count: 3,
            redaction_labels: vec![
                RedactionLabel::parse("aws_access_key").unwrap(),
                RedactionLabel::parse("pii.email").unwrap(),
            ],
        }],
    }
}

pub fn approval() -> ApprovalRelayAck {
    ApprovalRelayAck {
        approval_id: ApprovalId::random(),
        relayed_input: UserInput::Defer,
        accepted_at_unix_secs: UnixSecs::new(1_700_000_400),
    }
}

/// One result per verb, in verb order.
pub fn all_results() -> Vec<VerbResult> {
    vec![
        VerbResult::ListTools(tool_list()),
        VerbResult::Plan(plan()),
        VerbResult::Apply(apply()),
        VerbResult::Status(status()),
        VerbResult::Verify(verification()),
        VerbResult::Repair(repair()),
        VerbResult::Remove(removal()),
        VerbResult::ScopedEvents(events()),
        VerbResult::ApprovalRelay(approval()),
    ]
}
