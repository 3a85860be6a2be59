//! `devint serve` as a user runs it, in a private sandbox: a HOME with a real Claude Code
//! settings file, a fake `claude` on a private PATH (as `devint demo` has), a client
//! enrolled with `devint enrol`, and Claude Code integrated with `devint apply` before any
//! figure is taken. The runtime's log goes to a file in the sandbox (as a service's log
//! goes to its journal), not to a terminal.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::roles::{adopt_when_listening, Server};

/// The `devint` binary this bench was built with.
const DEVINT: &str = env!("CARGO_BIN_EXE_devint");

/// A Claude Code user's settings file (the one `devint demo` starts from).
const SETTINGS: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "claude-sonnet-4-5",
  "permissions": {
    "allow": ["Bash(npm run test:*)", "Read(~/projects/**)"],
    "deny": ["Read(./.env)", "Read(./secrets/**)"]
  },
  "env": {
    "DISABLE_TELEMETRY": "1"
  },
  "includeCoAuthoredBy": false
}
"#;

/// The sandbox's paths.
pub struct Sandbox {
    root: PathBuf,
}

impl Sandbox {
    /// Lay out the sandbox under `root` (an empty `0700` directory).
    pub fn new(root: &Path) -> Sandbox {
        let s = Sandbox {
            root: root.to_path_buf(),
        };
        std::fs::create_dir_all(s.home().join(".claude")).expect("sandbox HOME");
        std::fs::create_dir_all(s.bin()).expect("sandbox PATH");
        std::fs::write(s.home().join(".claude/settings.json"), SETTINGS).expect("settings");
        let claude = s.bin().join("claude");
        std::fs::write(&claude, "#!/bin/sh\necho \"2.0.14 (Claude Code)\"\n").expect("claude");
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755))
            .expect("claude's mode");
        s
    }

    fn home(&self) -> PathBuf {
        self.root.join("home")
    }
    fn bin(&self) -> PathBuf {
        self.root.join("bin")
    }
    fn socket(&self) -> PathBuf {
        self.root.join("run/devint.sock")
    }
    /// The enrolled client's token file.
    pub fn token_file(&self) -> PathBuf {
        self.root.join("client/devint.token")
    }
    /// The runtime's log.
    pub fn log(&self) -> PathBuf {
        self.root.join("serve.log")
    }

    fn devint(&self) -> Command {
        let mut command = Command::new(DEVINT);
        command
            .env_clear()
            .env("HOME", self.home())
            .env("PATH", self.bin())
            .env("AA_DEVINT_SOCKET", self.socket())
            .env("AA_DEVINT_TOKEN_FILE", self.token_file())
            .env("AA_DEVINT_STATE_DIR", self.root.join("state"))
            .env("AA_DEVINT_GATEWAY_URL", "http://127.0.0.1:4000")
            .stdin(Stdio::null());
        command
    }

    fn run(&self, args: &[&str]) {
        let out = self
            .devint()
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("run devint {args:?}: {e}"));
        assert!(
            out.status.success(),
            "devint {args:?} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Enrol, start `devint serve`, integrate Claude Code; the runtime is ready to measure.
    pub fn serve(&self) -> Server {
        let token_file = self.token_file();
        self.run(&[
            "enrol",
            "--client",
            "side-by-side",
            "--all-tools",
            "--verbs",
            "full",
            "--token-file",
            token_file.to_str().expect("a UTF-8 sandbox path"),
        ]);
        let log = std::fs::File::create(self.log()).expect("the runtime's log file");
        let child = self
            .devint()
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start devint serve");
        let server = adopt_when_listening(child, self.socket());
        self.run(&[
            "apply",
            "claude-code",
            "--scope",
            "user",
            "--yes",
            "--allow-unverified-runtime",
        ]);
        server
    }
}
