//! Every tool whose settings are file-based completes the full
//! plan → apply → verify → status → remove cycle, at every scope it declares a settings file
//! for, on a realistic seed file in its own format, and ends byte-identical to the seed.
//!
//! Driven through the session core (proofs minted by `devint::session`) against the
//! reference runtime, with a sandboxed HOME and project, a fake binary (or extension
//! directory) in the supported range, and a policy profile that asks for every mechanism,
//! so every rendering path runs. A tool added to `devint_runtime::adapters::all()` without a case
//! here fails `every_registered_tool_has_a_cycle_case`.

#![cfg(feature = "test-support")]

mod lifecycle_support;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use devint::backend::Lifecycle;
use devint::verbs::{
    Level, PlanArgs, PlanView, PolicyProfileId, Profile, SettingsScope, StatusState, StatusView,
    ToolId, VerbCall, VerbResult, VerificationOutcome, VerificationView,
};
use devint_runtime::adapters::{
    Mechanism, MechanismSupport, PathBase, SettingsFile, ToolDescriptor,
};
use devint_runtime::edit::SettingsFormat;
use devint_runtime::reference::ReferenceRuntime;
use lifecycle_support::*;

/// A policy profile that asks for every mechanism: gateway, proxy, hook, MCP deny, tool
/// deny patterns and approval.
const EVERY_MECHANISM: &str = r#"display_name = "Every mechanism"
gateway_base_url = "http://127.0.0.1:8787/v1"
proxy_url = "http://127.0.0.1:8788"
hook_command = "aa-hook pre-tool-use"
mcp_deny = ["shady-mcp"]
deny_tool_patterns = ["Bash(curl:*)"]
require_approval = true
"#;

/// Every tool with a case below; `every_registered_tool_has_a_cycle_case` keeps it whole.
const COVERED: [&str; 25] = [
    "claude-code",
    "codex",
    "github-copilot",
    "windsurf-cascade",
    "gemini-cli",
    "qwen-code",
    "cursor",
    "opencode",
    "cline",
    "roo-code",
    "continue",
    "aider",
    "goose",
    "amp",
    "kiro",
    "zed",
    "factory-droid",
    "pi",
    "github-copilot-cli",
    "mistral-vibe",
    "kilo-code-cli",
    "auggie",
    "crush",
    "grok-cli",
    "cline-cli",
];

const VSCODE_SETTINGS: &str = r#"// VS Code settings, kept by hand
{
    "editor.fontSize": 14,
  "files.exclude": {
      "**/.git": true, // never show
  },
  /* proxy is set by the network team */
  "workbench.colorTheme": "Default Dark Modern",
}
"#;

/// A realistic seed for `tool`'s settings file: the tool's own format, comments and
/// trailing commas where the format allows them, odd indentation, unrelated user keys, and
/// user entries in the lists devint appends to.
fn seed(tool: &str, format: SettingsFormat) -> &'static str {
    match tool {
        "claude-code" => {
            r#"{
   "model": "claude-sonnet-4-5",
   "permissions": {
      "allow": ["Bash(npm run lint)", "Read(~/.zshrc)"],
      "deny": ["Read(./.env)"]
   },
   "hooks": {
     "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}]
   },
   "env": {
      "DISABLE_TELEMETRY": "1"
   },
   "includeCoAuthoredBy": false
}
"#
        }
        "codex" => {
            r#"# my codex config
model = "gpt-5-codex"   # the default model
approval_policy = "never"
notify = ["notify-send", "codex"]

[profiles.fast]
model = "gpt-5-mini"

# docs server
[mcp_servers.docs]
command = "docs-mcp"
"#
        }
        "github-copilot" | "cline" | "roo-code" | "kiro" => VSCODE_SETTINGS,
        "windsurf-cascade" => {
            r#"{
  "hooks": {
      "pre_run_command": [
        {"command": "python3 ~/.codeium/audit.py", "show_output": true}
      ]
  }
}
"#
        }
        "gemini-cli" | "qwen-code" => {
            r#"// CLI settings
{
  "theme": "GitHub", // dark theme
  "tools": {
    "exclude": ["ShellTool(rm -rf)"],
  },
  "mcp": {
      "excluded": ["legacy-mcp"],
  },
}
"#
        }
        "cursor" => {
            r#"{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{"command": "./hooks/format.sh"}],
    "beforeShellExecution": [{"command": "./hooks/audit.sh"}]
  }
}
"#
        }
        "opencode" => {
            r#"{
  "$schema": "https://opencode.ai/config.json", // editor completion
  "theme": "opencode",
  "permission": {
     "bash": {"git push": "ask",},
  },
}
"#
        }
        "amp" => {
            r#"// Amp settings
{
    "amp.notifications.enabled": false,
    "amp.tools.disable": ["browser_navigate"],
    "amp.permissions": [
        {"tool": "Bash", "matches": {"cmd": "git *"}, "action": "allow"}, // mine
    ],
    "amp.git.commit.ampThread.enabled": true,
}
"#
        }
        "zed" => {
            r#"// Zed settings
//
// For information on how to configure Zed, see the Zed documentation.
{
  "theme": "One Dark",
  "buffer_font_size": 15,
  "language_models": {
    "ollama": {"api_url": "http://localhost:11434"}, // local models
  },
  "agent": {
      "default_model": {"provider": "zed.dev", "model": "claude-sonnet-4"},
  },
}
"#
        }
        "factory-droid" => {
            r#"{
  // Droid settings
  "model": "claude-sonnet-4-5",
  "commandDenylist": ["rm -rf /", "mkfs"],
  "commandBlocklist": ["shutdown"],
  "enableCustomDroids": true
}
"#
        }
        "pi" => {
            r#"{
  "providers": {
    "ollama": {
      "baseUrl": "http://localhost:11434/v1",
      "api": "openai-completions",
      "apiKey": "ollama",
      "models": [{"id": "llama3.1:8b"}]
    }
  }
}
"#
        }
        "github-copilot-cli" => {
            r#"{
  "theme": "dim",
  "allowedUrls": ["docs.github.com"],
  "hooks": {
    "postToolUse": [{"type": "command", "bash": "~/bin/audit.sh"}]
  }
}
"#
        }
        "mistral-vibe" => {
            r#"# my Vibe settings
enable_notifications = false
disabled_tools = ["todo"]   # never needed

[tools.bash]
sensitive_patterns = ["sudo", "rm"]

[[providers]]
name = "llamacpp"
api_base = "http://127.0.0.1:8080/v1"
"#
        }
        "kilo-code-cli" => {
            r#"{
  "$schema": "https://app.kilo.ai/config.json",
  // my Kilo settings
  "permission": {
    "bash": {"git push": "ask",},
  },
}
"#
        }
        "auggie" => {
            r#"{
  "model": "claude-sonnet-4-5",
  "toolPermissions": [
    {"toolName": "view", "permission": {"type": "allow"}}
  ],
  "hooks": {
    "PostToolUse": [{"matcher": "save-file", "hooks": [{"type": "command", "command": "~/bin/fmt.sh"}]}]
  }
}
"#
        }
        "crush" => {
            r#"{
  "$schema": "https://charm.land/crush.json",
  "options": {
    "disabled_tools": ["sourcegraph"]
  },
  "permissions": {
    "allowed_tools": ["view", "ls"]
  }
}
"#
        }
        "grok-cli" => {
            r#"{
  "apiKey": "xai-not-a-real-key",
  "defaultModel": "grok-code-fast-1",
  "models": ["grok-code-fast-1", "grok-4-latest"],
  "settingsVersion": 2
}
"#
        }
        "cline-cli" => {
            r#"{
  "telemetryOptOut": true,
  "disabledTools": ["ask_question"],
  "planActMode": "act"
}
"#
        }
        "aider" => "# aider config\nmodel: sonnet\nauto-commits: false   # review first\nread:\n  - CONVENTIONS.md\n",
        "goose" => "GOOSE_PROVIDER: anthropic\nGOOSE_MODEL: claude-sonnet-4-5\nextensions:\n  developer:\n    enabled: true\n    type: builtin\n",
        // What cn itself writes first (ensurePermissionsYamlExists), with a choice of the user's.
        "continue" => "# cn tool permissions\n\n# Tools that are automatically allowed without prompting\nallow:\n  - Read\n\n# Tools that require user confirmation before execution\nask: []\n\n# Tools that are completely excluded (model won't know they exist)\nexclude: []\n",
        other => panic!("no seed for {other} ({})", format.token()),
    }
}

fn tool_id(id: &str) -> ToolId {
    ToolId::parse(id).unwrap()
}

/// A version inside `supported`: the lower bound of each `>=` comparator, at least 1.0.0.
fn version_in_range(supported: &str) -> semver::Version {
    let req = semver::VersionReq::parse(supported).unwrap();
    let v = req
        .comparators
        .iter()
        .filter(|c| c.op == semver::Op::GreaterEq)
        .map(|c| semver::Version::new(c.major, c.minor.unwrap_or(0), c.patch.unwrap_or(0)))
        .max()
        .unwrap_or(semver::Version::new(1, 0, 0));
    assert!(req.matches(&v), "{v} is not in {supported}");
    v
}

/// Makes the tool present: a fake binary on the sandbox PATH, or its extension directory.
fn install_fake(sb: &Sandbox, d: &ToolDescriptor) {
    let version = version_in_range(d.detection.supported);
    if let Some(binary) = d.detection.binaries.first() {
        let path = sb.bin.join(binary);
        std::fs::write(&path, format!("#!/bin/sh\necho '{binary} {version}'\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    } else {
        let ext = d
            .detection
            .extensions
            .first()
            .expect("a tool is detected by a binary or an extension directory");
        let dir = sb
            .home
            .join(ext.parent)
            .join(format!("{}{version}", ext.prefix));
        std::fs::create_dir_all(dir).unwrap();
    }
}

/// One sandbox for one (tool, scope): HOME, project, state, the profile, the seed.
struct Scene {
    sb: Sandbox,
    rt: ReferenceRuntime,
    file: PathBuf,
    seed: &'static str,
}

fn scene(d: &ToolDescriptor, settings: &SettingsFile) -> Scene {
    let sb = Sandbox::new();
    install_fake(&sb, d);
    sb.write_profile("every", EVERY_MECHANISM);
    let project = sb.dir.path().join("repo");
    std::fs::create_dir_all(&project).unwrap();
    let file = match settings.base {
        PathBase::Home => sb.home.join(settings.path),
        PathBase::Project => project.join(settings.path),
        PathBase::Absolute => unreachable!("managed files are not cycled in the sandbox"),
    };
    let seed = seed(d.id, settings.format);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, seed).unwrap();
    let mut config = sb.config();
    config.project_dir = Some(project);
    assert!(config.gateway_base_url.is_some());
    let rt = ReferenceRuntime::open(config).unwrap();
    Scene { sb, rt, file, seed }
}

fn wire_scope(scope: devint_runtime::adapters::SettingsScope) -> SettingsScope {
    match scope {
        devint_runtime::adapters::SettingsScope::User => SettingsScope::User,
        devint_runtime::adapters::SettingsScope::Project => SettingsScope::Project,
        devint_runtime::adapters::SettingsScope::Managed => SettingsScope::Managed,
    }
}

fn plan(c: &mut Client, rt: &dyn Lifecycle, tool: &str, scope: SettingsScope) -> PlanView {
    let args = PlanArgs {
        profile: Profile::Strict,
        requested_level: Level::Integrated,
        scope,
        allow_privileged_host_steps: false,
        policy_profile_id: Some(PolicyProfileId::parse("every").unwrap()),
    };
    let call = VerbCall::Plan {
        tool: tool_id(tool),
        args,
    };
    match c.call(rt, call).unwrap() {
        VerbResult::Plan(p) => p,
        other => panic!("{other:?}"),
    }
}

fn verify(c: &mut Client, rt: &dyn Lifecycle, tool: &str) -> VerificationView {
    match c
        .call(
            rt,
            VerbCall::Verify {
                tool: tool_id(tool),
            },
        )
        .unwrap()
    {
        VerbResult::Verify(v) => v,
        other => panic!("{other:?}"),
    }
}

fn status(c: &mut Client, rt: &dyn Lifecycle, tool: &str) -> StatusView {
    match c
        .call(
            rt,
            VerbCall::Status {
                tool: tool_id(tool),
            },
        )
        .unwrap()
    {
        VerbResult::Status(s) => s,
        other => panic!("{other:?}"),
    }
}

fn remove(c: &mut Client, rt: &dyn Lifecycle, tool: &str) {
    let preview = match c
        .call(
            rt,
            VerbCall::Remove {
                tool: tool_id(tool),
                plan_id: None,
            },
        )
        .unwrap()
    {
        VerbResult::Remove(r) => r,
        other => panic!("{other:?}"),
    };
    c.call(
        rt,
        VerbCall::Remove {
            tool: tool_id(tool),
            plan_id: Some(preview.plan_id),
        },
    )
    .unwrap();
}

/// The plan reports every mechanism the descriptor marks unsupported, with its reason.
fn assert_unsupported_reported(d: &ToolDescriptor, p: &PlanView) {
    for mechanism in Mechanism::ALL {
        if mechanism == Mechanism::ManagedSettings {
            continue; // requested only at managed scope
        }
        if let MechanismSupport::Unsupported { reason } = d.mechanisms.get(mechanism) {
            let token = mechanism.capability().token();
            let row = p
                .unsupported
                .iter()
                .find(|u| u.capability.token() == token)
                .unwrap_or_else(|| {
                    panic!(
                        "{}: {token} is unsupported but the plan does not say so: {:?}",
                        d.id, p.unsupported
                    )
                });
            assert_eq!(row.reason.as_str(), *reason, "{}: {token}", d.id);
        }
    }
}

/// No requested mechanism is dropped silently: each one the descriptor can render is a
/// plan step or, when not at this scope, in the unsupported list with the reason.
fn assert_every_mechanism_accounted_for(d: &ToolDescriptor, p: &PlanView) {
    for mechanism in Mechanism::ALL {
        if mechanism == Mechanism::ManagedSettings || !d.mechanisms.get(mechanism).is_available() {
            continue;
        }
        let token = mechanism.capability().token();
        let stepped = p.steps.iter().any(|s| s.id.as_str() == token);
        let reported = p.unsupported.iter().any(|u| u.capability.token() == token);
        assert!(
            stepped ^ reported,
            "{}: {token} is neither one step nor one unsupported row: steps {:?}, unsupported {:?}",
            d.id,
            p.steps.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            p.unsupported
        );
    }
}

/// The outcome of one cycle, for the per-tool tests' messages.
#[derive(Debug, PartialEq, Eq)]
enum Cycle {
    /// Applied, verified `integrated`, removed byte-exact.
    Integrated,
    /// The plan had no steps; its unsupported list says why.
    NothingToDo,
}

fn cycle_at(d: &ToolDescriptor, settings: &SettingsFile) -> Cycle {
    let s = scene(d, settings);
    let scope = wire_scope(settings.scope);
    let mut c = Client::new(&book(), "ide");
    let p = plan(&mut c, &s.rt, d.id, scope);
    let at = format!("{} at {} scope", d.id, settings.scope.token());
    assert_unsupported_reported(d, &p);
    assert_every_mechanism_accounted_for(d, &p);
    assert!(
        p.steps.iter().all(|st| st.settings_scope == scope),
        "{at}: every step is at the planned scope"
    );

    if p.steps.is_empty() {
        assert!(
            !p.unsupported.is_empty(),
            "{at}: a plan with no steps says in its unsupported list why"
        );
        assert!(
            p.unsupported.iter().all(|u| !u.reason.as_str().is_empty()),
            "{at}: {:?}",
            p.unsupported
        );
        assert_eq!(std::fs::read_to_string(&s.file).unwrap(), s.seed, "{at}");
        return Cycle::NothingToDo;
    }

    let apply = VerbCall::Apply {
        tool: tool_id(d.id),
        plan_id: p.plan_id.clone(),
    };
    c.call(&s.rt, apply)
        .unwrap_or_else(|e| panic!("{at}: apply refused: {e:?}"));
    let written = std::fs::read_to_string(&s.file).unwrap();
    assert_ne!(written, s.seed, "{at}: apply changed the file");
    if !matches!(settings.format, SettingsFormat::Toml | SettingsFormat::Yaml) {
        // Comments the user wrote survive the edit.
        for line in s.seed.lines().filter(|l| l.trim_start().starts_with("//")) {
            assert!(written.contains(line), "{at}: lost {line:?} in\n{written}");
        }
    } else {
        for line in s.seed.lines().filter(|l| l.trim_start().starts_with('#')) {
            assert!(written.contains(line), "{at}: lost {line:?} in\n{written}");
        }
    }

    let v = verify(&mut c, &s.rt, d.id);
    assert_eq!(
        v.outcome,
        VerificationOutcome::Passed,
        "{at}: verify {:?}",
        v.reason
    );
    let st = status(&mut c, &s.rt, d.id);
    assert_eq!(
        (st.state, st.achieved_level),
        (StatusState::Ladder, Level::Integrated),
        "{at}: status {:?}",
        st.state_reason
    );

    remove(&mut c, &s.rt, d.id);
    assert_eq!(
        std::fs::read_to_string(&s.file).unwrap(),
        s.seed,
        "{at}: removal restores the seed byte for byte"
    );
    let after = status(&mut c, &s.rt, d.id);
    assert_ne!(
        after.achieved_level,
        Level::Integrated,
        "{at}: nothing is integrated after removal"
    );
    drop(s.sb);
    Cycle::Integrated
}

/// Runs the cycle at every sandboxable scope of `id` and answers the outcome per scope.
fn cycle(id: &str) -> Vec<(devint_runtime::adapters::SettingsScope, Cycle)> {
    let d = devint_runtime::adapters::find(id).unwrap();
    let mut outcomes = Vec::new();
    for settings in d.settings {
        // Managed settings live at an absolute system path (`/etc/...`) that the descriptor
        // does not let a test redirect into the sandbox; writing it is a privileged host
        // step, covered by `managed_scope_is_a_privileged_step_for_every_tool` below.
        if settings.base == PathBase::Absolute {
            continue;
        }
        outcomes.push((settings.scope, cycle_at(d, settings)));
    }
    assert!(
        !outcomes.is_empty(),
        "{id} has a user or project settings file"
    );
    outcomes
}

fn all_integrated(id: &str) {
    for (scope, outcome) in cycle(id) {
        assert_eq!(outcome, Cycle::Integrated, "{id} at {}", scope.token());
    }
}

#[test]
fn every_registered_tool_has_a_cycle_case() {
    let registered: Vec<&str> = devint_runtime::adapters::all()
        .iter()
        .map(|d| d.id)
        .collect();
    let mut covered = COVERED.to_vec();
    covered.sort_unstable();
    let mut sorted = registered.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, covered, "add a cycle test for each new tool");
}

#[test]
fn claude_code_completes_the_cycle_at_user_and_project_scope() {
    all_integrated("claude-code");
}

#[test]
fn codex_completes_the_cycle_at_user_and_project_scope() {
    all_integrated("codex");
}

#[test]
fn github_copilot_completes_the_cycle_in_vscode_settings() {
    all_integrated("github-copilot");
}

#[test]
fn windsurf_cascade_completes_the_cycle_in_its_hooks_files() {
    all_integrated("windsurf-cascade");
}

#[test]
fn gemini_cli_completes_the_cycle_at_user_and_project_scope() {
    all_integrated("gemini-cli");
}

#[test]
fn qwen_code_completes_the_cycle_at_user_and_project_scope() {
    all_integrated("qwen-code");
}

#[test]
fn cursor_completes_the_cycle_in_its_hooks_files() {
    all_integrated("cursor");
}

#[test]
fn opencode_completes_the_cycle_at_user_and_project_scope() {
    all_integrated("opencode");
}

#[test]
fn cline_completes_the_cycle_in_vscode_settings() {
    all_integrated("cline");
}

#[test]
fn roo_code_completes_the_cycle_in_vscode_settings() {
    all_integrated("roo-code");
}

#[test]
fn amp_completes_the_cycle_in_its_user_settings() {
    all_integrated("amp");
}

#[test]
fn kiro_completes_the_cycle_in_its_user_settings() {
    all_integrated("kiro");
}

#[test]
fn zed_completes_the_cycle_at_user_and_project_scope() {
    all_integrated("zed");
}

#[test]
fn factory_droid_completes_the_cycle_at_user_and_project_scope() {
    all_integrated("factory-droid");
}

#[test]
fn pi_completes_the_cycle_in_its_models_json() {
    all_integrated("pi");
}

#[test]
fn github_copilot_cli_completes_the_cycle_in_its_user_settings() {
    all_integrated("github-copilot-cli");
}

#[test]
fn mistral_vibe_completes_the_cycle_in_its_toml_user_settings() {
    all_integrated("mistral-vibe");
}

#[test]
fn kilo_code_cli_completes_the_cycle_in_its_user_settings() {
    all_integrated("kilo-code-cli");
}

#[test]
fn auggie_completes_the_cycle_in_its_user_settings() {
    all_integrated("auggie");
}

#[test]
fn crush_completes_the_cycle_in_its_user_settings() {
    all_integrated("crush");
}

#[test]
fn grok_cli_completes_the_cycle_in_its_user_settings() {
    all_integrated("grok-cli");
}

#[test]
fn cline_cli_completes_the_cycle_in_its_global_settings() {
    all_integrated("cline-cli");
}

#[test]
fn aider_completes_the_cycle_in_its_yaml_at_user_and_project_scope() {
    all_integrated("aider");
}

#[test]
fn goose_completes_the_cycle_in_its_yaml_user_settings() {
    all_integrated("goose");
}

#[test]
fn a_yaml_construct_the_editor_does_not_edit_is_named_and_the_file_left_untouched() {
    let d = devint_runtime::adapters::find("aider").unwrap();
    let settings = &d.settings[0];
    let s = scene(d, settings);
    let anchored = "base: &model sonnet\nweak-model: *model\n";
    std::fs::write(&s.file, anchored).unwrap();
    let mut c = Client::new(&book(), "ide");
    // Refused like a file that does not parse, before any consent is asked.
    let args = PlanArgs {
        profile: Profile::Strict,
        requested_level: Level::Integrated,
        scope: wire_scope(settings.scope),
        allow_privileged_host_steps: false,
        policy_profile_id: Some(PolicyProfileId::parse("every").unwrap()),
    };
    let e = c
        .call(
            &s.rt,
            VerbCall::Plan {
                tool: tool_id(d.id),
                args,
            },
        )
        .unwrap_err();
    assert!(
        e.message.contains("an anchor") && e.message.contains("line 1"),
        "{}",
        e.message
    );
    assert_eq!(std::fs::read_to_string(&s.file).unwrap(), anchored);
}

/// Applies `p` and answers the file's text.
fn apply(c: &mut Client, s: &Scene, tool: &str, p: &PlanView) -> String {
    c.call(
        &s.rt,
        VerbCall::Apply {
            tool: tool_id(tool),
            plan_id: p.plan_id.clone(),
        },
    )
    .unwrap_or_else(|e| panic!("apply refused: {e:?}"));
    std::fs::read_to_string(&s.file).unwrap()
}

#[test]
fn two_capabilities_adding_to_one_list_each_keep_their_step_and_their_entries() {
    // Aider's set-env holds the gateway's and the proxy's entries: each capability is its
    // own step, a second apply changes nothing, and removal gives back the user's file,
    // whether set-env held a list of the user's or a single value.
    let d = devint_runtime::adapters::find("aider").unwrap();
    let settings = &d.settings[0];
    for before in ["set-env:\n  - FOO=1  # mine\n", "set-env: FOO=1\n"] {
        let s = scene(d, settings);
        // set-env is read from Aider 0.68 on.
        std::fs::write(s.sb.bin.join("aider"), "#!/bin/sh\necho 'aider 0.86.2'\n").unwrap();
        std::fs::write(&s.file, before).unwrap();
        let mut c = Client::new(&book(), "ide");
        let p = plan(&mut c, &s.rt, d.id, wire_scope(settings.scope));
        for step in ["model_gateway_base_url", "http_proxy"] {
            let st = p
                .steps
                .iter()
                .find(|st| st.id.as_str() == step)
                .unwrap_or_else(|| panic!("{before:?}: no {step} step in {:?}", p.steps));
            assert!(
                st.managed_keys.iter().any(|k| k.as_str() == "set-env"),
                "{before:?}: {step} names set-env: {:?}",
                st.managed_keys
            );
        }
        let written = apply(&mut c, &s, d.id, &p);
        for entry in [
            "OPENAI_BASE_URL=http://127.0.0.1:8787/v1",
            "ANTHROPIC_API_BASE=http://127.0.0.1:8787/v1",
            "HTTPS_PROXY=http://127.0.0.1:8788",
            "HTTP_PROXY=http://127.0.0.1:8788",
        ] {
            assert_eq!(written.matches(entry).count(), 1, "{entry} in\n{written}");
        }
        assert_eq!(
            written.contains("FOO=1"),
            before.starts_with("set-env:\n"),
            "the user's list entry stays; a single value is displaced until removal:\n{written}"
        );
        assert_eq!(
            verify(&mut c, &s.rt, d.id).outcome,
            VerificationOutcome::Passed
        );

        let again = plan(&mut c, &s.rt, d.id, wire_scope(settings.scope));
        assert_eq!(
            apply(&mut c, &s, d.id, &again),
            written,
            "a second apply adds nothing"
        );
        assert_eq!(
            verify(&mut c, &s.rt, d.id).outcome,
            VerificationOutcome::Passed
        );

        remove(&mut c, &s.rt, d.id);
        assert_eq!(std::fs::read_to_string(&s.file).unwrap(), before);
    }
}

#[test]
fn continue_completes_the_cycle_in_its_permissions_yaml() {
    all_integrated("continue");
}

#[test]
fn managed_scope_is_a_privileged_step_for_every_tool() {
    // The managed file is an absolute host path: without consent at plan time the plan is
    // refused, and nothing is read from or written to the host.
    for d in devint_runtime::adapters::all() {
        let Some(settings) = d.settings_for(devint_runtime::adapters::SettingsScope::Managed)
        else {
            continue;
        };
        assert_eq!(settings.base, PathBase::Absolute, "{}", d.id);
        let sb = Sandbox::new();
        sb.write_profile("every", EVERY_MECHANISM);
        let rt = sb.open();
        let mut c = Client::new(&book(), "ide");
        let args = PlanArgs {
            profile: Profile::Strict,
            requested_level: Level::Integrated,
            scope: SettingsScope::Managed,
            allow_privileged_host_steps: false,
            policy_profile_id: Some(PolicyProfileId::parse("every").unwrap()),
        };
        let e = c
            .call(
                &rt,
                VerbCall::Plan {
                    tool: tool_id(d.id),
                    args,
                },
            )
            .unwrap_err();
        assert!(e.message.contains("privileged"), "{}: {}", d.id, e.message);
    }
}
