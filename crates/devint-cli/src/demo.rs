//! `devint demo`: the whole journey — list → plan → apply → status → verify → simulated
//! drift → repair → remove — in a sandbox, against a real runtime over a real socket.
//!
//! The sandbox is one fresh `0700` directory under `/tmp` holding a temporary HOME with a
//! realistic Claude Code settings file, a fake `claude` on a private PATH, the runtime's
//! state directory, its socket and the client's token file. The runtime is the real server
//! (`serve::prepare`, the same backend `devint serve` uses) spawned as a task in this
//! process; every step is the real command, a DI-API client of it. This module must never
//! read or write outside the sandbox: it passes HOME, PATH, the socket and the token file
//! explicitly and never changes the process environment.

use crate::socket::{SocketChoice, SocketOrigin};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use devint::verbs::{Level, Profile, SettingsScope, ToolId, VerbSet};
use serde_json::Value;

use crate::backend::BackendSite;
use crate::cli::{
    ApplyCommand, MutatingCommand, PlanCommand, PlanShape, StatusCommand, TokenChoice, ToolCommand,
};
use crate::connect::Ctx;
use crate::enrol::EnrolArgs;
use crate::exit::{CliError, CutShort, Exit, Status};
use crate::output::Out;
use crate::state::StateDir;
use crate::token::TokenSource;

/// The settings file the demo starts from: what a Claude Code user typically has.
pub const SAMPLE_SETTINGS: &str = r#"{
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

/// The gateway the demo's policy profile routes model traffic to. Nothing listens there:
/// the demo never sends model traffic, it only shows the settings devint writes.
const DEMO_GATEWAY: &str = "http://127.0.0.1:4000";

/// The fake `claude`: prints a version, as `claude --version` does.
const FAKE_CLAUDE: &str = "#!/bin/sh\necho \"2.0.14 (Claude Code)\"\n";

/// The demo's private directory tree, removed when dropped unless kept: on success, on an
/// error, on a closed stdout, on Ctrl-C or SIGTERM (the signal ends [`run`]'s walk and
/// this value is dropped) and when a step panics (the stack unwinds through it).
struct Sandbox {
    root: PathBuf,
    keep: bool,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if !self.keep {
            self.remove();
        }
    }
}

impl Sandbox {
    fn create(keep: bool) -> Result<Sandbox, CliError> {
        let root = PathBuf::from(format!(
            "/tmp/devint-demo-{}-{:08x}",
            std::process::id(),
            rand::random::<u32>()
        ));
        // Not recursive: the directory must be new, and ours.
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&root)
            .map_err(|e| {
                CliError::internal(format!("cannot create the sandbox {}: {e}", root.display()))
            })?;
        Ok(Sandbox { root, keep })
    }
    fn home(&self) -> PathBuf {
        self.root.join("home")
    }
    fn bin(&self) -> PathBuf {
        self.root.join("bin")
    }
    fn settings(&self) -> PathBuf {
        self.home().join(".claude/settings.json")
    }
    fn socket(&self) -> PathBuf {
        self.root.join("run/devint.sock")
    }
    fn state(&self) -> Result<StateDir, CliError> {
        StateDir::at(&self.root.join("state"))
    }

    fn populate(&self) -> Result<(), CliError> {
        let io =
            |what: &str, e: std::io::Error| CliError::internal(format!("demo: cannot {what}: {e}"));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(self.home().join(".claude"))
            .map_err(|e| io("create the sandbox HOME", e))?;
        std::fs::create_dir_all(self.bin()).map_err(|e| io("create the sandbox PATH", e))?;
        std::fs::write(self.settings(), SAMPLE_SETTINGS)
            .map_err(|e| io("write the settings file", e))?;
        let claude = self.bin().join("claude");
        std::fs::write(&claude, FAKE_CLAUDE).map_err(|e| io("write the fake claude", e))?;
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| io("make the fake claude executable", e))?;
        Ok(())
    }

    fn remove(&self) {
        // Only ever the directory this demo created.
        let ours = self
            .root
            .to_str()
            .is_some_and(|p| p.starts_with("/tmp/devint-demo-"));
        if ours {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

/// Run the demo. `keep` leaves the sandbox in place. Ctrl-C or SIGTERM stops the walk,
/// stops the runtime, removes the sandbox and exits 130 or 143.
pub async fn run(out: Out, keep: bool) -> Result<Exit, CliError> {
    use tokio::signal::unix::{signal, SignalKind};
    let install = |kind| {
        signal(kind)
            .map_err(|e| CliError::internal(format!("cannot install a signal handler: {e}")))
    };
    let mut interrupt = install(SignalKind::interrupt())?;
    let mut terminate = install(SignalKind::terminate())?;
    let sandbox = Sandbox::create(keep)?;
    let result = walk(&sandbox, out, async {
        tokio::select! {
            _ = interrupt.recv() => stopped(CutShort::Interrupted, "Ctrl-C"),
            _ = terminate.recv() => stopped(CutShort::Terminated, "SIGTERM"),
        }
    })
    .await;
    if keep {
        say(
            &out,
            &format!("\nsandbox kept at {}", sandbox.root.display()),
        )?;
    }
    drop(sandbox);
    result
}

fn stopped(signal: CutShort, by: &str) -> CliError {
    CliError::cut_short(
        signal,
        format!("the demo was stopped by {by}; its sandbox is removed"),
    )
}

fn say(out: &Out, text: &str) -> Result<(), CliError> {
    out.print(text)
}

fn show_settings(out: &Out, path: &Path, when: &str) -> Result<Vec<u8>, CliError> {
    let bytes = std::fs::read(path).unwrap_or_default();
    say(
        out,
        &format!(
            "\n--- {} ({when}) ---\n{}--- end ---",
            path.display(),
            String::from_utf8_lossy(&bytes)
        ),
    )?;
    Ok(bytes)
}

/// Populate the sandbox, start the runtime, walk the steps until they end or `signal`
/// fires, then stop the runtime and wait for it (so nothing writes into the sandbox once
/// it is removed).
async fn walk(
    sandbox: &Sandbox,
    out: Out,
    signal: impl std::future::Future<Output = CliError>,
) -> Result<Exit, CliError> {
    sandbox.populate()?;
    let state = sandbox.state()?;
    let site = BackendSite {
        state_dir: state.backend(),
        home: sandbox.home(),
        path_env: sandbox.bin().display().to_string(),
        project_dir: None,
        gateway_base_url: Some(
            devint_runtime::reference::PolicyUrl::parse(DEMO_GATEWAY)
                .expect("the demo's gateway is a valid URL"),
        ),
        plan_ttl: devint_runtime::reference::RuntimeConfig::DEFAULT_PLAN_TTL,
    };
    say(
        &out,
        &format!("devint demo — sandbox {}", sandbox.root.display()),
    )?;
    say(&out, "  HOME, PATH, state, socket and token file all live in the sandbox; nothing outside it is read or written.")?;
    let original = show_settings(&out, &sandbox.settings(), "before")?;

    // The demo names its own socket, as `--socket` would.
    let socket = SocketChoice::new(sandbox.socket(), SocketOrigin::Flag);
    let runtime = crate::serve::prepare(&socket, &state, &site)?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        let _ = runtime
            .server
            .serve(runtime.socket, async {
                let _ = stopped.await;
            })
            .await;
    });
    let outcome = async {
        say(
            &out,
            &format!(
                "\nruntime serving on {} (in this process, the real server)",
                sandbox.socket().display()
            ),
        )?;
        tokio::select! {
            outcome = steps(sandbox, &state, out, &original) => outcome,
            e = signal => Err(e),
        }
    }
    .await;

    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(10), server).await;
    outcome
}

async fn step<F>(out: &Out, n: u32, title: &str, command: &str, f: F) -> Result<Exit, CliError>
where
    F: std::future::Future<Output = Result<Exit, CliError>>,
{
    say(out, &format!("\n== {n}. {title}: `{command}`"))?;
    match f.await {
        Ok(exit) => {
            if exit != Exit::Ok {
                say(out, &format!("   (exit {} — expected here)", exit.code()))?;
            }
            Ok(exit)
        }
        Err(e) if e.exit == Status::CutShort(CutShort::ClosedPipe) => Err(e),
        Err(e) => {
            say(out, &format!("   stopped: {e}"))?;
            Err(e)
        }
    }
}

async fn steps(
    sandbox: &Sandbox,
    state: &StateDir,
    out: Out,
    original: &[u8],
) -> Result<Exit, CliError> {
    let tool = ToolId::parse("claude-code").map_err(|e| CliError::internal(e.to_string()))?;
    say(&out, "\n== 0. enrol a client explicitly: `devint enrol --client demo --tool claude-code --verbs full`")?;
    let client =
        devint::auth::ClientName::parse("demo").map_err(|e| CliError::internal(e.to_string()))?;
    let args = EnrolArgs {
        client: client.clone(),
        tool: vec![tool.clone()],
        all_tools: false,
        verbs: VerbSet::full_lifecycle(),
        ttl: Duration::from_secs(3600),
        token_file: None,
        print: false,
        // A fresh sandbox: no token of this client to replace.
        yes: false,
    };
    crate::enrol::enrol(&out, state, &sandbox.socket(), &args)?;
    let ctx = Ctx {
        socket: SocketChoice::new(sandbox.socket(), SocketOrigin::Flag),
        token: TokenSource::choose(&sandbox.socket(), Some(&client)),
        out,
        allow_unverified: false,
    };
    let token = TokenChoice::default();
    let shape = PlanShape {
        profile: Profile::Recommended,
        level: Level::GatewayProtected,
        policy: None,
        allow_privileged: false,
    };
    let on_tool = ToolCommand {
        tool: tool.clone(),
        token: token.clone(),
    };
    let mutate = MutatingCommand {
        tool: tool.clone(),
        yes: true,
        token: token.clone(),
    };
    let status = StatusCommand {
        tool: Some(tool.clone()),
        all: false,
        token: token.clone(),
    };

    let walk = async {
        step(&out, 1, "list", "devint tools", crate::tools::run(&ctx)).await?;
        step(
            &out,
            2,
            "plan (a dry run: nothing changes)",
            "devint plan claude-code --scope user",
            crate::plan::plan(
                &ctx,
                &PlanCommand {
                    tool: tool.clone(),
                    scope: SettingsScope::User,
                    shape: shape.clone(),
                    token: token.clone(),
                },
            ),
        )
        .await?;
        step(
            &out,
            3,
            "apply",
            "devint apply claude-code --scope user --yes",
            crate::plan::apply(
                &ctx,
                &ApplyCommand {
                    tool: tool.clone(),
                    plan: None,
                    scope: Some(SettingsScope::User),
                    shape: shape.clone(),
                    yes: true,
                    token: token.clone(),
                },
            ),
        )
        .await?;
        let applied = show_settings(&out, &sandbox.settings(), "after apply")?;
        step(
            &out,
            4,
            "status",
            "devint status claude-code",
            crate::inspect::status(&ctx, &status),
        )
        .await?;
        step(
            &out,
            5,
            "verify",
            "devint verify claude-code",
            crate::inspect::verify(&ctx, &on_tool),
        )
        .await?;
        say(
            &out,
            "\n== 6. simulated drift: something changes a value devint manages",
        )?;
        match drift(&sandbox.settings(), original, &applied) {
            Some(key) => say(&out, &format!("   changed `{key}` behind devint's back"))?,
            None => say(
                &out,
                "   (apply changed no value in the settings file; nothing to drift)",
            )?,
        }
        show_settings(&out, &sandbox.settings(), "after drift")?;
        step(
            &out,
            7,
            "status shows the drift",
            "devint status claude-code",
            crate::inspect::status(&ctx, &status),
        )
        .await?;
        step(
            &out,
            8,
            "repair",
            "devint repair claude-code --yes",
            crate::remove::repair(&ctx, &mutate),
        )
        .await?;
        show_settings(&out, &sandbox.settings(), "after repair")?;
        step(
            &out,
            9,
            "remove",
            "devint remove claude-code --yes",
            crate::remove::remove(&ctx, &mutate),
        )
        .await?;
        Ok::<(), CliError>(())
    };
    let walked = walk.await;
    if let Err(e) = &walked {
        if e.exit == Status::CutShort(CutShort::ClosedPipe) {
            return Err(CliError::closed_pipe());
        }
    }

    let now = show_settings(&out, &sandbox.settings(), "at the end")?;
    let identical = now == original;
    say(
        &out,
        &format!(
            "\nsettings file byte-identical to the original: {}",
            if identical { "yes" } else { "NO" }
        ),
    )?;
    if !identical {
        return Err(CliError::internal(
            "the settings file differs from the original after the demo",
        ));
    }
    walked?;
    say(&out, "\ndemo complete: every step ran against the real runtime, and the settings file is back byte for byte.")?;
    Ok(Exit::Ok)
}

/// Change one value the apply added or changed in the settings file, editing only that
/// value's text (as a person would), and return its path.
fn drift(settings: &Path, original: &[u8], applied: &[u8]) -> Option<String> {
    let before: Value = serde_json::from_slice(original).ok()?;
    let after: Value = serde_json::from_slice(applied).ok()?;
    let path = first_difference(&before, &after, String::new())?;
    let value = path
        .split('.')
        .filter(|s| !s.is_empty())
        .try_fold(&after, |v, k| v.get(k))?;
    let key = path.rsplit('.').next()?;
    let text = std::str::from_utf8(applied).ok()?;
    let edited = replace_value_text(text, key, &serde_json::to_string(value).ok()?)?;
    std::fs::write(settings, edited).ok()?;
    Some(path.trim_start_matches('.').to_owned())
}

/// Replace the first `value_json` after `"key"` in `text` with `"drifted-by-demo"`,
/// leaving every other byte alone.
fn replace_value_text(text: &str, key: &str, value_json: &str) -> Option<String> {
    let key_at = text.find(&format!("\"{key}\""))?;
    let value_at = key_at + text[key_at..].find(value_json)?;
    Some(format!(
        "{}\"drifted-by-demo\"{}",
        &text[..value_at],
        &text[value_at + value_json.len()..]
    ))
}

fn first_difference(before: &Value, after: &Value, path: String) -> Option<String> {
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => a.iter().find_map(|(k, av)| match b.get(k) {
            Some(bv) if bv == av => None,
            Some(bv) => first_difference(bv, av, format!("{path}.{k}")),
            None => leaf(av, format!("{path}.{k}")),
        }),
        _ if before != after => Some(path),
        _ => None,
    }
}

/// The first string-or-scalar leaf under `v` (the whole value if it is one).
fn leaf(v: &Value, path: String) -> Option<String> {
    match v {
        Value::Object(m) => m.iter().find_map(|(k, x)| leaf(x, format!("{path}.{k}"))),
        _ => Some(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn drift_targets_a_key_the_apply_added() {
        let before = json!({"env": {"A": "1"}, "model": "x"});
        let after = json!({"env": {"A": "1", "ANTHROPIC_BASE_URL": "http://gw"}, "model": "x"});
        assert_eq!(
            first_difference(&before, &after, String::new()).as_deref(),
            Some(".env.ANTHROPIC_BASE_URL")
        );
        assert_eq!(first_difference(&before, &before, String::new()), None);
    }

    #[test]
    fn drift_edits_only_the_value_text() {
        let applied = "{\n  \"env\": {\n    \"A\": \"1\",\n    \"URL\": \"http://gw\"\n  }\n}\n";
        let edited = replace_value_text(applied, "URL", "\"http://gw\"").unwrap();
        assert_eq!(
            edited,
            "{\n  \"env\": {\n    \"A\": \"1\",\n    \"URL\": \"drifted-by-demo\"\n  }\n}\n"
        );
    }

    /// Quiet JSON output: the walk's narration prints nothing.
    fn silent() -> Out {
        Out::detect(
            crate::output::OutputMode::Json,
            crate::output::ColorChoice::Never,
            true,
        )
    }

    #[tokio::test]
    async fn a_walk_that_fails_leaves_no_sandbox_behind() {
        let sandbox = Sandbox::create(false).unwrap();
        let root = sandbox.root.clone();
        // The sandbox HOME cannot be created: the walk fails before any step.
        std::fs::write(sandbox.home(), "not a directory").unwrap();
        let result = walk(&sandbox, silent(), std::future::pending()).await;
        let error = result.unwrap_err();
        assert!(error.message.contains("sandbox HOME"), "{}", error.message);
        assert!(root.exists());
        drop(sandbox);
        assert!(!root.exists(), "{} was left behind", root.display());
    }

    #[tokio::test]
    async fn a_walk_stopped_by_a_signal_stops_its_runtime_and_leaves_no_sandbox_behind() {
        let sandbox = Sandbox::create(false).unwrap();
        let root = sandbox.root.clone();
        let signal = async { stopped(CutShort::Interrupted, "Ctrl-C") };
        let error = walk(&sandbox, silent(), signal).await.unwrap_err();
        assert_eq!(error.exit, Status::CutShort(CutShort::Interrupted));
        drop(sandbox);
        assert!(!root.exists(), "{} was left behind", root.display());
    }

    #[test]
    fn the_sample_settings_file_is_valid_json() {
        let v: Value = serde_json::from_str(SAMPLE_SETTINGS).unwrap();
        assert!(v.get("permissions").is_some());
    }
}
