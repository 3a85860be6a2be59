//! Every human output of the command, snapshotted from the real binary against a real
//! `devint serve` in a sandbox (ids, digests, times and paths redacted). A change of
//! wording shows up here as a snapshot diff to review.

mod cli_support;

use cli_support::Sandbox;

/// A settings file a Claude Code user might have.
const SETTINGS: &str =
    "{\n  \"model\": \"claude-sonnet-4-5\",\n  \"env\": { \"DISABLE_TELEMETRY\": \"1\" }\n}\n";

fn plan_id(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("devint apply claude-code --plan "))
        .expect("plan prints the command that applies it")
        .to_owned()
}

#[test]
fn the_journey_reads_as_words_with_one_result_line_per_command() {
    let mut s = Sandbox::new();
    let settings = s.home().join(".claude/settings.json");
    std::fs::write(&settings, SETTINGS).unwrap();
    s.serve();
    s.snapshot(
        "enrol",
        &["enrol", "--client", "cli", "--all-tools", "--verbs", "full"],
    );
    s.snapshot("tools", &["tools"]);
    s.snapshot("status_overview_before", &["status"]);
    s.snapshot("status_before", &["status", "claude-code"]);
    let (code, stdout) = s.snapshot("plan", &["plan", "claude-code", "--scope", "user"]);
    assert_eq!(code, 0);
    let id = plan_id(&stdout);
    s.snapshot(
        "apply_plan",
        &["apply", "claude-code", "--plan", &id, "--yes"],
    );
    s.snapshot(
        "apply_plan_again_is_refused",
        &["apply", "claude-code", "--plan", &id, "--yes"],
    );
    s.snapshot("status_after_apply", &["status", "claude-code"]);
    s.snapshot("verify", &["verify", "claude-code"]);
    s.snapshot("status_overview_integrated", &["status"]);
    // Something changes the value devint wrote.
    let text = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(
        &settings,
        text.replace("http://127.0.0.1:4000", "http://elsewhere.invalid"),
    )
    .unwrap();
    s.snapshot("status_drifted", &["status", "claude-code"]);
    s.snapshot("status_overview_drifted", &["status"]);
    s.snapshot("repair", &["repair", "claude-code", "--yes"]);
    s.snapshot(
        "events",
        &["events", "claude-code", "--since", "2023-11-14T22:13:20Z"],
    );
    raise_approval(&s, "0123456789abcdef0123456789abcdef");
    s.snapshot(
        "approve",
        &[
            "approve",
            "claude-code",
            "0123456789abcdef0123456789abcdef",
            "defer",
            "--yes",
        ],
    );
    s.snapshot("remove", &["remove", "claude-code", "--yes"]);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
    s.snapshot("remove_nothing_installed", &["remove", "codex"]);
    s.snapshot(
        "apply_scope_preview",
        &["apply", "claude-code", "--scope", "user", "--yes"],
    );
    s.snapshot(
        "apply_again_unchanged",
        &["apply", "claude-code", "--scope", "user", "--yes"],
    );
    s.snapshot("tokens_list", &["tokens", "list"]);
    s.snapshot("status_all", &["status", "--all"]);
    let (_, list) = s.json(&["tokens", "list"]);
    let id = list["result"]["tokens"][0]["token_id"]
        .as_str()
        .unwrap()
        .to_owned();
    s.snapshot("tokens_rotate", &["tokens", "rotate", &id, "--yes"]);
    let (_, list) = s.json(&["tokens", "list"]);
    let id = list["result"]["tokens"][0]["token_id"]
        .as_str()
        .unwrap()
        .to_owned();
    s.snapshot("tokens_revoke", &["tokens", "revoke", &id, "--yes"]);
    s.snapshot("tokens_list_empty", &["tokens", "list"]);
}

/// The gateway raises approval `id` for claude-code (the reference runtime's
/// `approvals/pending.jsonl`).
fn raise_approval(s: &Sandbox, id: &str) {
    let dir = s.state().join("devint/runtime/approvals");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("pending.jsonl"),
        format!("{{\"approval_id\": \"{id}\", \"tool_id\": \"claude-code\"}}\n"),
    )
    .unwrap();
}

#[test]
fn refusals_name_what_was_refused_and_what_to_do() {
    let mut s = Sandbox::new();
    s.snapshot("not_running", &["tools"]);
    s.serve();
    s.snapshot("not_enrolled", &["tools"]);
    s.enrol("read-only");
    s.snapshot("unknown_tool", &["status", "codx"]);
    s.snapshot("malformed_tool", &["status", "Claude_Code"]);
    s.snapshot("out_of_scope", &["plan", "claude-code", "--scope", "user"]);
    s.snapshot("scope_value", &["plan", "claude-code", "--scope", "usr"]);
    s.snapshot(
        "approval_id",
        &["approve", "claude-code", "an id", "approve"],
    );
    s.enrol("full");
    s.snapshot(
        "unknown_policy",
        &[
            "plan",
            "claude-code",
            "--scope",
            "user",
            "--policy",
            "recomended",
        ],
    );
    s.snapshot(
        "flag_does_not_apply",
        &["status", "--state-dir", "/nonexistent"],
    );
    s.snapshot(
        "approve_unknown",
        &[
            "approve",
            "claude-code",
            "fedcba9876543210fedcba9876543210",
            "approve",
            "--yes",
        ],
    );
    s.snapshot(
        "approve_without_yes",
        &[
            "approve",
            "claude-code",
            "fedcba9876543210fedcba9876543210",
            "approve",
        ],
    );
    s.snapshot(
        "apply_unknown_plan",
        &[
            "apply",
            "claude-code",
            "--plan",
            "0123456789abcdef0123456789abcdef",
        ],
    );
}

#[test]
fn profiles_version_and_demo_read_as_words() {
    let mut s = Sandbox::new();
    s.snapshot("profile_list_before_serve", &["profile", "list"]);
    s.snapshot("version_no_runtime", &["version"]);
    s.serve();
    std::fs::create_dir_all(s.state().join("devint/runtime/profiles")).unwrap();
    std::fs::write(
        s.state().join("devint/runtime/profiles/team.toml"),
        "display_name = \"Team\"\ngateway_base_url = \"https://gw.example\"\nhook_command = \"aa-hook\"\nmcp_deny = [\"shell\"]\n",
    )
    .unwrap();
    s.snapshot("profile_list", &["profile", "list"]);
    s.snapshot("profile_show", &["profile", "show", "recommended"]);
    s.snapshot("profile_show_team", &["profile", "show", "team"]);
    s.snapshot("profile_show_unknown", &["profile", "show", "recomended"]);
    s.snapshot("version", &["version"]);
}

#[test]
fn the_demo_narrates_every_step() {
    let s = Sandbox::new();
    let (code, _) = s.snapshot("demo", &["demo"]);
    assert_eq!(code, 0);
}

#[test]
fn a_long_plan_fits_an_80_column_terminal() {
    let mut s = Sandbox::new();
    s.fake_tool("codex", "codex-cli 0.46.0");
    s.serve();
    s.enrol("full");
    let (code, stdout) = s.snapshot_env(
        "plan_codex_80_columns",
        &[("COLUMNS", "80")],
        &["plan", "codex", "--scope", "user", "--profile", "strict"],
    );
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.lines().count() > 8, "a long plan: {stdout}");
    for line in stdout.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line:?}",
            line.chars().count()
        );
    }
}

#[test]
fn an_expired_plan_is_refused_and_says_to_review_a_new_one() {
    let mut s = Sandbox::new();
    let settings = s.home().join(".claude/settings.json");
    std::fs::write(&settings, SETTINGS).unwrap();
    s.serve_args(&["--plan-ttl", "1s"]);
    s.enrol("full");
    let (code, stdout, _) = s.run(&["plan", "claude-code", "--scope", "user"]);
    assert_eq!(code, 0, "{stdout}");
    let id = plan_id(&stdout);
    // The runtime's clock, in whole seconds, passes the plan's expiry.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let (code, _) = s.snapshot(
        "apply_expired_plan",
        &["apply", "claude-code", "--plan", &id, "--yes"],
    );
    assert_ne!(code, 0);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
    let (_, _, stderr) = s.run(&["apply", "claude-code", "--plan", &id, "--yes"]);
    assert!(stderr.contains("expired"), "{stderr}");
}
