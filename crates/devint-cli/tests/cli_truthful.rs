//! What `devint` says is true: a declined consent changes nothing `status` reports, exit
//! codes agree with the words printed beside them, and every "to fix" names what the user
//! actually did and, followed, fixes it. Each test runs the real binary against a real
//! runtime in its own sandbox.

mod cli_support;

use cli_support::Sandbox;

/// A sandbox with a runtime, client `cli` enrolled for every verb, and claude-code
/// integrated and verified at user scope.
fn integrated() -> Sandbox {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let (code, _, err) = s.run(&["apply", "claude-code", "--scope", "user", "--yes"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = s.run(&["verify", "claude-code"]);
    assert_eq!(code, 0, "{err}");
    s
}

/// claude-code's phase, as `status --output json` reports it.
fn phase(s: &Sandbox) -> String {
    let (code, doc) = s.json(&["status", "claude-code"]);
    assert_eq!(code, 0, "{doc}");
    doc["result"]["phase"].as_str().unwrap().to_owned()
}

/// claude-code's line of the `status` overview.
fn overview_line(s: &Sandbox) -> String {
    let (code, out, err) = s.run(&["status"]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .find(|l| l.starts_with("claude-code "))
        .unwrap_or_else(|| panic!("no claude-code line: {out}"))
        .to_owned()
}

#[test]
fn a_declined_removal_changes_nothing_status_reports() {
    let s = integrated();
    let before = overview_line(&s);
    assert_eq!(phase(&s), "installed");
    assert!(
        before.contains("integrated") && before.ends_with(" -"),
        "{before}"
    );

    // Refused without a terminal (exit 2), then answered "n" at one (exit 9).
    let (code, _, err) = s.run(&["remove", "claude-code"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(phase(&s), "installed", "a refused removal left a trace");
    assert_eq!(overview_line(&s), before);
    let (code, screen) = s.at_terminal(&["remove", "claude-code"], "n\n");
    assert_eq!(code, 9, "{screen}");
    assert!(screen.contains("nothing was changed"), "{screen}");
    assert_eq!(phase(&s), "installed", "a declined removal left a trace");
    assert_eq!(overview_line(&s), before);

    // A later removal and a new integration are not shadowed by the declined previews.
    for args in [
        &["remove", "claude-code", "--yes"][..],
        &["apply", "claude-code", "--scope", "user", "--yes"],
        &["verify", "claude-code"],
    ] {
        let (code, _, err) = s.run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    assert_eq!(phase(&s), "installed");
    assert_eq!(overview_line(&s), before);
}

#[test]
fn repair_with_nothing_drifted_claims_no_restoration() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let (code, _, err) = s.run(&["apply", "claude-code", "--scope", "user", "--yes"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = s.run(&["repair", "claude-code", "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Nothing needed repair for claude-code."),
        "{out}"
    );
    assert!(
        !out.to_lowercase().contains("restored"),
        "nothing was restored: {out}"
    );
    // What it says to do next reaches what it promises.
    assert!(out.contains("`devint verify claude-code`"), "{out}");
    let (code, _, err) = s.run(&["verify", "claude-code"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn verify_of_a_drifted_file_says_drifted_and_exits_5() {
    let s = integrated();
    let settings = s.home().join(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(&settings, text.replace("127.0.0.1:4000", "127.0.0.1:9999")).unwrap();
    let (code, out, err) = s.run(&["verify", "claude-code"]);
    assert_eq!(code, 5, "{out}{err}");
    let headline = out.lines().next().unwrap_or_default();
    assert!(headline.contains("drifted"), "{out}");
    assert!(
        !out.contains("verification failed"),
        "exit 5 is drifted: {out}"
    );
    assert!(out.contains("`devint repair claude-code`"), "{out}");
    // Following it: repair, then verify passes.
    let (code, _, err) = s.run(&["repair", "claude-code", "--yes"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = s.run(&["verify", "claude-code"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("verification passed"), "{out}");
}

/// The command between the first pair of backticks of the line after "to fix:" in `text`.
fn suggested(text: &str) -> String {
    let fix = text
        .split("to fix:")
        .nth(1)
        .unwrap_or_else(|| panic!("no remediation: {text}"));
    fix.split('`')
        .nth(1)
        .unwrap_or_else(|| panic!("no command in the remediation: {text}"))
        .to_owned()
}

/// Run a suggested `devint …` command line (its words split on spaces) at a terminal,
/// answering `y` to any question; returns its exit code and screen.
fn follow(s: &Sandbox, command: &str) -> (i32, String) {
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"devint"), "{command}");
    s.at_terminal(&words[1..], "y\n")
}

#[test]
fn whoami_with_a_revoked_or_expired_token_exits_8_and_the_fix_works() {
    let mut s = Sandbox::new();
    s.serve();
    let id = s.enrol("full");
    let (code, _, err) = s.run(&["whoami"]);
    assert_eq!(code, 0, "{err}");

    let (code, _, err) = s.run(&["tokens", "revoke", &id, "--yes"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = s.run(&["whoami"]);
    assert_eq!(code, 8, "a revoked token is no usable token: {out}{err}");
    assert!(err.contains("revoked"), "{err}");
    let (code, screen) = follow(&s, &suggested(&err));
    assert_eq!(code, 0, "{screen}");
    let (code, _, err) = s.run(&["whoami"]);
    assert_eq!(code, 0, "{err}");

    let (code, _, err) = s.run(&[
        "enrol",
        "--client",
        "cli",
        "--all-tools",
        "--verbs",
        "full",
        "--ttl",
        "1s",
        "--yes",
    ]);
    assert_eq!(code, 0, "{err}");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let (code, doc) = s.json(&["whoami"]);
    assert_eq!(code, 8, "an expired token is no usable token: {doc}");
    assert_eq!(doc["error"]["exit"], 8);
    let (code, _, err) = s.run(&["whoami"]);
    assert_eq!(code, 8);
    assert!(err.contains("expired"), "{err}");
    let (code, screen) = follow(&s, &suggested(&err));
    assert_eq!(code, 0, "{screen}");
    let (code, _, err) = s.run(&["whoami"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = s.run(&["status", "claude-code"]);
    assert_eq!(code, 0, "the replaced token works: {err}");
}

/// One JSON-RPC exchange with a `devint sidecar`: send `method` with `params`, read the
/// answer.
fn rpc(
    stdin: &mut std::process::ChildStdin,
    stdout: &mut impl std::io::BufRead,
    id: u32,
    method: &str,
    params: serde_json::Value,
) -> serde_json::Value {
    use std::io::Write;
    let line = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    writeln!(stdin, "{line}").unwrap();
    let mut answer = String::new();
    stdout.read_line(&mut answer).unwrap();
    serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer}"))
}

#[test]
fn every_client_reads_its_own_client_name_token_by_default() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let (code, _, err) = s.run(&["enrol", "--client", "vscode", "--tool", "claude-code"]);
    assert_eq!(code, 0, "{err}");
    assert!(s.client_token_file("vscode").exists());
    assert!(!s.run_dir().join("devint.token").exists());

    // The command: client `cli`, `--client vscode`, or the file AA_DEVINT_TOKEN_FILE names.
    let (code, doc) = s.json(&["whoami"]);
    assert_eq!(
        (code, doc["result"]["client_name"].as_str()),
        (0, Some("cli"))
    );
    let (code, doc) = s.json(&["whoami", "--client", "vscode"]);
    assert_eq!(
        (code, doc["result"]["client_name"].as_str()),
        (0, Some("vscode"))
    );
    let named = s.client_token_file("vscode").display().to_string();
    let (code, out, err) = s.run_env(&[("AA_DEVINT_TOKEN_FILE", &named)], &["whoami"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("client   vscode"), "{out}");

    // The sidecar: a host named `vscode` reads vscode.token, by the same rule.
    let mut sidecar = s
        .std_command(std::path::Path::new(cli_support::DEVINT))
        .arg("sidecar")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = sidecar.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(sidecar.stdout.take().unwrap());
    let hello = serde_json::json!({"client_name": "vscode", "client_version": "1"});
    let init = rpc(&mut stdin, &mut stdout, 1, "initialize", hello.clone());
    assert!(init["result"].is_object(), "{init}");
    let opened = rpc(&mut stdin, &mut stdout, 2, "session/open", hello);
    assert_eq!(opened["result"]["token_file"], named.as_str(), "{opened}");
    let session = opened["result"]["session_id"].clone();
    let status = rpc(
        &mut stdin,
        &mut stdout,
        3,
        "lifecycle/status",
        serde_json::json!({"session_id": session, "tool_id": "claude-code"}),
    );
    assert_eq!(status["result"]["tool_id"], "claude-code", "{status}");
    drop(stdin);
    assert!(sidecar.wait().unwrap().success());
}

/// The remediation printed after "to fix:" in `err`.
fn fix_of(err: &str) -> String {
    err.split("to fix:")
        .nth(1)
        .unwrap_or_else(|| panic!("no remediation: {err}"))
        .trim()
        .to_owned()
}

#[test]
fn a_regular_file_at_the_socket_path_is_named_and_either_fix_works() {
    let mut s = Sandbox::new();
    let n = s.serve();
    s.enrol("full");
    let file = s.run_dir().join("devint-file.sock");
    std::fs::write(&file, "not a socket").unwrap();
    let at = file.display().to_string();
    let (code, _, err) = s.run_env(&[("AA_DEVINT_SOCKET", &at)], &["status", "claude-code"]);
    assert_eq!(code, 2, "an unusable socket path is a usage error: {err}");
    assert!(!err.contains("no devint runtime is running"), "{err}");
    assert!(err.contains("is not a Unix socket"), "{err}");
    let fix = fix_of(&err);
    assert!(
        fix.starts_with("set AA_DEVINT_SOCKET to the socket a runtime serves on"),
        "{fix}"
    );
    assert!(
        fix.contains(&format!(
            "or move {at} aside and start a runtime there with `devint serve`"
        )),
        "{fix}"
    );
    // The same mistake made with --socket is fixed with --socket.
    let (code, _, err) = s.run(&["--socket", &at, "status", "claude-code"]);
    assert_eq!(code, 2, "{err}");
    let fix = fix_of(&err);
    assert!(
        fix.starts_with("pass --socket the socket a runtime serves on"),
        "{fix}"
    );
    assert!(
        fix.contains(&format!("`devint serve --socket {at}`")),
        "{fix}"
    );

    // First fix: point the variable at the socket the runtime serves on.
    let serving = s.socket().display().to_string();
    let (code, _, err) = s.run_env(
        &[("AA_DEVINT_SOCKET", &serving)],
        &["status", "claude-code"],
    );
    assert_eq!(code, 0, "{err}");
    // Second fix: move the file aside and start a runtime there.
    s.terminate(n);
    std::fs::remove_file(&file).unwrap();
    s.serve_on(&file);
    let (code, _, err) = s.run_env(&[("AA_DEVINT_SOCKET", &at)], &["status", "claude-code"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_socket_path_over_the_limit_is_a_usage_error_fixed_as_the_user_chose_it() {
    let mut s = Sandbox::new();
    let long = s
        .root()
        .join("a".repeat(120))
        .join("devint.sock")
        .display()
        .to_string();
    let short = s.socket().display().to_string();

    // `serve --socket LONG`: the fix is a shorter --socket, which then serves.
    let (code, _, err) = s.run(&["serve", "--socket", &long]);
    assert_eq!(code, 2, "{err}");
    let fix = fix_of(&err);
    assert!(fix.starts_with("pass --socket a shorter path"), "{fix}");
    assert!(
        !err.contains("AA_DEVINT_SOCKET"),
        "the user passed --socket: {err}"
    );
    s.serve_args(&["--socket", &short]);
    s.enrol("full");

    // A client: exit 2 with the limit, fixed as the path was given.
    let (code, _, err) = s.run_env(&[("AA_DEVINT_SOCKET", &long)], &["status", "claude-code"]);
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("SUN_LEN"), "{err}");
    assert!(err.contains("can be at most 107 bytes"), "{err}");
    assert_eq!(
        fix_of(&err),
        "set AA_DEVINT_SOCKET to a path of at most 107 bytes"
    );
    let (code, _, err) = s.run(&["--socket", &long, "status", "claude-code"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(fix_of(&err), "pass --socket a path of at most 107 bytes");
    let (code, _, err) = s.run_env(&[("AA_DEVINT_SOCKET", &short)], &["status", "claude-code"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = s.run(&["--socket", &short, "status", "claude-code"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_settings_file_too_large_is_told_to_shrink_and_then_plans() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let settings = s.home().join(".claude/settings.json");
    std::fs::File::create(&settings)
        .unwrap()
        .set_len(50 << 20)
        .unwrap();
    let (code, _, err) = s.run(&["plan", "claude-code", "--scope", "user"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is larger than"), "{err}");
    let fix = fix_of(&err);
    assert!(!fix.contains("readable"), "the file is readable: {fix}");
    assert_eq!(
        fix,
        format!(
            "make {} smaller than 4 MiB (or move it aside), then plan again",
            settings.display()
        )
    );
    // Following it: a settings file of a usual size.
    std::fs::write(&settings, "{\n  \"model\": \"sonnet\"\n}\n").unwrap();
    let (code, _, err) = s.run(&["plan", "claude-code", "--scope", "user"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_client_denied_apply_is_given_a_scope_that_covers_the_whole_command() {
    let mut s = Sandbox::new();
    s.serve();
    let (code, _, err) = s.run(&["enrol", "--client", "vscode", "--tool", "claude-code"]);
    assert_eq!(code, 0, "{err}");
    let apply = [
        "apply",
        "claude-code",
        "--scope",
        "user",
        "--yes",
        "--client",
        "vscode",
    ];
    let (code, _, err) = s.run(&apply);
    assert_eq!(code, 8, "{err}");
    let command = suggested(&err);
    let verbs = command
        .split("--verbs ")
        .nth(1)
        .unwrap_or_else(|| panic!("{command}"));
    for verb in ["plan", "apply"] {
        assert!(
            verbs.split(',').any(|v| v == verb),
            "{verb} missing: {command}"
        );
    }
    let (code, screen) = follow(&s, &command);
    assert_eq!(code, 0, "{screen}");
    let (code, _, err) = s.run(&apply);
    assert_eq!(code, 0, "the fix covered the command: {err}");
}

#[test]
fn a_settings_file_that_does_not_parse_is_said_by_status_and_refused_by_plan() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let settings = s.home().join(".claude/settings.json");
    std::fs::write(&settings, "{ \"model\": \"sonnet\", oops").unwrap();
    let file = settings.display().to_string();

    let (code, doc) = s.json(&["status", "claude-code"]);
    assert_eq!(code, 0, "{doc}");
    let reason = doc["result"]["state_reason"].as_str().unwrap_or_default();
    assert!(reason.contains(&file) && reason.contains("line 1"), "{doc}");
    let (code, out, _) = s.run(&["status", "claude-code"]);
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!("why: {file} does not parse")),
        "{out}"
    );
    assert!(
        out.contains("next step: `devint status claude-code`"),
        "{out}"
    );
    assert!(overview_line(&s).ends_with("devint status claude-code"));

    let (code, out, err) = s.run(&["plan", "claude-code", "--scope", "user"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.is_empty(), "no plan is shown: {out}");
    assert!(err.contains(&file) && err.contains("line 1"), "{err}");
    // Refused before consent is asked.
    let (code, screen) = s.at_terminal(&["apply", "claude-code", "--scope", "user"], "y\n");
    assert_eq!(code, 1, "{screen}");
    assert!(!screen.contains("[y/N]"), "consent was asked: {screen}");
    assert!(screen.contains(&file), "{screen}");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{ \"model\": \"sonnet\", oops"
    );

    // Following the fix: the syntax fixed, the plan goes through and status is plain.
    assert!(
        fix_of(&err).starts_with(&format!("fix the syntax of {file} at line 1")),
        "{err}"
    );
    std::fs::write(&settings, "{ \"model\": \"sonnet\" }\n").unwrap();
    let (code, _, err) = s.run(&["plan", "claude-code", "--scope", "user"]);
    assert_eq!(code, 0, "{err}");
    let (_, doc) = s.json(&["status", "claude-code"]);
    assert_eq!(
        doc["result"]["state_reason"],
        serde_json::Value::Null,
        "{doc}"
    );
}
