//! `devint service install|uninstall|status`, `devint stop` and `devint restart`, and the
//! refuted runtime's message naming its pid and the command that fixes it. The service
//! manager is a fake `systemctl` on the sandbox's PATH that records what it was asked, and
//! the unit directory is under the sandbox's HOME: the real user's manager is never touched.

mod cli_support;

use std::path::{Path, PathBuf};

use cli_support::{replace_executable, write_script, Sandbox, DEVINT};

fn unit_dir(s: &Sandbox) -> PathBuf {
    s.home().join(".config/systemd/user")
}

/// A fake `systemctl` on the sandbox PATH that appends its arguments to `systemctl.log`.
fn fake_systemctl(s: &Sandbox) -> PathBuf {
    let log = s.root().join("systemctl.log");
    let script = s.bin().join("systemctl");
    write_script(
        &script,
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\necho active\n",
            log.display()
        ),
    );
    log
}

#[test]
fn service_install_print_renders_the_systemd_units() {
    let s = Sandbox::new();
    let (code, _) = s.snapshot(
        "service_print_systemd",
        &["service", "install", "--print", "--manager", "systemd"],
    );
    assert_eq!(code, 0);
    assert!(!unit_dir(&s).exists(), "--print wrote nothing");
}

#[test]
fn service_install_print_renders_the_launchd_agent() {
    let s = Sandbox::new();
    let (code, _) = s.snapshot(
        "service_print_launchd",
        &["service", "install", "--print", "--manager", "launchd"],
    );
    assert_eq!(code, 0);
    assert!(!s.home().join("Library").exists(), "--print wrote nothing");
}

#[test]
fn service_install_writes_the_units_enables_them_and_uninstall_removes_them() {
    let s = Sandbox::new();
    let log = fake_systemctl(&s);
    let (code, doc) = s.json(&["service", "install", "--print", "--manager", "systemd"]);
    assert_eq!(code, 0);
    let (code, out, err) = s.run(&["service", "install", "--manager", "systemd"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("installed and enabled"), "{out}");
    for file in doc["result"]["files"].as_array().unwrap() {
        let written =
            std::fs::read_to_string(unit_dir(&s).join(file["name"].as_str().unwrap())).unwrap();
        assert_eq!(written, file["text"].as_str().unwrap());
    }
    let asked = std::fs::read_to_string(&log).unwrap();
    assert!(asked.contains("--user daemon-reload"), "{asked}");
    assert!(
        asked.contains("--user enable --now devint.socket"),
        "{asked}"
    );

    let (code, out, _) = s.run(&["service", "status", "--manager", "systemd"]);
    assert_eq!(code, 0);
    assert!(out.contains("devint.socket: installed"), "{out}");
    assert!(out.contains("systemctl: active"), "{out}");

    let (code, out, err) = s.run(&["service", "uninstall", "--manager", "systemd"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!unit_dir(&s).join("devint.socket").exists());
    assert!(!unit_dir(&s).join("devint.service").exists());
    let asked = std::fs::read_to_string(&log).unwrap();
    assert!(
        asked.contains("--user disable --now devint.socket devint.service"),
        "{asked}"
    );
}

#[test]
fn service_install_without_the_manager_writes_the_files_and_says_how_to_enable_them() {
    let s = Sandbox::new();
    let (code, out, err) = s.run(&["service", "install", "--manager", "systemd"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("systemctl is not on PATH"), "{out}");
    assert!(
        out.contains("systemctl --user enable --now devint.socket"),
        "{out}"
    );
    assert!(unit_dir(&s).join("devint.service").exists());
}

#[test]
fn service_files_follow_xdg_config_home() {
    let s = Sandbox::new();
    let config = s.root().join("xdg");
    let out = s
        .devint()
        .env("XDG_CONFIG_HOME", &config)
        .args(["service", "install", "--manager", "systemd"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(config.join("systemd/user/devint.socket").exists());
}

#[test]
fn service_install_and_uninstall_leave_a_unit_they_did_not_write_alone() {
    let s = Sandbox::new();
    let log = fake_systemctl(&s);
    std::fs::create_dir_all(unit_dir(&s)).unwrap();
    let mine = unit_dir(&s).join("devint.service");
    std::fs::write(&mine, "[Service]\nExecStart=/my/own/devint serve\n").unwrap();
    let (code, _, err) = s.run(&["service", "install", "--manager", "systemd"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("was not written by `devint service install`"),
        "{err}"
    );
    let (code, _, err) = s.run(&["service", "uninstall", "--manager", "systemd"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "[Service]\nExecStart=/my/own/devint serve\n"
    );
    assert!(!log.exists(), "the manager was never asked");
}

#[test]
fn restart_re_executes_the_runtime_on_the_same_socket_and_stop_stops_it() {
    let mut s = Sandbox::new();
    let n = s.serve();
    let (code, out, err) = s.run(&["restart"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!("restarted the runtime (pid {})", s.server_pid(n))),
        "{out}"
    );
    s.wait_for_output(n, "socket handed over by the previous executable", 1);
    let (code, out, err) = s.run(&["stop"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("stopped the runtime"), "{out}");
    assert_eq!(s.wait_server(n).code(), Some(0));
    assert!(!s.socket().exists());
}

#[test]
fn stop_without_a_runtime_succeeds_and_says_nothing_was_running() {
    let s = Sandbox::new();
    let (code, out, err) = s.run(&["stop"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        format!(
            "no devint runtime is running at {}; nothing to stop\n",
            s.socket().display()
        )
    );
    let (code, doc) = s.json(&["stop"]);
    assert_eq!(code, 0);
    assert_eq!(doc["result"]["running"], false, "{doc}");
    // A restart has nothing to re-execute: still "not running" (exit 7).
    let (code, _, err) = s.run(&["restart"]);
    assert_eq!(code, 7, "{err}");
}

#[test]
fn service_status_shows_each_units_state_or_why_the_manager_did_not_answer() {
    let s = Sandbox::new();
    let script = s.bin().join("systemctl");
    write_script(&script, "#!/bin/sh\necho active\necho inactive\nexit 3\n");
    let (code, out, _) = s.run(&["service", "status", "--manager", "systemd"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("systemctl: devint.socket active, devint.service inactive\n"),
        "{out}"
    );
    // No user bus: nothing on stdout, the reason on stderr.
    write_script(
        &script,
        "#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n",
    );
    let (code, out, _) = s.run(&["service", "status", "--manager", "systemd"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("systemctl: no answer (Failed to connect to bus: No medium found)\n"),
        "{out}"
    );
    assert!(!out.contains("systemctl: \n"), "{out}");
}

#[test]
fn a_refuted_runtime_names_its_pid_and_the_restart_that_fixes_it() {
    let mut s = Sandbox::new();
    let dir = s.root().join("b");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("devint");
    replace_executable(&exe, Path::new(DEVINT), 0o755);
    let (socket, state) = (s.socket(), s.state());
    let n = s.serve_program(&exe, &socket, &state, &[]);
    s.enrol("read-only");
    // A broken upgrade (not executable): the runtime cannot re-execute and serves on.
    replace_executable(&exe, Path::new(DEVINT), 0o644);
    s.wait_for_output(n, "cannot re-execute", 1);

    // spec §8 stays: the stale runtime is refused, and the message says what to run.
    let (code, _, err) = s.run(&["tools"]);
    assert_eq!(code, 10, "{err}");
    let pid = s.server_pid(n);
    assert!(err.contains(&format!("(pid {pid})")), "{err}");
    assert!(
        err.contains(&format!("`devint restart --socket {}`", socket.display())),
        "{err}"
    );
    for line in err.lines() {
        assert!(
            !line.trim_start().contains("  "),
            "one space between words: {line}"
        );
    }

    // The fix, exactly as named: a working binary at the path, then restart.
    replace_executable(&exe, Path::new(DEVINT), 0o755);
    let (code, out, err) = s.run(&["restart", "--socket", &socket.display().to_string()]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = s.run(&["tools"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// The first of `names` found in /usr/bin or /bin.
fn system_program(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

#[test]
fn systemd_analyze_verifies_the_units_with_the_man_page_devint_installs() {
    let (Some(analyze), Some(_)) = (system_program("systemd-analyze"), system_program("man"))
    else {
        eprintln!(
            "skipped: systemd-analyze or man is not installed (Debian: apt-get install systemd man-db)"
        );
        return;
    };
    let s = Sandbox::new();
    let (code, out, err) = s.run(&["service", "install", "--manager", "systemd"]);
    assert_eq!(code, 0, "{out}{err}");
    let man = s.root().join("man");
    let (code, out, err) = s.run(&["manpages", &man.join("man1").display().to_string()]);
    assert_eq!(code, 0, "{out}{err}");
    let verify = |manpath: &Path| {
        std::process::Command::new(&analyze)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("MANPATH", manpath)
            .current_dir(unit_dir(&s))
            .args(["verify", "--man=yes", "devint.socket", "devint.service"])
            .output()
            .unwrap()
    };
    let run = verify(&man);
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert!(said.trim().is_empty(), "no complaint: {said}");
    // The check is real: without the pages, `Documentation=man:devint(1)` fails it.
    let run = verify(&s.root().join("no-man"));
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{said}");
    assert!(said.contains("man devint(1)"), "{said}");
}

#[test]
fn under_the_journal_without_journald_logs_stay_on_stderr() {
    if Path::new("/run/systemd/journal/socket").exists() {
        eprintln!("skipped: journald listens here, so the log would go to the real journal");
        return;
    }
    use std::os::unix::fs::MetadataExt;
    let s = Sandbox::new().without_gateway_env();
    let err_path = s.root().join("stderr");
    let err_file = std::fs::File::create(&err_path).unwrap();
    let meta = err_file.metadata().unwrap();
    // stderr is the stream JOURNAL_STREAM names, as under systemd, but no journald answers.
    let mut child = s
        .std_command(Path::new(DEVINT))
        .env("JOURNAL_STREAM", format!("{}:{}", meta.dev(), meta.ino()))
        .arg("serve")
        .stdout(std::process::Stdio::null())
        .stderr(err_file)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let said = loop {
        let said = std::fs::read_to_string(&err_path).unwrap();
        if said.contains("no gateway URL is configured") || std::time::Instant::now() > deadline {
            break said;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        said.contains("WARN devint::serve: no gateway URL is configured"),
        "the log line is on stderr: {said}"
    );
}

#[test]
fn under_the_journal_logs_are_journal_entries_with_their_fields() {
    let s = Sandbox::new().without_gateway_env();
    let listener = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/journal/listen.py");
    // journald's socket path is fixed (/run/systemd/journal/socket): a private mount
    // namespace with its own /run gives the test one without touching the machine's.
    let out = std::process::Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c"])
        .arg("mount -t tmpfs devint-test /run && exec python3 \"$0\" \"$1\" \"$2\"")
        .arg(&listener)
        .arg(DEVINT)
        .arg(s.root().join("stderr"))
        .envs(
            s.std_command(Path::new(DEVINT))
                .get_envs()
                .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned()))),
        )
        .env("PATH", format!("{}:/usr/bin:/bin", s.bin().display()))
        .output();
    let out = match out {
        Ok(out) if out.status.success() => out,
        Ok(out)
            if String::from_utf8_lossy(&out.stderr).contains("unshare failed")
                || String::from_utf8_lossy(&out.stderr).contains("mount:") =>
        {
            eprintln!(
                "skipped: cannot make a private mount namespace here (needs root or user namespaces): {}",
                String::from_utf8_lossy(&out.stderr)
            );
            return;
        }
        Ok(out) => panic!(
            "the stand-in journald saw no entry: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => {
            eprintln!("skipped: unshare (util-linux) cannot run: {e}");
            return;
        }
    };
    let entry = String::from_utf8_lossy(&out.stdout);
    for field in [
        "PRIORITY=4\n",
        "SYSLOG_IDENTIFIER=devint\n",
        "TARGET=devint::serve\n",
        "MESSAGE=no gateway URL is configured; plans route no model traffic\n",
        "DEVINT_FIX=devint config set gateway_url https://…\n",
    ] {
        assert!(entry.contains(field), "{field:?} in {entry}");
    }
    let stderr = std::fs::read_to_string(s.root().join("stderr")).unwrap_or_default();
    assert!(
        !stderr.contains("no gateway URL is configured; plans"),
        "logged once, to the journal: {stderr}"
    );
}
