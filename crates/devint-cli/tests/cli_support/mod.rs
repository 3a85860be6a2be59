//! Shared harness for the `devint` command tests: a private sandbox (HOME, PATH with a fake
//! `claude`, state directory, socket, token file) under a short `/tmp` path, and a real
//! `devint serve` child process that is stopped when the harness is dropped.
#![allow(dead_code)]

/// The `devint` binary cargo built for these tests (compile-time path: with several
/// worktrees sharing a build directory, a path derived from the test's own location could
/// name another checkout's binary).
pub const DEVINT: &str = env!("CARGO_BIN_EXE_devint");

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// One test's private world.
pub struct Sandbox {
    dir: tempfile::TempDir,
    servers: Vec<Child>,
    /// Whether commands get `AA_DEVINT_GATEWAY_URL` (see [`Sandbox::without_gateway_env`]).
    gateway_env: bool,
}

impl Sandbox {
    /// Put a fake `name` on the sandbox's PATH that prints `version` (as `--version` does).
    pub fn fake_tool(&self, name: &str, version: &str) {
        write_script(
            &self.bin().join(name),
            &format!("#!/bin/sh\necho \"{version}\"\n"),
        );
    }

    /// A fresh sandbox with a fake `claude` 2.0.14 on its PATH.
    pub fn new() -> Sandbox {
        let dir = tempfile::Builder::new()
            .prefix("dv")
            .tempdir_in("/tmp")
            .expect("temp dir");
        let s = Sandbox {
            dir,
            servers: Vec::new(),
            gateway_env: true,
        };
        std::fs::create_dir_all(s.home().join(".claude")).unwrap();
        std::fs::create_dir_all(s.bin()).unwrap();
        s.fake_tool("claude", "2.0.14 (Claude Code)");
        s
    }

    /// The sandbox root.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }
    /// HOME.
    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }
    /// The private PATH.
    pub fn bin(&self) -> PathBuf {
        self.root().join("bin")
    }
    /// The state directory.
    pub fn state(&self) -> PathBuf {
        self.root().join("state")
    }
    /// The socket directory.
    pub fn run_dir(&self) -> PathBuf {
        self.root().join("run")
    }
    /// The default socket.
    pub fn socket(&self) -> PathBuf {
        self.run_dir().join("devint.sock")
    }
    /// Client `cli`'s token file (where `devint enrol --client cli` writes, and what the
    /// lifecycle commands read by default).
    pub fn token_file(&self) -> PathBuf {
        self.client_token_file("cli")
    }

    /// Client `name`'s token file, beside the socket.
    pub fn client_token_file(&self, name: &str) -> PathBuf {
        self.run_dir().join(format!("{name}.token"))
    }

    /// This sandbox without `AA_DEVINT_GATEWAY_URL`, so a runtime takes its gateway URL from
    /// the configuration files (the sandbox's own: its HOME, and `AA_DEVINT_SYSTEM_CONFIG_DIR`
    /// under its root, never `/etc`).
    pub fn without_gateway_env(mut self) -> Sandbox {
        self.gateway_env = false;
        self
    }

    /// The machine-wide configuration directory this sandbox stands in for `/etc/devint`.
    pub fn system_config_dir(&self) -> PathBuf {
        self.root().join("etc-devint")
    }

    /// The user's configuration file (`$HOME/.config/devint/config.toml`).
    pub fn config_file(&self) -> PathBuf {
        self.home().join(".config/devint/config.toml")
    }

    fn env_pairs(&self) -> Vec<(&'static str, PathBuf)> {
        let mut pairs = vec![
            ("HOME", self.home()),
            ("PATH", self.bin()),
            ("AA_DEVINT_SOCKET", self.socket()),
            ("AA_DEVINT_STATE_DIR", self.state()),
            ("NO_COLOR", PathBuf::from("1")),
            // Tables fit 100 columns, whatever the terminal running the tests.
            ("COLUMNS", PathBuf::from("100")),
            ("AA_DEVINT_SYSTEM_CONFIG_DIR", self.system_config_dir()),
        ];
        // Gives the built-in profiles something to write (nothing listens there).
        if self.gateway_env {
            pairs.push((
                "AA_DEVINT_GATEWAY_URL",
                PathBuf::from("http://127.0.0.1:4000"),
            ));
        }
        pairs
    }

    /// `devint` with this sandbox's environment and nothing else from ours.
    pub fn devint(&self) -> assert_cmd::Command {
        let mut c = assert_cmd::Command::new(DEVINT);
        c.env_clear();
        for (k, v) in self.env_pairs() {
            c.env(k, v);
        }
        c.timeout(Duration::from_secs(60));
        c
    }

    /// Start `devint serve` on `socket` with the sandbox's state directory, waiting until
    /// it says it is serving.
    pub fn serve_on(&mut self, socket: &Path) -> usize {
        let state = self.state();
        self.serve_with(socket, &state)
    }

    /// Start `devint serve EXTRA…` on the default socket.
    pub fn serve_args(&mut self, extra: &[&str]) -> usize {
        let (socket, state) = (self.socket(), self.state());
        self.serve_program(Path::new(DEVINT), &socket, &state, extra)
    }

    /// `program` with this sandbox's environment and nothing else from ours.
    pub fn std_command(&self, program: &Path) -> std::process::Command {
        let mut c = std::process::Command::new(program);
        c.env_clear();
        for (k, v) in self.env_pairs() {
            c.env(k, v);
        }
        c
    }

    /// Start `devint serve` on `socket` over the state directory `state`.
    pub fn serve_with(&mut self, socket: &Path, state: &Path) -> usize {
        self.serve_program(Path::new(DEVINT), socket, state, &[])
    }

    /// Start `PROGRAM serve EXTRA…` (a copy of the devint binary) on `socket` over `state`.
    pub fn serve_program(
        &mut self,
        program: &Path,
        socket: &Path,
        state: &Path,
        extra: &[&str],
    ) -> usize {
        let log = self
            .root()
            .join(format!("serve-{}.out", self.servers.len()));
        let mut c = self.std_command(program);
        c.env("AA_DEVINT_SOCKET", socket)
            .env("AA_DEVINT_STATE_DIR", state)
            .arg("serve")
            .args(extra)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(std::fs::File::create(log.with_extension("err")).unwrap());
        let mut child = c.spawn().expect("spawn devint serve");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if text.contains("stop with Ctrl-C") {
                break;
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("devint serve exited early ({status}): {text}");
            }
            assert!(
                Instant::now() < deadline,
                "devint serve did not start: {text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        self.servers.push(child);
        self.servers.len() - 1
    }

    /// Start `devint serve` on the default socket.
    pub fn serve(&mut self) -> usize {
        let socket = self.socket();
        self.serve_on(&socket)
    }

    /// What server `n` printed.
    pub fn serve_output(&self, n: usize) -> String {
        std::fs::read_to_string(self.root().join(format!("serve-{n}.out"))).unwrap_or_default()
    }

    /// What server `n` wrote to stderr.
    pub fn serve_errors(&self, n: usize) -> String {
        std::fs::read_to_string(self.root().join(format!("serve-{n}.err"))).unwrap_or_default()
    }

    /// Wait until server `n`'s output says `what` `times` times (a deadline, not a timing).
    pub fn wait_for_output(&self, n: usize, what: &str, times: usize) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.serve_output(n).matches(what).count() < times {
            assert!(
                Instant::now() < deadline,
                "no {what:?} x{times}: {}\n{}",
                self.serve_output(n),
                self.serve_errors(n)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Server `n`'s pid.
    pub fn server_pid(&self, n: usize) -> u32 {
        self.servers[n].id()
    }

    /// Wait for server `n` to exit on its own; returns its status and what it wrote.
    pub fn wait_server(&mut self, n: usize) -> std::process::ExitStatus {
        self.servers[n].wait().expect("wait")
    }

    /// Send SIGTERM to server `n` and wait for it.
    pub fn terminate(&mut self, n: usize) -> std::process::ExitStatus {
        let child = &mut self.servers[n];
        let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("kill");
        child.wait().expect("wait")
    }

    /// Enrol client `cli` with `verbs` on all tools (replacing its token, if it has one);
    /// returns the token id.
    pub fn enrol(&self, verbs: &str) -> String {
        let out = self
            .devint()
            .args([
                "--output",
                "json",
                "enrol",
                "--client",
                "cli",
                "--all-tools",
                "--verbs",
                verbs,
                "--yes",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "enrol failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["result"]["token_id"].as_str().unwrap().to_owned()
    }

    /// Run `devint ARGS` (human output); returns (exit code, stdout, stderr).
    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.run_env(&[], args)
    }

    /// Run `devint ARGS` with `env` over the sandbox's environment; returns (exit code,
    /// stdout, stderr).
    pub fn run_env(&self, env: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
        let mut c = self.devint();
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.args(args).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }

    /// Run `devint ARGS` with a pseudo-terminal as its stdin and stdout (through
    /// util-linux `script`), typing `input`; returns (exit code, what the terminal showed).
    pub fn at_terminal(&self, args: &[&str], input: &str) -> (i32, String) {
        let quote = |a: &str| format!("'{}'", a.replace('\'', "'\\''"));
        let mut line = quote(DEVINT);
        for a in args {
            line.push(' ');
            line.push_str(&quote(a));
        }
        let mut c = std::process::Command::new("/usr/bin/script");
        c.env_clear();
        for (k, v) in self.env_pairs() {
            c.env(k, v);
        }
        c.env("SHELL", "/bin/sh")
            .args(["-qec", &line, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("util-linux script");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(input.as_bytes()).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }

    /// Filters for snapshots: this sandbox's path, ids, digests, times, pids.
    pub fn redactions(&self) -> insta::Settings {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../snapshots");
        settings.set_prepend_module_to_snapshot(false);
        settings.add_filter(
            &regex_escape(&self.root().display().to_string()),
            "[SANDBOX]",
        );
        let binary = std::path::PathBuf::from(DEVINT);
        settings.add_filter(&regex_escape(&binary.display().to_string()), "[DEVINT]");
        settings.add_filter(r"source:  \S+", "source:  [CHECKOUT]");
        settings.add_filter(r"commit:  \S+", "commit:  [COMMIT]");
        settings.add_filter(
            r"\((from the source checkout|injected at build time|from the packaged crate|no build identity recorded)\)",
            "([HOW])",
        );
        settings.add_filter(r"/tmp/devint-demo-[0-9]+-[0-9a-f]+", "[DEMO]");
        settings.add_filter(r"tok_[0-9a-f]{32}", "tok_[ID]");
        settings.add_filter(r"\b[0-9a-f]{64}\b", "[DIGEST]");
        settings.add_filter(r"\b[0-9a-f]{40}\b", "[COMMIT]");
        settings.add_filter(r"\b[0-9a-f]{32}\b", "[ID]");
        settings.add_filter(r"\([0-9a-f]{12}\)", "([SHORT])");
        settings.add_filter(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", "[TIME]");
        settings.add_filter(r"\((just now|in \d+ \w+|\d+ \w+ ago)\)", "([WHEN])");
        settings.add_filter(r"pid:( +)\d+", "pid:$1[PID]");
        settings
    }

    /// Run `devint ARGS` and snapshot its exit code, stdout and stderr as `name`.
    pub fn snapshot(&self, name: &str, args: &[&str]) -> (i32, String) {
        self.snapshot_env(name, &[], args)
    }

    /// [`Sandbox::snapshot`] with `env` over the sandbox's environment.
    pub fn snapshot_env(&self, name: &str, env: &[(&str, &str)], args: &[&str]) -> (i32, String) {
        let (code, stdout, stderr) = self.run_env(env, args);
        let shown = format!(
            "$ devint {}\n{stdout}{}[exit {code}]\n",
            args.join(" "),
            if stderr.is_empty() {
                String::new()
            } else {
                format!("--- stderr ---\n{stderr}")
            }
        );
        self.redactions()
            .bind(|| insta::assert_snapshot!(name, shown));
        (code, stdout)
    }

    /// Run `devint ARGS --output json`; returns (exit code, parsed stdout).
    pub fn json(&self, args: &[&str]) -> (i32, serde_json::Value) {
        let out = self
            .devint()
            .arg("--output")
            .arg("json")
            .args(args)
            .output()
            .unwrap();
        let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code().unwrap_or(-1), doc)
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        for child in &mut self.servers {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Write the executable script `path` (mode 0755) holding `text`.
///
/// The file is written by a child process (`cat`), never by this one: these tests run
/// on many threads, and a file this process held open for writing would be inherited by
/// any child a sibling test forked meanwhile, until that child's own exec closed it;
/// running the file in that window fails with "Text file busy" (ETXTBSY).
pub fn write_script(path: &Path, text: &str) {
    use std::io::Write;
    let mut cat = std::process::Command::new("sh")
        .args(["-c", "cat > \"$0\"", &path.to_string_lossy()])
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn sh to write a script");
    cat.stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    assert!(cat.wait().unwrap().success(), "could not write {path:?}");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Put a copy of `from` at `exe` with `mode` the way upgrades do: write beside it, then
/// rename over it (a new inode at the same path). The copy is made by `cp`, in a child
/// process, for the reason [`write_script`] gives.
pub fn replace_executable(exe: &Path, from: &Path, mode: u32) {
    let staged = exe.with_extension("new");
    let copied = std::process::Command::new("cp")
        .arg(from)
        .arg(&staged)
        .status()
        .expect("spawn cp");
    assert!(copied.success(), "cp {from:?} {staged:?} failed");
    std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(mode)).unwrap();
    std::fs::rename(&staged, exe).unwrap();
}

/// `text` as a regular expression matching itself.
pub fn regex_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
