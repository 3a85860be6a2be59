//! The gateway and proxy URLs a policy writes: parsed with a real URL parser at profile
//! load (http/https only, no credentials, normalised), and `verify` holding the file to the
//! policy's value now, so a changed or mistyped value reads as drifted, never as passed.

mod lifecycle_support;

use devint::verbs::{Profile, StatusState, VerbCall, VerbResult, VerificationOutcome};
use devint_runtime::reference::{PolicyUrl, ReferenceRuntime};
use lifecycle_support::*;

const LIFECYCLE: i32 = 7;

fn refused_profile(gateway_line: &str) -> Refused {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    sb.write_profile("odd", gateway_line);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    let e = c
        .plan_with(&rt, plan_args(Profile::Recommended, Some("odd")))
        .unwrap_err();
    assert_eq!(e.code, LIFECYCLE);
    assert_eq!(
        sb.read_settings().unwrap(),
        CLAUDE_SETTINGS,
        "nothing is written"
    );
    e
}

#[test]
fn a_profile_gateway_with_credentials_does_not_load_and_the_password_is_never_echoed() {
    let e = refused_profile(
        "display_name = \"Team\"\ngateway_base_url = \"https://team:hunter2secret@gw.example/v1\"\n",
    );
    assert!(e.message.contains("does not load"), "{}", e.message);
    assert!(e.message.contains("carries credentials"), "{}", e.message);
    assert!(
        e.message.contains("line 2 (gateway_base_url)"),
        "names the field: {}",
        e.message
    );
    assert!(!e.message.contains("hunter2"), "{}", e.message);
    assert!(!e.remediation.contains("hunter2"), "{}", e.remediation);
}

#[test]
fn a_profile_proxy_that_is_not_http_or_https_does_not_load() {
    let e = refused_profile("proxy_url = \"socks5://127.0.0.1:1080\"\n");
    assert!(e.message.contains("http or https"), "{}", e.message);
    assert!(e.message.contains("(proxy_url)"), "{}", e.message);
}

#[test]
fn a_profile_gateway_that_is_not_a_url_does_not_load() {
    let e = refused_profile("gateway_base_url = \"not a url\"\n");
    assert!(e.message.contains("whitespace"), "{}", e.message);
    let e = refused_profile("gateway_base_url = \"gw.example/v1\"\n");
    assert!(e.message.contains("is not a URL"), "{}", e.message);
}

#[test]
fn a_profile_gateway_is_written_normalised() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    sb.write_profile(
        "loud",
        "gateway_base_url = \"HTTP://GW.Example:80/v1/../anthropic\"\n",
    );
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "loud");
    assert_eq!(
        json(&sb.settings())["env"]["ANTHROPIC_BASE_URL"],
        "http://gw.example/anthropic"
    );
}

#[test]
fn a_policy_value_changed_since_install_reads_as_drifted_never_as_passed() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    assert_eq!(c.verify(&rt).outcome, VerificationOutcome::Passed);

    // The team fixes a typo in its gateway; the file still holds the old value.
    sb.write_profile(
        "team",
        &TEAM_PROFILE.replace("127.0.0.1:8787/anthropic", "127.0.0.1:8787/anthropic-v2"),
    );
    let v = c.verify(&rt);
    assert_ne!(v.outcome, VerificationOutcome::Passed, "{v:?}");
    let reason = v.reason.unwrap();
    assert!(
        reason.as_str().contains("policy profile asks for now"),
        "{reason:?}"
    );
    let s = c.status(&rt);
    assert_eq!(s.state, StatusState::Drifted, "{:?}", s.state_reason);
    assert!(s
        .drift_mismatched
        .iter()
        .any(|m| m.as_str() == "env.ANTHROPIC_BASE_URL"));
    assert!(
        s.state_remediation
            .unwrap()
            .as_str()
            .contains("plan and apply again"),
        "repair would only restore the old value"
    );
    let repair = match c.call(&rt, VerbCall::Repair { tool: claude() }).unwrap() {
        VerbResult::Repair(r) => r,
        other => panic!("{other:?}"),
    };
    assert!(repair.repaired.is_empty(), "{repair:?}");
    assert!(
        repair
            .unrepairable
            .iter()
            .any(|u| u.reason.as_str().contains("env.ANTHROPIC_BASE_URL")),
        "{repair:?}"
    );

    // A new plan puts the policy's value in force: verified again.
    c.install(&rt, "team");
    assert_eq!(
        json(&sb.settings())["env"]["ANTHROPIC_BASE_URL"],
        "http://127.0.0.1:8787/anthropic-v2"
    );
    assert_eq!(c.verify(&rt).outcome, VerificationOutcome::Passed);
}

#[test]
fn a_runtime_restarted_with_another_gateway_reads_the_built_in_install_as_drifted() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "recommended");
    assert_eq!(c.verify(&rt).outcome, VerificationOutcome::Passed);
    drop(rt);
    let mut config = sb.config();
    config.gateway_base_url = Some(PolicyUrl::parse("https://gw.example/anthropic").unwrap());
    let rt = ReferenceRuntime::open(config).unwrap();
    let v = c.verify(&rt);
    assert_ne!(v.outcome, VerificationOutcome::Passed, "{v:?}");
    assert_eq!(c.status(&rt).state, StatusState::Drifted);
}

#[test]
fn a_mistyped_value_in_the_file_reads_as_drifted() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    let typo = sb
        .read_settings()
        .unwrap()
        .replace("127.0.0.1:8787", "127.0.0.1:8878");
    sb.write_settings(&typo);
    assert_ne!(c.verify(&rt).outcome, VerificationOutcome::Passed);
    assert_eq!(c.status(&rt).state, StatusState::Drifted);
}
