//! The backend is tool-agnostic: the same engine integrates a TOML tool (Codex's
//! `~/.codex/config.toml`) and a JSONC tool (Gemini CLI's `~/.gemini/settings.json`) with
//! comments kept, unsupported mechanisms reported at plan time, and exact removal.

#![cfg(feature = "test-support")]

mod lifecycle_support;

use std::os::unix::fs::PermissionsExt;

use devint::backend::Lifecycle;
use devint::verbs::{
    CapabilityName, Level, PlanView, Profile, SettingsScope, StatusState, ToolId, VerbCall,
    VerbResult, VerificationOutcome,
};
use lifecycle_support::*;

const CODEX_CONFIG: &str = r#"# my codex config
model = "gpt-5-codex"   # the default model

[profiles.fast]
model = "gpt-5-mini"

[mcp_servers.docs]
command = "docs-mcp"
"#;

const GEMINI_SETTINGS: &str = r#"// Gemini CLI settings
{
  "theme": "GitHub", // dark theme
  "tools": {
    "exclude": ["ShellTool(rm -rf)"],
  },
}
"#;

fn fake_binary(sb: &Sandbox, name: &str, version: &str) {
    let path = sb.bin.join(name);
    std::fs::write(&path, format!("#!/bin/sh\necho '{version}'\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Write `text` to `rel` under the sandbox's home, creating its directory.
fn write_home_file(sb: &Sandbox, rel: &str, text: &str) -> std::path::PathBuf {
    let path = sb.home.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn tool(id: &str) -> ToolId {
    ToolId::parse(id).unwrap()
}

fn plan(c: &mut Client, rt: &dyn Lifecycle, t: &str, policy: &str) -> PlanView {
    let args = plan_args(Profile::Strict, Some(policy));
    match c
        .call(
            rt,
            VerbCall::Plan {
                tool: tool(t),
                args,
            },
        )
        .unwrap()
    {
        VerbResult::Plan(p) => p,
        other => panic!("{other:?}"),
    }
}

/// Apply `plan` for tool `t`.
fn apply(c: &mut Client, rt: &dyn Lifecycle, t: &str, plan: &PlanView) {
    let apply = VerbCall::Apply {
        tool: tool(t),
        plan_id: plan.plan_id.clone(),
    };
    c.call(rt, apply).unwrap();
}

/// Remove tool `t`'s integration: preview the removal, then carry out that plan.
fn remove(c: &mut Client, rt: &dyn Lifecycle, t: &str) {
    let preview = match c
        .call(
            rt,
            VerbCall::Remove {
                tool: tool(t),
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
            tool: tool(t),
            plan_id: Some(preview.plan_id),
        },
    )
    .unwrap();
}

/// Apply, verify and check status for tool `t`, then remove its integration.
fn cycle(c: &mut Client, rt: &dyn Lifecycle, t: &str, plan: &PlanView) {
    apply(c, rt, t, plan);
    match c.call(rt, VerbCall::Verify { tool: tool(t) }).unwrap() {
        VerbResult::Verify(v) => assert_eq!(v.outcome, VerificationOutcome::Passed),
        other => panic!("{other:?}"),
    }
    match c.call(rt, VerbCall::Status { tool: tool(t) }).unwrap() {
        VerbResult::Status(s) => {
            assert_eq!(
                (s.state, s.achieved_level),
                (StatusState::Ladder, Level::Integrated)
            )
        }
        other => panic!("{other:?}"),
    }
    remove(c, rt, t);
}

#[test]
fn codex_toml_is_integrated_with_comments_kept_and_removed_exactly() {
    let sb = Sandbox::new();
    fake_binary(&sb, "codex", "codex-cli 0.63.0");
    sb.write_profile("team-codex", "gateway_base_url = \"http://127.0.0.1:8787/openai\"\nproxy_url = \"http://127.0.0.1:8788\"\nhook_command = \"aa-notify\"\n");
    let config = write_home_file(&sb, ".codex/config.toml", CODEX_CONFIG);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    let p = plan(&mut c, &rt, "codex", "team-codex");
    assert!(
        p.unsupported
            .iter()
            .any(|u| u.capability == CapabilityName::HttpProxy),
        "a proxy Codex cannot take is reported at plan time: {:?}",
        p.unsupported
    );
    apply(&mut c, &rt, "codex", &p);
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.starts_with("# my codex config\nmodel = \"gpt-5-codex\"   # the default model\n"),
        "{text}"
    );
    let value: toml::Table = text.parse().unwrap();
    assert_eq!(value["model_provider"].as_str(), Some("devint-gateway"));
    assert_eq!(
        value["approval_policy"].as_str(),
        Some("on-request"),
        "strict requires approval"
    );
    // Put it back and run the whole cycle.
    remove(&mut c, &rt, "codex");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), CODEX_CONFIG);
    let p = plan(&mut c, &rt, "codex", "team-codex");
    cycle(&mut c, &rt, "codex", &p);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), CODEX_CONFIG);
}

#[test]
fn gemini_jsonc_is_integrated_with_comments_kept_and_removed_exactly() {
    let sb = Sandbox::new();
    fake_binary(&sb, "gemini", "0.18.0");
    sb.write_profile(
        "team-gemini",
        "hook_command = \"aa-hook\"\ndeny = [\"web_fetch\"]\nmcp_deny = [\"shady\"]\n",
    );
    let settings = write_home_file(&sb, ".gemini/settings.json", GEMINI_SETTINGS);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    let p = plan(&mut c, &rt, "gemini-cli", "team-gemini");
    assert!(p
        .steps
        .iter()
        .all(|s| s.settings_scope == SettingsScope::User));
    // Gemini CLI's deny rules live in policy files devint does not write: the rule is
    // reported, never written in another tool's syntax.
    assert!(
        p.warnings.iter().any(|w| w
            .as_str()
            .contains("Gemini CLI cannot enforce rule 1 of the policy's deny list (every one of the web fetches)")),
        "{:?}",
        p.warnings
    );
    assert_eq!(p.adapter_ceiling, devint::verbs::AdapterCeiling::L1Observe);
    apply(&mut c, &rt, "gemini-cli", &p);
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(
        text.contains("// Gemini CLI settings") && text.contains("// dark theme"),
        "{text}"
    );
    assert!(
        text.contains("ShellTool(rm -rf)") && text.contains("shady") && !text.contains("web_fetch"),
        "{text}"
    );
    remove(&mut c, &rt, "gemini-cli");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), GEMINI_SETTINGS);
    let p = plan(&mut c, &rt, "gemini-cli", "team-gemini");
    cycle(&mut c, &rt, "gemini-cli", &p);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), GEMINI_SETTINGS);
}

#[test]
fn project_scope_needs_a_project_directory_and_warns_about_folder_trust() {
    let sb = Sandbox::new();
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    let mut args = plan_args(Profile::Recommended, Some("team"));
    args.scope = SettingsScope::Project;
    let e = c.plan_with(&rt, args.clone()).unwrap_err();
    assert!(e.message.contains("project directory"), "{}", e.message);

    let project = sb.dir.path().join("repo");
    std::fs::create_dir_all(&project).unwrap();
    let rt = sb.open_with_project(&project);
    let p = c.plan_with(&rt, args).unwrap();
    assert!(
        p.warnings.iter().any(|w| w.as_str().contains("trusted")),
        "{:?}",
        p.warnings
    );
    c.apply(&rt, &p.plan_id).unwrap();
    assert!(project.join(".claude/settings.json").exists());
    c.uninstall(&rt);
    assert!(!project.join(".claude/settings.json").exists());
}
