//! The lifecycle commands against a real `devint serve`: human and JSON output, exit codes,
//! the standing rules, help and completions.

mod cli_support;

use cli_support::Sandbox;
use predicates::prelude::*;

#[test]
fn no_runtime_exits_7_and_prints_the_command_that_starts_one() {
    let s = Sandbox::new();
    s.enrol("full");
    s.devint()
        .arg("tools")
        .assert()
        .code(7)
        .stderr(predicate::str::contains("devint serve"));
    let (code, doc) = s.json(&["status", "claude-code"]);
    assert_eq!(code, 7);
    assert_eq!(doc["error"]["exit"], 7);
    assert!(doc["error"]["remediation"]
        .as_str()
        .unwrap()
        .contains("devint serve"));
}

#[test]
fn usage_errors_exit_2_before_any_socket_is_opened() {
    let s = Sandbox::new();
    let long_id = "a".repeat(129);
    for args in [
        vec!["bogus"],
        vec!["plan", "claude-code"],
        vec!["plan", "claude-code", "--scope", "galaxy"],
        vec!["status", "Not_A_Tool"],
        vec!["approve", "claude-code", "an id", "approve"],
        vec!["approve", "claude-code", &long_id, "approve"],
        vec![
            "approve",
            "claude-code",
            "0123456789abcdef0123456789abcdef",
            "maybe",
        ],
        vec!["events", "claude-code", "--since", "3 fortnights"],
        vec!["enrol", "--client", "x", "--all-tools", "--ttl", "soon"],
        vec!["--output", "yaml", "tools"],
        vec!["--color", "sometimes", "tools"],
        vec!["-q", "-v", "tools"],
    ] {
        s.devint().args(&args).assert().code(2);
    }
}

#[test]
fn an_unenrolled_client_is_denied_with_exit_8_and_told_to_enrol() {
    let mut s = Sandbox::new();
    s.serve();
    s.devint()
        .arg("tools")
        .assert()
        .code(8)
        .stderr(predicate::str::contains("devint enrol"));
}

#[test]
fn tools_human_output_is_a_table_with_the_detected_tool() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let out = s.devint().arg("tools").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("TOOL "), "{text}");
    let claude = text
        .lines()
        .find(|l| l.starts_with("claude-code "))
        .unwrap();
    assert!(
        claude.contains("yes") && claude.contains("2.0.14"),
        "{claude}"
    );
    assert!(!text.contains('\x1b'), "colour without a TTY: {text}");
}

#[test]
fn tools_json_carries_the_runtime_provenance_and_a_verified_standing() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let (code, doc) = s.json(&["tools"]);
    assert_eq!(code, 0);
    assert_eq!(doc["schema"], "devint.cli.v1");
    assert_eq!(doc["command"], "tools");
    assert_eq!(doc["runtime"]["standing"], "verified");
    assert_eq!(doc["runtime"]["di_api_version"], 5);
    assert!(doc["runtime"]["provenance"]["pid"].as_u64().unwrap() > 0);
    let tools = doc["result"]["tools"].as_array().unwrap();
    let claude = tools
        .iter()
        .find(|t| t["tool_id"] == "claude-code")
        .unwrap();
    assert_eq!(claude["detected"], true);
    assert_eq!(claude["detected_version"], "2.0.14");
    assert_eq!(claude["capabilities"].as_array().unwrap().len(), 12);
}

#[test]
fn status_shows_every_rung_of_the_ladder() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let out = s.devint().args(["status", "claude-code"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for rung in [
        "not installed",
        "detected, not integrated",
        "partially integrated",
        "integrated",
        "gateway protected",
        "host enforced",
    ] {
        assert!(text.contains(rung), "missing rung {rung}: {text}");
    }
    assert!(text.contains("here now"), "{text}");
    assert!(
        !text.contains("_integrated"),
        "a wire token in human output: {text}"
    );
}

#[test]
fn status_json_reports_the_runtimes_view_unchanged() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let (code, doc) = s.json(&["status", "claude-code"]);
    assert_eq!(code, 0);
    assert_eq!(doc["result"]["tool_id"], "claude-code");
    assert_eq!(doc["result"]["state"], "ladder");
    assert_eq!(doc["result"]["achieved_level"], "detected_not_integrated");
}

#[test]
fn status_without_a_tool_covers_every_detected_tool() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let (code, doc) = s.json(&["status"]);
    assert_eq!(code, 0);
    let ids: Vec<&str> = doc["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tool_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["claude-code"]);
}

#[test]
fn a_tool_no_adapter_knows_exits_3() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    s.devint()
        .args(["status", "no-such-tool"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "the runtime has no adapter for no-such-tool",
        ));
}

#[test]
fn two_runtimes_in_one_directory_refute_the_standing_with_exit_10() {
    let mut s = Sandbox::new();
    s.serve();
    let second = s.run_dir().join("devint-second.sock");
    let other_state = s.root().join("state-2");
    s.serve_with(&second, &other_state);
    s.enrol("full");
    // Read-only and privileged alike, and the override does not help.
    for args in [
        vec!["tools"],
        vec!["status", "claude-code"],
        vec!["verify", "claude-code"],
        vec!["--allow-unverified-runtime", "repair", "claude-code"],
    ] {
        s.devint()
            .args(&args)
            .assert()
            .code(10)
            .stderr(predicate::str::contains("refuted"));
    }
    let (code, doc) = s.json(&["tools"]);
    assert_eq!(code, 10);
    assert_eq!(doc["runtime"]["standing"], "refuted");
    assert!(doc.get("result").is_none());
}

#[test]
fn help_explains_each_command_with_an_example() {
    let s = Sandbox::new();
    for command in [
        "serve",
        "enrol",
        "tokens",
        "tools",
        "plan",
        "apply",
        "status",
        "verify",
        "repair",
        "remove",
        "events",
        "approve",
        "demo",
        "completions",
        "whoami",
        "profile",
        "version",
        "manpages",
    ] {
        s.devint()
            .args([command, "--help"])
            .assert()
            .code(0)
            .stdout(predicate::str::is_match("Examples?:\n  devint ").unwrap());
    }
    s.devint()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Exit codes"))
        .stdout(predicate::str::contains("man devint"))
        // The help must not send people to a file that is not installed.
        .stdout(predicate::str::contains("docs/cli.md").not());
}

/// A settings file a Claude Code user might have.
const SETTINGS: &str =
    "{\n  \"model\": \"claude-sonnet-4-5\",\n  \"env\": { \"DISABLE_TELEMETRY\": \"1\" }\n}\n";

#[test]
fn without_a_terminal_a_mutating_command_refuses_and_says_to_pass_yes() {
    let mut s = Sandbox::new();
    let settings = s.home().join(".claude/settings.json");
    std::fs::write(&settings, SETTINGS).unwrap();
    s.serve();
    s.enrol("full");
    // stdin is a pipe holding "y": still not a terminal, so no prompt is read.
    s.devint()
        .args(["apply", "claude-code", "--scope", "user"])
        .write_stdin("y\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("pass --yes"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
    s.devint()
        .args(["apply", "claude-code", "--scope", "user", "--yes"])
        .assert()
        .code(0);
    for command in ["repair", "remove"] {
        s.devint()
            .args([command, "claude-code"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("pass --yes"));
    }
    assert_ne!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
}

#[test]
fn at_a_terminal_anything_but_yes_aborts_with_exit_9_and_changes_nothing() {
    let mut s = Sandbox::new();
    let settings = s.home().join(".claude/settings.json");
    std::fs::write(&settings, SETTINGS).unwrap();
    s.serve();
    s.enrol("full");
    let (code, transcript) = s.at_terminal(&["apply", "claude-code", "--scope", "user"], "n\n");
    assert_eq!(code, 9, "{transcript}");
    assert!(
        transcript.contains("Apply this plan to claude-code? [y/N]"),
        "{transcript}"
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
    let (code, transcript) = s.at_terminal(&["apply", "claude-code", "--scope", "user"], "y\n");
    assert_eq!(code, 0, "{transcript}");
    assert_ne!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
}

#[test]
fn apply_then_remove_restores_the_settings_file_byte_for_byte() {
    let mut s = Sandbox::new();
    let settings = s.home().join(".claude/settings.json");
    std::fs::write(&settings, SETTINGS).unwrap();
    s.serve();
    s.enrol("full");
    let (code, doc) = s.json(&["apply", "claude-code", "--scope", "user", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert!(doc["result"]["apply"]["receipt_id"].as_str().is_some());
    assert_ne!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
    let (code, doc) = s.json(&["status", "claude-code"]);
    assert_eq!(code, 0, "{doc}");
    assert_ne!(doc["result"]["phase"], "detected_not_integrated");
    let (code, doc) = s.json(&["verify", "claude-code"]);
    assert_eq!(code, 0, "{doc}");
    assert!(doc["result"]["verified_at_unix_secs"].as_u64().is_some());
    let (code, doc) = s.json(&["events", "claude-code", "--since", "1h"]);
    assert_eq!(code, 0, "{doc}");
    assert!(doc["result"]["events"].is_array());
    let (code, doc) = s.json(&["remove", "claude-code", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert!(doc["result"]["preview"]["plan_id"].as_str().is_some());
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
}

#[test]
fn serve_refuses_a_socket_directory_others_can_enter() {
    use std::os::unix::fs::PermissionsExt;
    let s = Sandbox::new();
    std::fs::create_dir_all(s.run_dir()).unwrap();
    std::fs::set_permissions(s.run_dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    s.devint()
        .arg("serve")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(s.run_dir().display().to_string()));
    // Refused, not repaired.
    let mode = std::fs::metadata(s.run_dir()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o755);
}

#[test]
fn approve_relays_only_with_consent_and_only_an_approval_that_is_waiting() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let approvals = s.state().join("devint/runtime/approvals");
    std::fs::create_dir_all(&approvals).unwrap();
    let id = "0123456789abcdef0123456789abcdef";
    std::fs::write(
        approvals.join("pending.jsonl"),
        format!("{{\"approval_id\": \"{id}\", \"tool_id\": \"claude-code\"}}\n"),
    )
    .unwrap();
    let queue = approvals.join("queue.jsonl");
    // No terminal, no --yes: refused before anything is relayed.
    s.devint()
        .args(["approve", "claude-code", id, "approve"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("pass --yes to approve"));
    assert!(!queue.exists());
    // A well-formed id the runtime holds no open approval for is refused, not relayed.
    let unknown = "fedcba9876543210fedcba9876543210";
    s.devint()
        .args(["approve", "claude-code", unknown, "approve", "--yes"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(format!("approval {unknown}: ")))
        .stderr(predicate::str::contains("no approval"));
    // Another tool's approval is not this tool's.
    s.devint()
        .args(["approve", "codex", id, "approve", "--yes"])
        .assert()
        .failure();
    assert!(!queue.exists());
    s.devint()
        .args(["approve", "claude-code", id, "approve", "--yes"])
        .assert()
        .code(0);
    let queued = std::fs::read_to_string(&queue).unwrap();
    assert_eq!(queued.lines().count(), 1, "{queued}");
    assert!(queued.contains(id), "{queued}");
    // Answered: a second answer is refused.
    s.devint()
        .args(["approve", "claude-code", id, "deny", "--yes"])
        .assert()
        .failure();
}
