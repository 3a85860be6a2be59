//! The command in pipes and scripts: closed pipes, signals, refused flags, colour, logs,
//! versions, durations, review-then-apply, completion and manual pages.

mod cli_support;

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cli_support::Sandbox;
use predicates::prelude::*;

fn devint_bin() -> PathBuf {
    std::path::PathBuf::from(env!("CARGO_BIN_EXE_devint"))
}

/// `devint ARGS` as a child of ours with the sandbox's environment.
fn child(s: &Sandbox, args: &[&str]) -> Command {
    let mut c = Command::new(devint_bin());
    c.env_clear();
    for (k, v) in [
        ("HOME", s.home()),
        ("PATH", s.bin()),
        ("AA_DEVINT_SOCKET", s.socket()),
        ("AA_DEVINT_STATE_DIR", s.state()),
        ("NO_COLOR", PathBuf::from("1")),
    ] {
        c.env(k, v);
    }
    c.args(args);
    c
}

fn demo_dirs_of(pid: u32) -> Vec<PathBuf> {
    std::fs::read_dir("/tmp")
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("devint-demo-{pid}-")))
        })
        .collect()
}

#[test]
fn a_closed_stdout_ends_a_command_quietly_with_status_141() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    for args in [&["tools"][..], &["status", "--all"], &["--help"]] {
        let mut c = child(&s, args);
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut running = c.spawn().unwrap();
        // The reader goes away before the command has written anything.
        drop(running.stdout.take());
        let mut stderr = String::new();
        running
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = running.wait().unwrap();
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        if args[0] != "--help" {
            // clap prints --help itself and exits 0; our commands report the closed pipe.
            assert_eq!(status.code(), Some(141), "{args:?}: {stderr}");
            assert!(stderr.is_empty(), "{args:?} was not quiet: {stderr}");
        }
    }
}

#[test]
fn the_demo_removes_its_sandbox_when_its_stdout_is_closed() {
    let s = Sandbox::new();
    let mut c = child(&s, &["demo"]);
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut running = c.spawn().unwrap();
    let pid = running.id();
    let mut first = [0u8; 16];
    running
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    assert_eq!(&first[..11], b"devint demo");
    drop(running.stdout.take());
    let status = running.wait().unwrap();
    assert_eq!(status.code(), Some(141));
    assert_eq!(demo_dirs_of(pid), Vec::<PathBuf>::new());
}

#[test]
fn ctrl_c_or_sigterm_stop_the_demo_remove_its_sandbox_and_exit_128_plus_the_signal() {
    for (signal, code) in [
        (rustix::process::Signal::INT, 130),
        (rustix::process::Signal::TERM, 143),
    ] {
        let s = Sandbox::new();
        let mut c = child(&s, &["demo"]);
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut running = c.spawn().unwrap();
        let pid = running.id();
        // Wait until the runtime is serving (the sandbox exists and is in use).
        let mut seen = Vec::new();
        let mut stdout = running.stdout.take().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !String::from_utf8_lossy(&seen).contains("runtime serving on") {
            let mut byte = [0u8; 1];
            assert_eq!(stdout.read(&mut byte).unwrap(), 1, "demo ended early");
            seen.push(byte[0]);
            assert!(Instant::now() < deadline);
        }
        assert_eq!(demo_dirs_of(pid).len(), 1);
        rustix::process::kill_process(rustix::process::Pid::from_raw(pid as i32).unwrap(), signal)
            .unwrap();
        let mut rest = Vec::new();
        let _ = stdout.read_to_end(&mut rest);
        let status = running.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{signal:?}");
        assert_eq!(demo_dirs_of(pid), Vec::<PathBuf>::new(), "{signal:?}");
    }
}

#[test]
fn global_flags_that_do_not_apply_are_refused() {
    let s = Sandbox::new();
    for args in [
        &["status", "--state-dir", "/nonexistent"][..],
        &["--state-dir", "/nonexistent", "tools"],
        &["tools", "--allow-unverified-runtime"],
        &["--output", "json", "demo"],
        &["--socket", "/x/devint.sock", "completions", "bash"],
        &["manpages", "/tmp/x", "--output", "json"],
        &[
            "--allow-unverified-runtime",
            "enrol",
            "--client",
            "x",
            "--all-tools",
        ],
    ] {
        s.devint()
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("does not apply to"));
    }
    // Where they apply they are taken (no runtime here: exit 7, not 2).
    s.devint()
        .args([
            "--allow-unverified-runtime",
            "repair",
            "claude-code",
            "--yes",
        ])
        .assert()
        .code(7);
    s.devint()
        .args(["--state-dir", s.state().to_str().unwrap(), "tokens", "list"])
        .assert()
        .code(0);
}

#[test]
fn colour_follows_color_no_color_and_clicolor_force() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    let has_escape = |mut c: assert_cmd::Command| {
        let out = c.output().unwrap();
        assert!(out.status.success() || out.status.code() == Some(0));
        out.stdout.contains(&0x1b)
    };
    // The harness sets NO_COLOR=1 and stdout is a pipe.
    let mut c = s.devint();
    c.args(["status", "claude-code"]);
    assert!(!has_escape(c));
    let mut c = s.devint();
    c.args(["--color", "always", "status", "claude-code"]);
    assert!(has_escape(c), "--color always overrides NO_COLOR");
    let mut c = s.devint();
    c.env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .args(["status", "claude-code"]);
    assert!(has_escape(c), "CLICOLOR_FORCE colours a pipe");
    let mut c = s.devint();
    c.env("CLICOLOR_FORCE", "1").args(["status", "claude-code"]);
    assert!(!has_escape(c), "NO_COLOR wins over CLICOLOR_FORCE");
    let mut c = s.devint();
    c.env_remove("NO_COLOR").env("CLICOLOR_FORCE", "1").args([
        "--color",
        "never",
        "status",
        "claude-code",
    ]);
    assert!(!has_escape(c), "--color never wins");
}

#[test]
fn serve_logs_carry_no_colour_codes_when_stderr_is_not_a_terminal() {
    let s = Sandbox::new();
    let log = s.root().join("serve.err");
    let mut c = child(&s, &["-v", "serve"]);
    c.env_remove("NO_COLOR")
        .env("TERM", "xterm-256color")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap());
    let mut running = c.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !s.socket().exists() {
        assert!(Instant::now() < deadline, "serve did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(running.id() as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    running.wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("INFO"), "{text}");
    assert!(!text.contains('\x1b'), "{text}");
}

#[test]
fn quiet_silences_warnings_but_not_results() {
    let mut s = Sandbox::new();
    s.serve();
    s.enrol("full");
    // A plan that cannot be kept for `apply --plan` is worth a warning.
    std::fs::write(s.run_dir().join("cli-plans"), "not a directory").unwrap();
    let loud = s.run(&["plan", "claude-code", "--scope", "user"]);
    assert_eq!(loud.0, 0);
    assert!(loud.2.contains("warning:"), "{}", loud.2);
    let quiet = s.run(&["-q", "plan", "claude-code", "--scope", "user"]);
    assert_eq!(quiet.0, 0);
    assert!(quiet.2.is_empty(), "{}", quiet.2);
    assert!(quiet.1.contains("Plan "), "{}", quiet.1);
}

#[test]
fn version_is_one_line_and_the_version_command_names_both_builds() {
    let s = Sandbox::new();
    s.devint().arg("--version").assert().code(0).stdout(
        predicate::str::is_match(r"^devint 0\.1\.0 \(([0-9a-f]{12}|unknown)\)\n$").unwrap(),
    );
    let (code, doc) = s.json(&["version"]);
    assert_eq!(code, 0, "no runtime is not a failure of `version`");
    assert_eq!(doc["result"]["runtime_reachable"], false);
    assert_eq!(doc["result"]["client"]["di_api_versions"]["max"], 5);
    assert!(doc["runtime"].is_null());
    let mut s = s;
    s.serve();
    let (code, doc) = s.json(&["version"]);
    assert_eq!(code, 0);
    assert_eq!(doc["result"]["runtime_reachable"], true);
    assert_eq!(
        doc["runtime"]["provenance"]["build_sha"],
        doc["result"]["client"]["build_sha"]
    );
    assert_eq!(doc["runtime"]["standing"], "verified");
}

#[test]
fn durations_and_times_are_read_by_humantime() {
    let mut s = Sandbox::new();
    for (ttl, secs) in [
        ("1y", 31_557_600u64),
        ("1h30m", 5_400),
        ("45", 45),
        ("2w", 1_209_600),
    ] {
        let (code, doc) = s.json(&[
            "enrol",
            "--client",
            "d",
            "--all-tools",
            "--ttl",
            ttl,
            "--yes",
        ]);
        assert_eq!(code, 0, "{ttl}: {doc}");
        let r = &doc["result"];
        assert_eq!(
            r["expires_at_unix_secs"].as_u64().unwrap()
                - r["issued_at_unix_secs"].as_u64().unwrap(),
            secs,
            "{ttl}"
        );
    }
    s.serve();
    s.enrol("full");
    for since in [
        "2h",
        "2023-11-14T22:13:20Z",
        "2023-11-14 22:13:20",
        "1700000000",
    ] {
        s.devint()
            .args(["events", "claude-code", "--since", since])
            .assert()
            .code(0);
    }
}

#[test]
fn enroll_is_an_alias_of_enrol() {
    let s = Sandbox::new();
    let (code, doc) = s.json(&["enroll", "--client", "us", "--all-tools"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["command"], "enrol");
}

#[test]
fn apply_plan_applies_exactly_the_reviewed_plan_once_and_only_for_its_token() {
    let mut s = Sandbox::new();
    std::fs::write(s.home().join(".claude/settings.json"), "{}\n").unwrap();
    s.serve();
    s.enrol("full");
    let (code, doc) = s.json(&["plan", "claude-code", "--scope", "user"]);
    assert_eq!(code, 0);
    let id = doc["result"]["plan_id"].as_str().unwrap().to_owned();
    // Another client, with its own token file, may not apply this client's plan.
    let other = s.root().join("other.token");
    let (code, _) = s.json(&[
        "enrol",
        "--client",
        "other",
        "--all-tools",
        "--verbs",
        "full",
        "--token-file",
        other.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    s.devint()
        .env("AA_DEVINT_TOKEN_FILE", &other)
        .args(["apply", "claude-code", "--plan", &id, "--yes"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("another client's token"));
    // Its author may, once.
    let (code, doc) = s.json(&["apply", "claude-code", "--plan", &id, "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["result"]["apply"]["plan_id"], id.as_str());
    assert_eq!(doc["result"]["plan"]["plan_id"], id.as_str());
    s.devint()
        .args(["apply", "claude-code", "--plan", &id, "--yes"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("already executed"));
    // A plan for one tool is not applied to another.
    s.devint()
        .args(["apply", "codex", "--plan", &id, "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is for claude-code"));
}

/// Ask devint, as `shell`'s completion function would, what completes `words`.
fn complete(s: &Sandbox, shell: &str, words: &[&str]) -> String {
    let mut c = s.devint();
    c.env("COMPLETE", shell)
        .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
        .env("_CLAP_IFS", "\n")
        .arg("--")
        .args(words);
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn completion_offers_tool_ids_and_every_enumerated_value() {
    let s = Sandbox::new();
    for shell in ["bash", "zsh", "fish"] {
        let tools = complete(&s, shell, &["devint", "status", "cl"]);
        assert!(tools.contains("claude-code"), "{shell}: {tools}");
        assert!(tools.contains("cline"), "{shell}: {tools}");
        assert!(!tools.contains("codex"), "{shell}: {tools}");
        let scopes = complete(&s, shell, &["devint", "plan", "codex", "--scope", ""]);
        for v in ["user", "project", "managed"] {
            assert!(scopes.contains(v), "{shell}: {scopes}");
        }
        let levels = complete(&s, shell, &["devint", "apply", "codex", "--level", "gat"]);
        assert!(levels.contains("gateway_protected"), "{shell}: {levels}");
        let verbs = complete(&s, shell, &["devint", "enrol", "--verbs", "re"]);
        assert!(
            verbs.contains("read-only") && verbs.contains("repair"),
            "{shell}: {verbs}"
        );
        let profiles = complete(&s, shell, &["devint", "profile", "show", "st"]);
        assert!(profiles.contains("strict"), "{shell}: {profiles}");
        let commands = complete(&s, shell, &["devint", "enr"]);
        assert!(commands.contains("enrol"), "{shell}: {commands}");
    }
    // Global options' values complete too, wherever the option is written.
    for shell in ["bash", "zsh", "fish"] {
        let outputs = complete(&s, shell, &["devint", "--output", ""]);
        for v in ["human", "json"] {
            assert!(outputs.contains(v), "{shell}: {outputs}");
        }
        let colours = complete(&s, shell, &["devint", "status", "--color", ""]);
        for v in ["auto", "always", "never"] {
            assert!(colours.contains(v), "{shell}: {colours}");
        }
    }
    // Client names come from the token files beside the socket.
    s.enrol("full");
    s.devint()
        .args(["enrol", "--client", "vscode", "--all-tools"])
        .assert()
        .code(0);
    let clients = complete(&s, "bash", &["devint", "tools", "--client", ""]);
    assert!(
        clients.contains("cli") && clients.contains("vscode"),
        "{clients}"
    );
    for (shell, marker) in [
        ("bash", "complete -o nospace -o bashdefault"),
        ("zsh", "#compdef devint"),
        ("fish", "complete --keep-order --exclusive --command devint"),
    ] {
        s.devint()
            .args(["completions", shell])
            .assert()
            .code(0)
            .stdout(predicate::str::contains(marker))
            .stdout(predicate::str::contains("COMPLETE"));
    }
}

#[test]
fn manual_pages_are_generated_for_every_command() {
    let s = Sandbox::new();
    let dir = s.root().join("man/man1");
    s.devint()
        .args(["manpages", dir.to_str().unwrap()])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("manual pages"));
    let top = std::fs::read_to_string(dir.join("devint.1")).unwrap();
    assert!(top.starts_with(".ie \\n(.g .ds Aq"), "{}", &top[..80]);
    assert!(top.contains(".TH devint 1"), "{top}");
    for command in [
        "plan", "apply", "status", "enrol", "tokens", "profile", "whoami", "version",
    ] {
        let page = std::fs::read_to_string(dir.join(format!("devint-{command}.1")))
            .unwrap_or_else(|e| panic!("devint-{command}.1: {e}"));
        assert!(page.contains(".SH NAME"), "{command}");
    }
    let apply = std::fs::read_to_string(dir.join("devint-apply.1")).unwrap();
    assert!(apply.contains("plan"), "{apply}");
    // A real SYNOPSIS (what --help shows) and the examples under EXAMPLES.
    let plan = std::fs::read_to_string(dir.join("devint-plan.1")).unwrap();
    assert!(
        plan.contains(".SH SYNOPSIS\n\\fBdevint plan\\fR [OPTIONS] \\-\\-scope <SCOPE> <TOOL>\n"),
        "{plan}"
    );
    assert!(
        plan.contains(".SH \"EXAMPLES\"\n.PP\n.nf\n.RS 4\ndevint plan claude\\-code"),
        "{plan}"
    );
    assert!(!plan.contains(".SH EXTRA"), "{plan}");
    // The pages are readable files, not executables.
    let mode = std::fs::metadata(dir.join("devint.1"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0);
}

#[test]
fn plan_and_apply_help_list_every_value_of_scope_profile_and_level() {
    let s = Sandbox::new();
    for command in ["plan", "apply"] {
        let out = s.devint().args([command, "--help"]).output().unwrap();
        assert!(out.status.success());
        let help = String::from_utf8(out.stdout).unwrap();
        // Each flag's section of the help, up to the next flag.
        let section = |flag: &str| {
            let start = help
                .find(&format!("{flag} <"))
                .unwrap_or_else(|| panic!("{command} --help has no {flag}: {help}"));
            let rest = &help[start + flag.len()..];
            let end = rest.find("\n  -").unwrap_or(rest.len());
            rest[..end].to_owned()
        };
        for (flag, values) in [
            ("--scope", &["user", "project", "managed"][..]),
            ("--profile", &["recommended", "strict", "observe_only"]),
            (
                "--level",
                &[
                    "not_installed",
                    "detected_not_integrated",
                    "partially_integrated",
                    "integrated",
                    "gateway_protected",
                    "host_enforced",
                ],
            ),
        ] {
            let text = section(flag);
            for v in values {
                assert!(
                    text.contains(v),
                    "{command} {flag} does not list {v}: {text}"
                );
            }
        }
    }
}
