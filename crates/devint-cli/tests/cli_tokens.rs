//! `devint serve`, `enrol` and `tokens` against a real runtime process.

mod cli_support;

use std::os::unix::fs::PermissionsExt;

use cli_support::Sandbox;
use predicates::prelude::*;

#[test]
fn serve_prints_the_socket_and_the_enrol_command_when_nobody_is_enrolled() {
    let mut s = Sandbox::new();
    let n = s.serve();
    let out = s.serve_output(n);
    assert!(
        out.contains(&format!("serving on {}", s.socket().display())),
        "{out}"
    );
    assert!(
        out.contains("devint enrol --client cli --all-tools --verbs full"),
        "{out}"
    );
}

#[test]
fn enrol_writes_a_0600_token_file_and_does_not_print_the_token() {
    let s = Sandbox::new();
    let out = s
        .devint()
        .args(["enrol", "--client", "ide", "--tool", "claude-code"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let token = std::fs::read_to_string(s.token_file()).unwrap();
    assert_eq!(token.len(), 65);
    let mode = std::fs::metadata(s.token_file())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains(token.trim()), "the token leaked: {stdout}");
    assert!(stdout.contains(&s.token_file().display().to_string()));
}

#[test]
fn enrol_print_shows_the_token_that_was_written() {
    let s = Sandbox::new();
    let out = s
        .devint()
        .args(["enrol", "--client", "ide", "--all-tools", "--print"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let token = std::fs::read_to_string(s.token_file()).unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(token.trim()));
}

#[test]
fn enrol_without_a_tool_choice_is_a_usage_error() {
    Sandbox::new()
        .devint()
        .args(["enrol", "--client", "ide"])
        .assert()
        .code(2);
}

#[test]
fn tokens_list_shows_ids_and_scope_never_secrets() {
    let s = Sandbox::new();
    let id = s.enrol("read-only");
    let (code, doc) = s.json(&["tokens", "list"]);
    assert_eq!(code, 0);
    let tokens = doc["result"]["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 1);
    assert_eq!(tokens[0]["token_id"], id.as_str());
    assert_eq!(tokens[0]["scope"]["tools"], "all");
    let secret = std::fs::read_to_string(s.token_file()).unwrap();
    assert!(!doc.to_string().contains(secret.trim()));
}

#[test]
fn a_revoked_token_is_denied_on_the_next_command_with_exit_8() {
    let mut s = Sandbox::new();
    s.serve();
    let id = s.enrol("full");
    s.devint().arg("tools").assert().code(0);
    s.devint().args(["tokens", "revoke", &id]).assert().code(0);
    s.devint()
        .arg("tools")
        .assert()
        .code(8)
        .stderr(predicate::str::contains(
            "does not know this client's token",
        ));
}

#[test]
fn rotate_writes_the_new_token_and_the_old_one_is_denied() {
    let mut s = Sandbox::new();
    s.serve();
    let id = s.enrol("full");
    let old_copy = s.root().join("old.token");
    std::fs::copy(s.token_file(), &old_copy).unwrap();
    let (code, doc) = s.json(&["tokens", "rotate", &id]);
    assert_eq!(code, 0);
    assert_ne!(doc["result"]["token_id"], id.as_str());
    assert_ne!(
        std::fs::read(s.token_file()).unwrap(),
        std::fs::read(&old_copy).unwrap()
    );
    s.devint().arg("tools").assert().code(0);
    s.devint()
        .env("AA_DEVINT_TOKEN_FILE", &old_copy)
        .arg("tools")
        .assert()
        .code(8);
}

#[test]
fn revoking_an_unknown_token_id_is_a_usage_error() {
    let s = Sandbox::new();
    s.enrol("full");
    s.devint()
        .args(["tokens", "revoke", "tok_00000000000000000000000000000000"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("tokens list"));
}

#[test]
fn a_read_only_token_cannot_plan_exit_8() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("read-only");
    s.devint()
        .args(["plan", "claude-code", "--scope", "user"])
        .assert()
        .code(8)
        .stderr(predicate::str::contains(
            "does not allow it to plan claude-code",
        ));
}

#[test]
fn a_second_runtime_on_the_same_socket_is_refused() {
    let mut s = Sandbox::new();
    s.serve();
    s.devint()
        .arg("serve")
        .assert()
        .failure()
        .stderr(predicate::str::contains("another runtime is serving"));
}

#[test]
fn sigterm_shuts_the_runtime_down_and_removes_its_socket() {
    let mut s = Sandbox::new();
    let n = s.serve();
    assert!(s.socket().exists());
    let status = s.terminate(n);
    assert!(status.success(), "{status}");
    assert!(!s.socket().exists());
    assert!(s.serve_output(n).contains("stopped"));
}

#[test]
fn a_second_runtime_on_the_same_state_directory_is_refused() {
    let mut s = Sandbox::new();
    s.serve();
    let other = s.run_dir().join("devint-other.sock");
    s.devint()
        .env("AA_DEVINT_SOCKET", &other)
        .arg("serve")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is using the state directory"));
}

#[test]
fn a_token_file_others_can_read_is_refused_with_exit_8() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    std::fs::set_permissions(s.token_file(), std::fs::Permissions::from_mode(0o644)).unwrap();
    s.devint()
        .arg("tools")
        .assert()
        .code(8)
        .stderr(predicate::str::contains("chmod 600"));
}
