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
    let file = s.client_token_file("ide");
    let token = std::fs::read_to_string(&file).unwrap();
    assert_eq!(token.len(), 65);
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains(token.trim()), "the token leaked: {stdout}");
    assert!(stdout.contains(&file.display().to_string()));
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
    let token = std::fs::read_to_string(s.client_token_file("ide")).unwrap();
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
    s.devint()
        .args(["tokens", "revoke", &id, "--yes"])
        .assert()
        .code(0);
    s.devint()
        .arg("tools")
        .assert()
        .code(8)
        .stderr(predicate::str::contains("does not know the token"));
}

#[test]
fn rotate_writes_the_new_token_and_the_old_one_is_denied() {
    let mut s = Sandbox::new();
    s.serve();
    let id = s.enrol("full");
    let old_copy = s.root().join("old.token");
    std::fs::copy(s.token_file(), &old_copy).unwrap();
    let (code, doc) = s.json(&["tokens", "rotate", &id, "--yes"]);
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
        .stderr(predicate::str::contains("may not plan claude-code"));
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

/// `devint ARGS` is denied (exit 8) and its message says each of `says`.
fn denied(s: &Sandbox, args: &[&str], says: &[&str]) {
    let out = s.devint().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(8), "{args:?}: {stderr}");
    for said in says {
        assert!(
            stderr.contains(said),
            "{args:?} does not say {said:?}: {stderr}"
        );
    }
}

#[test]
fn each_client_gets_its_own_token_file_and_enrolling_one_never_breaks_another() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let cli_before = std::fs::read(s.token_file()).unwrap();
    let (code, doc) = s.json(&["enrol", "--client", "vscode", "--tool", "claude-code"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(
        doc["result"]["token_file"],
        s.client_token_file("vscode").display().to_string()
    );
    assert_eq!(std::fs::read(s.token_file()).unwrap(), cli_before);
    // The command still runs as cli; --client chooses another client's token.
    s.devint()
        .args(["plan", "claude-code", "--scope", "user"])
        .assert()
        .code(0);
    denied(
        &s,
        &["plan", "claude-code", "--scope", "user", "--client", "vscode"],
        &[
            "(client vscode) may not plan claude-code",
            "devint enrol --client vscode --tool claude-code --verbs list_tools,plan,status,verify,scoped_events",
        ],
    );
}

#[test]
fn enrolling_a_client_again_rotates_its_token_and_revokes_the_old_one_at_once() {
    let mut s = Sandbox::new();
    s.serve();
    let first = s.enrol("full");
    let old_copy = s.root().join("old.token");
    std::fs::copy(s.token_file(), &old_copy).unwrap();
    std::fs::set_permissions(&old_copy, std::fs::Permissions::from_mode(0o600)).unwrap();
    let again = ["enrol", "--client", "cli", "--all-tools", "--verbs", "full"];
    // Without a terminal and without --yes, the old token is not revoked behind its back.
    s.devint()
        .args(again)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("pass --yes"))
        .stderr(predicate::str::contains(first.as_str()));
    let (_, list) = s.json(&["tokens", "list"]);
    assert_eq!(list["result"]["tokens"][0]["token_id"], first.as_str());
    assert_eq!(list["result"]["tokens"].as_array().unwrap().len(), 1);
    s.devint().arg("tools").assert().code(0);
    let (code, doc) = s.json(&[&again[..], &["--yes"]].concat());
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["result"]["revoked_token_ids"][0], first.as_str());
    s.devint().arg("tools").assert().code(0);
    s.devint()
        .env("AA_DEVINT_TOKEN_FILE", &old_copy)
        .arg("tools")
        .assert()
        .code(8);
    let (_, list) = s.json(&["tokens", "list"]);
    let tokens = list["result"]["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 1, "{list}");
    assert_ne!(tokens[0]["token_id"], first.as_str());
}

#[test]
fn enrol_refuses_to_overwrite_another_clients_token_file() {
    let s = Sandbox::new();
    s.enrol("full");
    let before = std::fs::read(s.token_file()).unwrap();
    s.devint()
        .args(["enrol", "--client", "ide", "--all-tools", "--token-file"])
        .arg(s.token_file())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds the token of client cli"));
    assert_eq!(std::fs::read(s.token_file()).unwrap(), before);
    let (_, list) = s.json(&["tokens", "list"]);
    assert_eq!(list["result"]["tokens"].as_array().unwrap().len(), 1);
}

#[test]
fn the_token_can_come_from_aa_devint_token_or_the_file_aa_devint_token_file_names() {
    let mut s = Sandbox::new();
    s.serve();
    // devint.token is nobody's default: it is the own file of a client enrolled as `devint`,
    // which the command reads only when AA_DEVINT_TOKEN_FILE names it.
    let (code, doc) = s.json(&["enrol", "--client", "devint", "--all-tools"]);
    assert_eq!(code, 0);
    let default = s.run_dir().join("devint.token");
    assert_eq!(doc["result"]["token_file"], default.display().to_string());
    s.devint()
        .env("AA_DEVINT_TOKEN_FILE", &default)
        .arg("tools")
        .assert()
        .code(0);
    let secret = std::fs::read_to_string(&default).unwrap();
    s.devint()
        .env("AA_DEVINT_TOKEN", secret.trim())
        .arg("tools")
        .assert()
        .code(0);
    let out = s
        .devint()
        .env("AA_DEVINT_TOKEN", "not-a-token-secret-value")
        .arg("tools")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(8));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("AA_DEVINT_TOKEN does not hold a token"),
        "{stderr}"
    );
    assert!(!stderr.contains("not-a-token-secret-value"), "{stderr}");
}

#[test]
fn whoami_names_the_token_its_client_scope_and_expiry_never_the_secret() {
    let mut s = Sandbox::new();
    s.devint()
        .arg("whoami")
        .assert()
        .code(8)
        .stderr(predicate::str::contains("devint enrol --client cli"));
    let id = s.enrol("read-only");
    let (code, doc) = s.json(&["whoami"]);
    assert_eq!(code, 0, "{doc}");
    let r = &doc["result"];
    assert_eq!(r["token_id"], id.as_str());
    assert_eq!(r["client_name"], "cli");
    assert_eq!(r["token_source"]["kind"], "cli");
    assert_eq!(r["scope"]["verbs"], "read-only");
    assert_eq!(r["runtime_reachable"], false);
    let secret = std::fs::read_to_string(s.token_file()).unwrap();
    assert!(!doc.to_string().contains(secret.trim()));
    s.serve();
    s.snapshot("whoami", &["whoami"]);
}

#[test]
fn an_expired_token_is_named_with_the_command_that_replaces_it() {
    let mut s = Sandbox::new();
    s.serve();
    let (code, _) = s.json(&[
        "enrol",
        "--client",
        "cli",
        "--tool",
        "claude-code",
        "--verbs",
        "full",
        "--ttl",
        "1s",
    ]);
    assert_eq!(code, 0);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    denied(
        &s,
        &["status", "claude-code"],
        &[
            "(client cli) has expired",
            "devint enrol --client cli --tool claude-code --verbs full",
        ],
    );
}

#[test]
fn a_ttl_above_one_year_is_refused_and_nothing_is_enrolled() {
    let s = Sandbox::new();
    for ttl in ["18446744073709551615s", "367d", "2y"] {
        s.devint()
            .args(["enrol", "--client", "cli", "--all-tools", "--ttl", ttl])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("at most one year"));
    }
    let (_, list) = s.json(&["tokens", "list"]);
    assert_eq!(list["result"]["tokens"].as_array().unwrap().len(), 0);
    s.devint()
        .args(["enrol", "--client", "cli", "--all-tools", "--ttl", "1y"])
        .assert()
        .code(0);
}

#[test]
fn rotate_and_revoke_without_a_terminal_refuse_without_yes_and_change_nothing() {
    let mut s = Sandbox::new();
    s.serve();
    let id = s.enrol("full");
    let token = std::fs::read(s.token_file()).unwrap();
    for verb in ["rotate", "revoke"] {
        s.devint()
            .args(["tokens", verb, &id])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "pass --yes to tokens {verb}"
            )));
    }
    let (_, list) = s.json(&["tokens", "list"]);
    let tokens = list["result"]["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 1, "{list}");
    assert_eq!(tokens[0]["token_id"], id.as_str());
    assert_eq!(std::fs::read(s.token_file()).unwrap(), token);
    s.devint().arg("tools").assert().code(0);
}

#[test]
fn revoke_asks_at_a_terminal_and_no_keeps_the_token() {
    let mut s = Sandbox::new();
    s.serve();
    let id = s.enrol("full");
    let (code, screen) = s.at_terminal(&["tokens", "revoke", &id], "n\n");
    assert_eq!(code, 9, "{screen}");
    assert!(screen.contains("Revoke token"), "{screen}");
    s.devint().arg("tools").assert().code(0);
}

#[test]
fn a_token_file_that_is_a_fifo_fails_promptly_naming_it_instead_of_hanging() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let token = s.token_file();
    std::fs::remove_file(&token).unwrap();
    devint_fs::special::mkfifo(&token);
    // The timeout is a hang guard (a blocking open of the FIFO never returns), not a
    // measure of speed.
    let out = s
        .devint()
        .arg("tools")
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some(),
        "killed by the hang guard: {stderr}"
    );
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("named pipe"), "{stderr}");
    assert!(stderr.contains(&token.display().to_string()), "{stderr}");
}
