//! The reference backend end to end, driven through the session core on a sandboxed HOME
//! with a fake `claude` on PATH: plan → apply → status → verify → drift → repair → remove,
//! plan binding, receipts, the ladder, events and approvals.

#![cfg(feature = "test-support")]

mod lifecycle_support;

use std::time::Duration;

use devint::time::UnixSecs;
use devint::verbs::{
    ApplyMutation, ApprovalId, Evidence, Level, ManagedRef, Phase, PolicyState, Privilege, Profile,
    SettingsScope, StatusState, UserInput, VerbCall, VerbResult, VerificationOutcome,
};
use devint::wire::pb::DenyCode;
use devint_runtime::reference::{ReferenceRuntime, WriteSite};
use lifecycle_support::*;
use serde_json::json;

const LIFECYCLE: i32 = DenyCode::LifecycleError as i32;

fn setup() -> (Sandbox, ReferenceRuntime, Client) {
    let sandbox = Sandbox::new();
    sandbox.write_settings(CLAUDE_SETTINGS);
    let rt = sandbox.open();
    let client = Client::new(&book(), "ide");
    (sandbox, rt, client)
}

#[test]
fn full_cycle_on_a_claude_code_settings_file_ends_byte_identical() {
    let (sb, rt, mut c) = setup();
    assert_eq!(c.status(&rt).achieved_level, Level::DetectedNotIntegrated);

    let plan = c.plan(&rt, "team");
    assert_eq!(
        sb.read_settings().unwrap(),
        CLAUDE_SETTINGS,
        "plan mutates nothing"
    );
    assert_eq!(plan.policy_profile.as_ref().unwrap().id.as_str(), "team");
    let keys: Vec<&str> = plan
        .steps
        .iter()
        .flat_map(|s| s.managed_keys.iter().map(|k| k.as_str()))
        .collect();
    assert!(keys.contains(&"env.ANTHROPIC_BASE_URL"), "{keys:?}");
    assert!(keys.contains(&"hooks.PreToolUse"), "{keys:?}");
    assert!(keys.contains(&"permissions.deny"), "{keys:?}");
    assert!(plan
        .steps
        .iter()
        .all(|s| s.privilege == Privilege::User && s.consent_prompt.is_none()));
    assert!(plan
        .steps
        .iter()
        .all(|s| s.content_sha256.is_some() && s.reversible));
    assert_eq!(
        plan.steps[0].artifact_paths[0].as_str(),
        "~/.claude/settings.json"
    );

    let applied = c.apply(&rt, &plan.plan_id).unwrap();
    assert_eq!(applied.outcome.unwrap().mutation, ApplyMutation::Changed);
    let v = json(&sb.settings());
    assert_eq!(
        v["env"]["ANTHROPIC_BASE_URL"],
        "http://127.0.0.1:8787/anthropic"
    );
    assert_eq!(v["env"]["DISABLE_TELEMETRY"], "1");
    assert_eq!(
        v["permissions"]["deny"],
        json!([
            "Read(./.env)",
            "Bash(curl *)",
            "PowerShell(curl *)",
            "WebFetch"
        ])
    );
    assert_eq!(v["model"], "claude-sonnet-4-5");
    let text = sb.read_settings().unwrap();
    assert!(
        text.starts_with("{\n   \"model\""),
        "indentation and order kept:\n{text}"
    );

    let s = c.status(&rt);
    assert_eq!(
        (s.state, s.achieved_level, s.phase),
        (
            StatusState::Ladder,
            Level::PartiallyIntegrated,
            Phase::Installed
        )
    );
    assert_eq!(s.next_level.unwrap().level, Level::Integrated);

    let verified = c.verify(&rt);
    assert_eq!(verified.outcome, VerificationOutcome::Passed);
    let s = c.status(&rt);
    assert_eq!(s.achieved_level, Level::Integrated);
    assert_eq!(s.policy.unwrap().state, PolicyState::Enforced);
    let next = s.next_level.unwrap();
    assert_eq!(next.level, Level::GatewayProtected);
    assert!(next
        .blocked_because
        .unwrap()
        .as_str()
        .contains("no protection probe"));

    // Drift: the user (or another tool) edits our key.
    let drifted = sb.read_settings().unwrap().replace(
        "http://127.0.0.1:8787/anthropic",
        "https://elsewhere.example",
    );
    sb.write_settings(&drifted);
    let s = c.status(&rt);
    assert_eq!(s.state, StatusState::Drifted);
    assert_eq!(
        s.achieved_level,
        Level::Integrated,
        "drifted carries the last rung held"
    );
    assert!(s
        .drift_mismatched
        .iter()
        .any(|m| m.as_str() == "env.ANTHROPIC_BASE_URL"));

    let repaired = match c.call(&rt, VerbCall::Repair { tool: claude() }).unwrap() {
        VerbResult::Repair(r) => r,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        repaired
            .repaired
            .iter()
            .map(ManagedRef::as_str)
            .collect::<Vec<_>>(),
        ["env.ANTHROPIC_BASE_URL"]
    );
    assert_eq!(repaired.status.state, StatusState::Ladder);
    assert_eq!(
        repaired.status.achieved_level,
        Level::PartiallyIntegrated,
        "repair needs a fresh verify"
    );
    assert_eq!(
        sb.read_settings().unwrap(),
        text,
        "repair restored exactly our key"
    );
    c.verify(&rt);
    assert_eq!(c.status(&rt).achieved_level, Level::Integrated);

    let preview = c.remove(&rt, None).unwrap();
    assert!(!preview.steps.is_empty());
    assert_eq!(
        c.status(&rt).phase,
        Phase::Installed,
        "a removal preview changes nothing status reports"
    );
    assert_eq!(
        sb.read_settings().unwrap(),
        text,
        "a removal preview mutates nothing"
    );
    let removed = c.remove(&rt, Some(preview.plan_id.clone())).unwrap();
    assert!(removed.residual.is_empty());
    assert_eq!(
        sb.read_settings().unwrap(),
        CLAUDE_SETTINGS,
        "byte-identical after removal"
    );
    assert!(sb.files("receipts").is_empty());
    assert!(sb.files("journal").is_empty());
    assert_eq!(c.status(&rt).achieved_level, Level::DetectedNotIntegrated);
}

#[test]
fn a_file_we_created_is_deleted_on_removal() {
    let sb = Sandbox::new();
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    assert!(sb.settings().exists());
    let removal = c.uninstall(&rt);
    assert!(removal
        .warnings
        .iter()
        .any(|w| w.as_str().contains("will be deleted")));
    assert!(!sb.settings().exists());
}

#[test]
fn a_file_we_created_that_the_tool_then_added_to_stays_and_removal_says_so() {
    let sb = Sandbox::new();
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    // The tool adds a key of its own to the file devint created.
    let mut v = json(&sb.settings());
    v["$schema"] = json!("https://json.schemastore.org/claude-code-settings.json");
    sb.write_settings(&serde_json::to_string_pretty(&v).unwrap());
    let preview = c.remove(&rt, None).unwrap();
    let said = |r: &devint::verbs::RemovalView| {
        r.warnings
            .iter()
            .map(|w| w.as_str().to_owned())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        said(&preview).contains(
            "stays: devint created it, but it now also holds settings devint did not write"
        ),
        "{}",
        said(&preview)
    );
    assert!(
        !said(&preview).contains("will be deleted"),
        "{}",
        said(&preview)
    );
    c.remove(&rt, Some(preview.plan_id)).unwrap();
    let after = json(&sb.settings());
    assert_eq!(
        after,
        json!({ "$schema": "https://json.schemastore.org/claude-code-settings.json" })
    );
}

#[test]
fn a_file_changed_since_install_is_not_promised_back_byte_for_byte() {
    let (sb, rt, mut c) = setup();
    c.install(&rt, "team");
    let mut v = json(&sb.settings());
    v["theme"] = json!("dark");
    sb.write_settings(&serde_json::to_string_pretty(&v).unwrap());
    let preview = c.remove(&rt, None).unwrap();
    assert!(
        preview.warnings.iter().any(|w| w
            .as_str()
            .contains("will not be byte for byte as before devint")),
        "{:?}",
        preview.warnings
    );
}

#[test]
fn user_edits_made_between_install_and_remove_survive() {
    let (sb, rt, mut c) = setup();
    c.install(&rt, "team");
    let mut v = json(&sb.settings());
    v["theme"] = json!("dark");
    v["model"] = json!("claude-opus-4");
    v["permissions"]["deny"]
        .as_array_mut()
        .unwrap()
        .push(json!("Bash(rm:*)"));
    sb.write_settings(&serde_json::to_string_pretty(&v).unwrap());
    let s = c.status(&rt);
    assert_eq!(
        s.state,
        StatusState::Ladder,
        "others' changes are not drift"
    );
    assert!(s.state_reason.unwrap().as_str().contains("left alone"));

    c.uninstall(&rt);
    let after = json(&sb.settings());
    assert_eq!(after["theme"], "dark");
    assert_eq!(after["model"], "claude-opus-4");
    assert_eq!(
        after["permissions"]["deny"],
        json!(["Read(./.env)", "Bash(rm:*)"])
    );
    assert!(after["env"].get("ANTHROPIC_BASE_URL").is_none());
    assert!(
        after.get("hooks").is_none(),
        "the hooks object we created is pruned"
    );
    assert_eq!(after["env"]["DISABLE_TELEMETRY"], "1");
}

#[test]
fn reinstalling_keeps_the_first_originals() {
    let sb = Sandbox::new();
    let original = "{\n  \"env\": {\"ANTHROPIC_BASE_URL\": \"https://corp-proxy.example/v1\"}\n}\n";
    sb.write_settings(original);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    sb.write_profile("other", "gateway_base_url = \"http://127.0.0.1:9999\"\n");
    let again = c.install(&rt, "other");
    assert_eq!(again.outcome.unwrap().mutation, ApplyMutation::Changed);
    assert_eq!(
        json(&sb.settings())["env"]["ANTHROPIC_BASE_URL"],
        "http://127.0.0.1:9999"
    );
    c.uninstall(&rt);
    assert_eq!(
        sb.read_settings().unwrap(),
        original,
        "the user's value, not our first one"
    );
}

#[test]
fn applying_the_same_end_state_again_is_unchanged_and_writes_nothing() {
    let (sb, rt, mut c) = setup();
    c.install(&rt, "team");
    let before = sb.read_settings().unwrap();
    let receipt_before = std::fs::read(&sb.files("receipts")[0]).unwrap();
    let again = c.install(&rt, "team");
    assert_eq!(again.outcome.unwrap().mutation, ApplyMutation::Unchanged);
    assert_eq!(sb.read_settings().unwrap(), before);
    assert_eq!(
        std::fs::read(&sb.files("receipts")[0]).unwrap(),
        receipt_before
    );
}

#[test]
fn another_tokens_plan_is_refused() {
    let (sb, rt, _) = setup();
    // One book, two enrolled clients: both tokens are valid, only one authored the plan.
    let shared = book();
    let mut alice = Client::new(&shared, "ide");
    let mut mallory = Client::new(&shared, "script");
    let plan = alice.plan(&rt, "team");
    let refused = mallory.apply(&rt, &plan.plan_id).unwrap_err();
    assert_eq!(refused.code, LIFECYCLE);
    assert!(
        refused.message.contains("another client"),
        "{}",
        refused.message
    );
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
    // The refusal did not consume it: the author can still apply it.
    assert!(alice.apply(&rt, &plan.plan_id).is_ok());
}

#[test]
fn expired_and_consumed_plans_are_refused() {
    let (sb, rt, mut c) = setup();
    let plan = c.plan(&rt, "team");
    c.now += Duration::from_secs(15 * 60);
    let e = c.apply(&rt, &plan.plan_id).unwrap_err();
    assert!(e.message.contains("expired"), "{}", e.message);
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);

    let plan = c.plan(&rt, "team");
    c.apply(&rt, &plan.plan_id).unwrap();
    let e = c.apply(&rt, &plan.plan_id).unwrap_err();
    assert!(e.message.contains("already executed"), "{}", e.message);

    let unknown = devint::verbs::PlanId::random();
    let e = c.apply(&rt, &unknown).unwrap_err();
    assert!(e.message.contains("no plan has this id"), "{}", e.message);
}

#[test]
fn a_file_changed_after_planning_is_not_written() {
    let (sb, rt, mut c) = setup();
    let plan = c.plan(&rt, "team");
    sb.write_settings(&CLAUDE_SETTINGS.replace("claude-sonnet-4-5", "claude-opus-4"));
    let e = c.apply(&rt, &plan.plan_id).unwrap_err();
    assert!(
        e.message.contains("changed since this plan"),
        "{}",
        e.message
    );
}

#[test]
fn an_unparsable_settings_file_is_never_overwritten() {
    let sb = Sandbox::new();
    let broken = "{\n  \"model\": \"x\", // comments are not JSON\n}\n";
    sb.write_settings(broken);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    // Said by status, naming the file and the line, and refused by plan before any consent.
    let status = c.status(&rt);
    let reason = status.state_reason.unwrap();
    assert!(
        reason
            .as_str()
            .contains("settings.json does not parse as JSON at line 2"),
        "{reason}"
    );
    assert!(status
        .state_remediation
        .unwrap()
        .as_str()
        .contains("fix the syntax"));
    let e = c
        .plan_with(&rt, plan_args(Profile::Recommended, Some("team")))
        .unwrap_err();
    assert_eq!(e.code, LIFECYCLE);
    assert!(
        e.message
            .contains("settings.json does not parse as JSON at line 2"),
        "{}",
        e.message
    );
    assert_eq!(sb.read_settings().unwrap(), broken);
}

#[test]
fn a_corrupt_receipt_is_reported_and_never_trusted() {
    let (sb, rt, mut c) = setup();
    c.install(&rt, "team");
    c.verify(&rt);
    let receipt = sb.files("receipts").pop().unwrap();
    let text = std::fs::read_to_string(&receipt).unwrap();
    // One changed byte in the body: the integrity digest no longer matches.
    let tampered = text.replacen("settings.json", "settings.jsoN", 1);
    assert_ne!(tampered, text);
    std::fs::write(&receipt, tampered).unwrap();
    let s = c.status(&rt);
    assert_eq!(s.state, StatusState::Degraded);
    assert!(s.achieved_level <= Level::DetectedNotIntegrated);
    assert!(s.state_reason.unwrap().as_str().contains("corrupt"));
    assert_eq!(c.verify(&rt).outcome, VerificationOutcome::Unverifiable);
    let installed = sb.read_settings().unwrap();
    let plan = c.plan(&rt, "team");
    let e = c.apply(&rt, &plan.plan_id).unwrap_err();
    assert!(e.message.contains("corrupt"), "{}", e.message);
    let preview = c.remove(&rt, None).unwrap();
    assert!(preview
        .warnings
        .iter()
        .any(|w| w.as_str().contains("corrupt")));
    c.remove(&rt, Some(preview.plan_id)).unwrap();
    assert_eq!(
        sb.read_settings().unwrap(),
        installed,
        "nothing was touched on a corrupt receipt"
    );
}

#[test]
fn a_removal_plan_never_removes_an_integration_applied_after_its_preview() {
    let (sb, rt, mut c) = installed();
    let stale = c.remove(&rt, None).unwrap();
    c.uninstall(&rt);
    c.install(&rt, "team");
    let integrated = sb.read_settings().unwrap();
    let e = c.remove(&rt, Some(stale.plan_id)).unwrap_err();
    assert!(
        e.message
            .contains("changed since this removal was previewed"),
        "{}",
        e.message
    );
    assert!(
        e.remediation.contains("preview the removal again"),
        "{}",
        e.remediation
    );
    assert_eq!(
        sb.read_settings().unwrap(),
        integrated,
        "nothing was removed"
    );
    c.uninstall(&rt);
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
}

#[test]
fn credential_shaped_prior_values_are_withheld_and_reported_residual() {
    let sb = Sandbox::new();
    let secret = "https://alice:s3cr3t-passw0rd-value@gw.example";
    sb.write_settings(&format!(
        "{{\"env\": {{\"ANTHROPIC_BASE_URL\": \"{secret}\"}}}}\n"
    ));
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    for f in sb.files("receipts") {
        assert!(
            !std::fs::read_to_string(f).unwrap().contains("s3cr3t"),
            "never stored"
        );
    }
    let removal = c.uninstall(&rt);
    assert!(removal
        .residual
        .iter()
        .any(|r| r.as_str() == "env.ANTHROPIC_BASE_URL"));
    assert!(
        !sb.read_settings().unwrap_or_default().contains("8787"),
        "our value is gone"
    );
}

#[test]
fn observe_only_caps_the_planned_level_at_integrated_and_is_permissive() {
    let (_sb, rt, mut c) = setup();
    let plan = c
        .plan_with(&rt, plan_args(Profile::ObserveOnly, None))
        .unwrap();
    assert_eq!(plan.planned_level, Level::Integrated);
    assert!(plan.steps.iter().all(|s| s
        .managed_keys
        .iter()
        .all(|k| k.as_str().starts_with("env."))));
    c.apply(&rt, &plan.plan_id).unwrap();
    assert_eq!(c.status(&rt).policy.unwrap().state, PolicyState::Permissive);
}

#[test]
fn privileged_host_steps_need_consent_at_plan_time_and_carry_their_own_prompt() {
    let (_sb, rt, mut c) = setup();
    let mut args = plan_args(Profile::Recommended, Some("team"));
    args.scope = SettingsScope::Managed;
    let e = c.plan_with(&rt, args.clone()).unwrap_err();
    assert!(e.message.contains("privileged host step"), "{}", e.message);
    args.allow_privileged_host_steps = true;
    let plan = c.plan_with(&rt, args).unwrap();
    assert!(!plan.steps.is_empty());
    for step in &plan.steps {
        assert_eq!(step.privilege, Privilege::PrivilegedHost);
        assert!(step
            .consent_prompt
            .as_ref()
            .unwrap()
            .as_str()
            .contains("on its own"));
    }
}

#[test]
fn unknown_and_unloadable_policy_profiles_are_clear_errors() {
    let (sb, rt, mut c) = setup();
    let e = c
        .plan_with(&rt, plan_args(Profile::Recommended, Some("nope")))
        .unwrap_err();
    assert_eq!(e.code, LIFECYCLE);
    assert!(
        e.message.contains("no policy profile named nope"),
        "{}",
        e.message
    );
    sb.write_profile("broken", "gateway_base_url = [\n");
    let e = c
        .plan_with(&rt, plan_args(Profile::Recommended, Some("broken")))
        .unwrap_err();
    assert!(e.message.contains("does not load"), "{}", e.message);
    // Installed, then the profile breaks: the policy view says so.
    c.install(&rt, "team");
    sb.write_profile("team", "gateway_base_url = [\n");
    assert_eq!(c.status(&rt).policy.unwrap().state, PolicyState::LoadFailed);
    sb.write_profile("team", "gateway_base_url = \"http://changed\"\n");
    assert_eq!(c.status(&rt).policy.unwrap().state, PolicyState::Unknown);
}

#[test]
fn without_the_tool_on_path_the_state_is_not_installed() {
    let sb = Sandbox::new();
    std::fs::remove_file(sb.bin.join("claude")).unwrap();
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    let s = c.status(&rt);
    assert_eq!(
        (s.achieved_level, s.phase),
        (Level::NotInstalled, Phase::NotInstalled)
    );
    assert_eq!(s.policy.unwrap().state, PolicyState::Unconfigured);
    // Status says where detection looked (PATH, then the documented install directories).
    let reason = s.state_reason.unwrap();
    assert!(
        reason.as_str().starts_with(&format!(
            "Claude Code (claude) was not found; looked on PATH ({}) and in ~/.local/bin, ~/.claude/local",
            sb.bin.display()
        )),
        "{}",
        reason.as_str()
    );
}

#[test]
fn a_configured_tool_without_its_binary_is_reported_as_such_by_status() {
    let sb = Sandbox::new();
    std::fs::remove_file(sb.bin.join("claude")).unwrap();
    sb.write_settings(CLAUDE_SETTINGS);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    let s = c.status(&rt);
    assert_eq!(s.phase, Phase::NotInstalled);
    let reason = s.state_reason.unwrap();
    assert!(
        reason
            .as_str()
            .starts_with("Claude Code is configured (~/.claude exists) but its binary claude was not found; looked on PATH"),
        "{}",
        reason.as_str()
    );
}

#[test]
fn a_tool_in_its_documented_install_directory_is_detected_under_a_minimal_path() {
    let sb = Sandbox::new();
    let local = sb.home.join(".local/bin");
    std::fs::create_dir_all(&local).unwrap();
    std::fs::rename(sb.bin.join("claude"), local.join("claude")).unwrap();
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    assert_eq!(c.status(&rt).phase, Phase::DetectedNotIntegrated);
}

#[test]
fn stale_and_future_evidence_do_not_count() {
    let (_sb, rt, mut c) = setup();
    c.install(&rt, "team");
    c.verify(&rt);
    assert_eq!(c.status(&rt).achieved_level, Level::Integrated);
    c.now += Duration::from_secs(24 * 3600 + 1);
    assert_eq!(
        c.status(&rt).achieved_level,
        Level::PartiallyIntegrated,
        "older than 24 h"
    );
    c.verify(&rt);
    c.now -= Duration::from_secs(3600);
    assert_eq!(
        c.status(&rt).achieved_level,
        Level::PartiallyIntegrated,
        "dated in the future"
    );
}

struct Probe;
impl devint_runtime::reference::ProtectionProbe for Probe {
    fn exercise(
        &self,
        _: &devint::verbs::ToolId,
        _: SettingsScope,
        now: UnixSecs,
    ) -> Option<devint_runtime::reference::ProbeObservation> {
        Some(devint_runtime::reference::ProbeObservation {
            outcome: devint::verbs::ExercisedOutcome::Blocked,
            observed_at_unix_secs: now,
            observed_by_gateway: true,
        })
    }
}

#[test]
fn gateway_protected_needs_an_exercised_probe_observed_by_a_gateway() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let mut config = sb.config();
    config.probe = Some(std::sync::Arc::new(Probe));
    let rt = ReferenceRuntime::open(config).unwrap();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    assert_eq!(c.status(&rt).achieved_level, Level::PartiallyIntegrated);
    let v = c.verify(&rt);
    assert!(v
        .evidence
        .iter()
        .any(|e| matches!(e.evidence, Evidence::Exercised(_))));
    let s = c.status(&rt);
    assert_eq!(s.achieved_level, Level::GatewayProtected);
    assert!(s
        .next_level
        .unwrap()
        .blocked_because
        .unwrap()
        .as_str()
        .contains("host attestation"));
}

#[test]
fn a_full_disk_or_read_only_target_is_a_clear_failure_and_loses_nothing() {
    let (sb, rt, mut c) = setup();
    rt.fail_next_write(WriteSite::Settings, 28); // ENOSPC
    let plan = c.plan(&rt, "team");
    let view = c.apply(&rt, &plan.plan_id).unwrap();
    let outcome = view.outcome.unwrap();
    assert_eq!(outcome.mutation, ApplyMutation::Failed);
    assert!(outcome.detail.unwrap().as_str().contains("disk is full"));
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
    assert!(sb.files("journal").is_empty() && sb.files("receipts").is_empty());

    rt.fail_next_write(WriteSite::Receipt, 30); // EROFS
    let plan = c.plan(&rt, "team");
    let view = c.apply(&rt, &plan.plan_id).unwrap();
    let outcome = view.outcome.unwrap();
    assert_eq!(outcome.mutation, ApplyMutation::Failed);
    assert!(outcome.detail.unwrap().as_str().contains("read-only"));
    assert_eq!(
        sb.read_settings().unwrap(),
        CLAUDE_SETTINGS,
        "the file was put back"
    );
    assert!(sb.files("journal").is_empty() && sb.files("receipts").is_empty());

    // Below v5 a view cannot say "failed": the failure is a refusal instead.
    let mut old = Client::with_version(&book(), "old-ide", 4);
    rt.fail_next_write(WriteSite::Settings, 28);
    let plan = old.plan(&rt, "team");
    let e = old.apply(&rt, &plan.plan_id).unwrap_err();
    assert!(e.message.contains("disk is full"), "{}", e.message);
    // And it still works afterwards.
    c.install(&rt, "team");
    c.uninstall(&rt);
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
}

#[test]
fn an_unwritable_settings_location_is_a_clear_error() {
    let sb = Sandbox::new();
    std::fs::write(
        sb.home.join(".claude"),
        "a file where a directory should be",
    )
    .unwrap();
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    let e = c
        .plan_with(&rt, plan_args(Profile::Recommended, Some("team")))
        .unwrap_err();
    assert_eq!(e.code, LIFECYCLE);
    assert!(!e.remediation.is_empty());
}

#[test]
fn events_come_from_the_spool_and_malformed_lines_are_skipped() {
    let (sb, rt, mut c) = setup();
    let spool = sb.state.join("events/gateway.jsonl");
    std::fs::write(
        &spool,
        [
            r#"{"occurred_at_unix_secs": 100, "tool_id": "claude-code", "verdict_kind": "deny", "mechanism": "hooks", "count": 2}"#,
            "not json at all",
            r#"{"occurred_at_unix_secs": 200, "tool_id": "claude-code", "verdict_kind": "made_up", "mechanism": "hooks"}"#,
            r#"{"occurred_at_unix_secs": 300, "tool_id": "codex", "verdict_kind": "allow", "mechanism": "hooks"}"#,
            r#"{"occurred_at_unix_secs": 400, "tool_id": "claude-code", "verdict_kind": "redacted", "mechanism": "model_gateway_base_url", "redaction_labels": ["aws_access_key"]}"#,
            r#"{"occurred_at_unix_secs": 500, "tool_id": "claude-code", "verdict_kind": "allow", "mechanism": "hooks"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let events = |c: &mut Client, limit, since| match c
        .call(
            &rt,
            VerbCall::ScopedEvents {
                tool: claude(),
                limit,
                since,
            },
        )
        .unwrap()
    {
        VerbResult::ScopedEvents(e) => e.events,
        other => panic!("{other:?}"),
    };
    let all = events(&mut c, 0, UnixSecs::EPOCH);
    assert_eq!(
        all.iter()
            .map(|e| e.occurred_at_unix_secs)
            .collect::<Vec<_>>(),
        [100, 400, 500].map(UnixSecs::new)
    );
    assert_eq!(all[0].count, 2);
    assert_eq!(all[1].redaction_labels[0].as_str(), "aws_access_key");
    assert_eq!(events(&mut c, 1, UnixSecs::new(150)).len(), 1);
    assert_eq!(
        events(&mut c, 10, UnixSecs::new(450))[0].occurred_at_unix_secs,
        UnixSecs::new(500)
    );
}

/// Relay `input` for `id` on claude-code.
fn relay(
    c: &mut Client,
    rt: &ReferenceRuntime,
    id: &ApprovalId,
    input: UserInput,
) -> Result<VerbResult, Refused> {
    c.call(
        rt,
        VerbCall::ApprovalRelay {
            tool: claude(),
            approval_id: id.clone(),
            input,
        },
    )
}

/// The gateway raises approval `id` for `tool` (`approvals/pending.jsonl`).
fn raise(sb: &Sandbox, id: &str, tool: &str) {
    use std::io::Write;
    let dir = sb.state.join("approvals");
    std::fs::create_dir_all(&dir).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("pending.jsonl"))
        .unwrap();
    writeln!(f, "{}", json!({"approval_id": id, "tool_id": tool})).unwrap();
}

fn queued(sb: &Sandbox) -> Vec<serde_json::Value> {
    std::fs::read_to_string(sb.state.join("approvals/queue.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn approval_relay_is_accepted_for_adjudication_only() {
    let (sb, rt, mut c) = setup();
    let id = ApprovalId::random();
    raise(&sb, id.as_str(), "claude-code");
    let ack = match relay(&mut c, &rt, &id, UserInput::Approve).unwrap() {
        VerbResult::ApprovalRelay(a) => a,
        other => panic!("{other:?}"),
    };
    assert_eq!(ack.approval_id, id);
    assert_eq!(ack.relayed_input, UserInput::Approve);
    let queue = queued(&sb);
    let line = &queue[0];
    assert_eq!(line["approval_id"], id.as_str());
    assert_eq!(line["input"], "approve");
    assert_eq!(line["client_name"], "ide");
    assert!(line.get("decision").is_none() && line.get("verdict").is_none());
}

#[test]
fn approval_relay_refuses_an_approval_that_is_not_waiting_and_queues_nothing() {
    let (sb, rt, mut c) = setup();
    // Never raised: a well-formed id the gateway does not know.
    let unknown = ApprovalId::random();
    let refused = relay(&mut c, &rt, &unknown, UserInput::Approve).unwrap_err();
    assert_eq!(refused.code, LIFECYCLE);
    assert!(
        refused.message.contains("no approval"),
        "{}",
        refused.message
    );
    assert!(!refused.remediation.is_empty());
    // Raised for another tool.
    let codex = ApprovalId::random();
    raise(&sb, codex.as_str(), "codex");
    assert_eq!(
        relay(&mut c, &rt, &codex, UserInput::Deny)
            .unwrap_err()
            .code,
        LIFECYCLE
    );
    assert!(queued(&sb).is_empty());
    // `defer` leaves it waiting; `deny` answers it, and a second answer is refused.
    let id = ApprovalId::random();
    raise(&sb, id.as_str(), "claude-code");
    relay(&mut c, &rt, &id, UserInput::Defer).unwrap();
    relay(&mut c, &rt, &id, UserInput::Deny).unwrap();
    assert_eq!(
        relay(&mut c, &rt, &id, UserInput::Approve)
            .unwrap_err()
            .code,
        LIFECYCLE
    );
    let inputs: Vec<_> = queued(&sb).iter().map(|l| l["input"].clone()).collect();
    assert_eq!(inputs, [json!("defer"), json!("deny")]);
}

#[test]
fn list_tools_reports_the_detected_tool_with_all_twelve_capabilities() {
    let (_sb, rt, mut c) = setup();
    let list = match c.call(&rt, VerbCall::ListTools).unwrap() {
        VerbResult::ListTools(l) => l,
        other => panic!("{other:?}"),
    };
    let claude = list
        .tools
        .iter()
        .find(|t| t.tool_id.as_str() == "claude-code")
        .unwrap();
    assert!(claude.detected);
    assert_eq!(claude.detected_version.as_ref().unwrap().as_str(), "2.0.14");
    assert_eq!(claude.capabilities.len(), 12);
    assert!(list
        .tools
        .iter()
        .filter(|t| t.tool_id.as_str() != "claude-code")
        .all(|t| !t.detected));
}

#[test]
fn the_state_directory_is_private() {
    use std::os::unix::fs::MetadataExt;
    let (sb, rt, mut c) = setup();
    c.install(&rt, "team");
    c.verify(&rt);
    for sub in [
        "",
        "profiles",
        "receipts",
        "journal",
        "locks",
        "evidence",
        "events",
        "approvals",
    ] {
        let mode = std::fs::metadata(sb.state.join(sub)).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700, "{sub}");
    }
    for f in sb.files("receipts").into_iter().chain(sb.files("evidence")) {
        assert_eq!(
            std::fs::metadata(&f).unwrap().mode() & 0o777,
            0o600,
            "{}",
            f.display()
        );
    }
    drop(rt);
    std::fs::set_permissions(
        &sb.state,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    assert!(ReferenceRuntime::open(sb.config())
        .unwrap_err()
        .to_string()
        .contains("0700"));
}

#[test]
fn the_plan_store_is_bounded() {
    let (_sb, rt, mut c) = setup();
    let first = c.plan(&rt, "team");
    for _ in 0..devint_runtime::reference::PLAN_CAPACITY {
        c.plan(&rt, "team");
    }
    let e = c.apply(&rt, &first.plan_id).unwrap_err();
    assert!(e.message.contains("no plan has this id"), "{}", e.message);
}

#[test]
fn a_corrupt_journal_stops_open_with_its_name() {
    let (sb, rt, _) = setup();
    drop(rt);
    std::fs::write(
        sb.state.join("journal/claude-code.0000.json"),
        "{ not a journal",
    )
    .unwrap();
    let e = ReferenceRuntime::open(sb.config()).unwrap_err().to_string();
    assert!(
        e.contains("claude-code.0000.json") && e.contains("does not parse"),
        "{e}"
    );
}

#[test]
fn an_installed_tool_that_disappeared_is_degraded_not_integrated() {
    let (sb, rt, mut c) = setup();
    c.install(&rt, "team");
    c.verify(&rt);
    std::fs::remove_file(sb.bin.join("claude")).unwrap();
    let s = c.status(&rt);
    assert_eq!(s.state, StatusState::Degraded);
    let reason = s.state_reason.unwrap();
    assert!(
        reason.as_str().starts_with(
            "the installed settings take no effect: Claude Code is configured (~/.claude exists) \
             but its binary claude was not found; looked on PATH"
        ),
        "{}",
        reason.as_str()
    );
}

#[test]
fn a_list_entry_the_user_already_had_is_never_taken_out() {
    let sb = Sandbox::new();
    sb.write_settings("{\"permissions\": {\"deny\": [\"WebFetch\", \"Read(./.env)\"]}}\n");
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    assert_eq!(
        json(&sb.settings())["permissions"]["deny"],
        json!([
            "WebFetch",
            "Read(./.env)",
            "Bash(curl *)",
            "PowerShell(curl *)"
        ]),
        "an equal entry is not added twice"
    );
    // A user edit elsewhere forces the key-by-key path.
    let mut v = json(&sb.settings());
    v["theme"] = json!("light");
    sb.write_settings(&serde_json::to_string(&v).unwrap());
    c.uninstall(&rt);
    let after = json(&sb.settings());
    assert_eq!(
        after["permissions"]["deny"],
        json!(["WebFetch", "Read(./.env)"])
    );
    assert_eq!(after["theme"], "light");
}
