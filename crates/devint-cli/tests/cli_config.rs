//! The runtime's configuration file, end to end: a gateway URL set with `devint config set`
//! reaches the tool's settings file through a real `serve`; a flag overrides the file, the
//! user's file overrides the machine's; a malformed file or an unknown key stops `serve`
//! naming the file and line; `devint restart` (SIGHUP) puts an edited file in force; and a
//! runtime without a gateway URL says so, in its banner and in `devint status`, with a
//! command that fixes it (run here as printed).

mod cli_support;

use cli_support::Sandbox;

const USAGE: i32 = 2;

/// The gateway URL the runtime wrote into Claude Code's settings, after applying a user
/// scope plan (`None` when the plan wrote none).
fn applied_gateway(s: &Sandbox) -> Option<String> {
    let (code, out, err) = s.run(&["apply", "claude-code", "--scope", "user", "--yes"]);
    assert_eq!(code, 0, "{out}{err}");
    let settings = std::fs::read_to_string(s.home().join(".claude/settings.json")).ok()?;
    let doc: serde_json::Value = serde_json::from_str(&settings).unwrap();
    doc["env"]["ANTHROPIC_BASE_URL"].as_str().map(str::to_owned)
}

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_gateway_url_from_the_config_file_reaches_the_plan() {
    let mut s = Sandbox::new().without_gateway_env();
    let (code, out, err) = s.run(&["config", "set", "gateway_url", "https://gw.example:8443"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&s.config_file().display().to_string()),
        "{out}"
    );
    let n = s.serve();
    assert!(
        s.serve_output(n).contains(&format!(
            "gateway URL: https://gw.example:8443 (from {})",
            s.config_file().display()
        )),
        "{}",
        s.serve_output(n)
    );
    s.enrol("full");
    let (code, plan, err) = s.run(&["--output", "json", "plan", "claude-code", "--scope", "user"]);
    assert_eq!(code, 0, "{err}");
    let plan: serde_json::Value = serde_json::from_str(&plan).unwrap();
    assert_eq!(
        plan["result"]["steps"].as_array().unwrap().len(),
        1,
        "{plan}"
    );
    assert_eq!(
        applied_gateway(&s).as_deref(),
        Some("https://gw.example:8443")
    );
}

#[test]
fn a_flag_overrides_the_file_and_the_users_file_overrides_the_machines() {
    let mut s = Sandbox::new().without_gateway_env();
    write(
        &s.system_config_dir().join("config.toml"),
        "gateway_url = \"http://machine.example\"\nplan_ttl = \"2h\"\n",
    );
    write(&s.config_file(), "gateway_url = \"http://user.example\"\n");
    let (code, out, _) = s.run(&["config", "show"]);
    assert_eq!(code, 0);
    let user_line = out.lines().find(|l| l.starts_with("gateway_url")).unwrap();
    assert!(user_line.contains("http://user.example"), "{out}");
    let ttl_line = out.lines().find(|l| l.starts_with("plan_ttl")).unwrap();
    assert!(
        ttl_line.contains("2h") && ttl_line.contains("etc-devint"),
        "{out}"
    );

    let n = s.serve_args(&["--gateway-url", "http://flag.example"]);
    assert!(s
        .serve_output(n)
        .contains("gateway URL: http://flag.example (from --gateway-url"));
    s.enrol("full");
    assert_eq!(applied_gateway(&s).as_deref(), Some("http://flag.example"));
}

#[test]
fn the_environment_overrides_the_file() {
    let mut s = Sandbox::new();
    write(&s.config_file(), "gateway_url = \"http://user.example\"\n");
    let n = s.serve();
    assert!(
        s.serve_output(n).contains(
            "gateway URL: http://127.0.0.1:4000 (from --gateway-url or AA_DEVINT_GATEWAY_URL)"
        ),
        "{}",
        s.serve_output(n)
    );
}

#[test]
fn a_malformed_config_file_stops_serve_naming_the_file_and_line() {
    let s = Sandbox::new().without_gateway_env();
    write(
        &s.config_file(),
        "# the team's gateway\ngateway_url = http://gw\n",
    );
    let (code, _, err) = s.run(&["serve"]);
    assert_eq!(code, USAGE, "{err}");
    let file = s.config_file().display().to_string();
    assert!(
        err.contains(&format!("{file} is not valid TOML: line 2")),
        "{err}"
    );
    assert!(err.contains(&format!("to fix: edit {file}")), "{err}");
    assert!(!s.socket().exists(), "nothing was bound");
}

#[test]
fn an_unknown_key_stops_serve_naming_it_and_the_keys() {
    let s = Sandbox::new().without_gateway_env();
    write(&s.config_file(), "gateway-url = \"http://gw\"\n");
    let (code, _, err) = s.run(&["serve"]);
    assert_eq!(code, USAGE, "{err}");
    assert!(
        err.contains("line 1: unknown key `gateway-url` (did you mean gateway_url?)"),
        "{err}"
    );
    assert!(
        err.contains("the keys are gateway_url, plan_ttl, on_upgrade, project_dir, log_level"),
        "{err}"
    );
}

#[test]
fn config_set_checks_the_value_and_keeps_the_files_comments() {
    let s = Sandbox::new();
    let text = "# Our team's gateway (ask #infra before changing it)\ngateway_url = \"http://old.example\" # staging\n";
    write(&s.config_file(), text);
    let (code, _, err) = s.run(&["config", "set", "gateway_url", "ftp://user:hunter2@gw"]);
    assert_eq!(code, USAGE, "{err}");
    assert!(err.contains("gateway_url not set"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
    assert_eq!(std::fs::read_to_string(s.config_file()).unwrap(), text);

    let (code, out, err) = s.run(&["config", "set", "gateway_url", "https://new.example"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        std::fs::read_to_string(s.config_file()).unwrap(),
        "# Our team's gateway (ask #infra before changing it)\ngateway_url = \"https://new.example\" # staging\n"
    );
    let (code, out, _) = s.run(&["config", "get", "gateway_url"]);
    assert_eq!((code, out.as_str()), (0, "https://new.example\n"));
    let (code, out, err) = s.run(&["config", "get", "plan_ttl"]);
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(err.contains("its default: 15m"), "{err}");
}

#[test]
fn restart_puts_an_edited_config_file_in_force() {
    let mut s = Sandbox::new().without_gateway_env();
    s.run(&["config", "set", "gateway_url", "http://before.example"]);
    let n = s.serve();
    s.enrol("full");
    assert_eq!(
        applied_gateway(&s).as_deref(),
        Some("http://before.example")
    );
    let (code, out, err) = s.run(&["remove", "claude-code", "--yes"]);
    assert_eq!(code, 0, "{out}{err}");

    s.run(&["config", "set", "gateway_url", "http://after.example"]);
    let (code, out, err) = s.run(&["restart"]);
    assert_eq!(code, 0, "{out}{err}");
    s.wait_for_output(n, "gateway URL: http://after.example", 1);
    assert_eq!(applied_gateway(&s).as_deref(), Some("http://after.example"));
}

#[test]
fn without_a_gateway_url_serve_and_status_warn_and_the_fix_they_name_works() {
    let mut s = Sandbox::new().without_gateway_env();
    let n = s.serve();
    let banner = s.serve_output(n);
    assert!(
        banner.contains("warning: no gateway URL is configured"),
        "{banner}"
    );
    s.enrol("full");
    let (code, out, err) = s.run(&["status"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("warning: no gateway URL is configured"),
        "{err}"
    );
    // A plan routes nothing without a gateway.
    let (_, plan, _) = s.run(&["--output", "json", "plan", "claude-code", "--scope", "user"]);
    let plan: serde_json::Value = serde_json::from_str(&plan).unwrap();
    assert_eq!(
        plan["result"]["steps"].as_array().unwrap().len(),
        0,
        "{plan}"
    );

    // The fix, as printed: the command with a real URL, then restart.
    let fix = err
        .split('`')
        .find(|part| part.starts_with("devint config set gateway_url "))
        .expect("the warning names a config set command");
    let mut words: Vec<&str> = fix.split_whitespace().skip(1).collect();
    assert_eq!(words.last(), Some(&"https://…"), "{fix}");
    words.pop();
    words.push("https://gw.example");
    let (code, out, err) = s.run(&words);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = s.run(&["restart"]);
    assert_eq!(code, 0, "{out}{err}");
    s.wait_for_output(n, "gateway URL: https://gw.example", 1);
    let (code, _, err) = s.run(&["status"]);
    assert_eq!(code, 0);
    assert!(!err.contains("no gateway URL"), "{err}");
    assert_eq!(applied_gateway(&s).as_deref(), Some("https://gw.example"));
}

#[test]
fn service_install_writes_the_gateway_url_to_the_config_file() {
    let s = Sandbox::new().without_gateway_env();
    let (code, _, err) = s.run(&["service", "install", "--manager", "systemd"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no gateway URL is configured"), "{err}");
    let (code, _, err) = s.run(&[
        "service",
        "install",
        "--manager",
        "systemd",
        "--gateway-url",
        "https://gw.example",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "wrote gateway_url = \"https://gw.example\" to {}",
            s.config_file().display()
        )),
        "{err}"
    );
    assert!(!err.contains("no gateway URL"), "{err}");
    let (_, out, _) = s.run(&["config", "get", "gateway_url"]);
    assert_eq!(out, "https://gw.example\n");
}
