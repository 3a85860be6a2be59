//! The modes and owners of the files and directories devint writes for a tool, per scope:
//! a managed file must be readable by the tool running as any user (root-owned `0644`, its
//! new directories `0755`), a user or project file keeps the mode its user gave it and a
//! new one gets the mode the tool itself would create it with. The managed scope is written
//! under a sandboxed host root (`RuntimeConfig::system_root`), never the real `/etc`.

mod lifecycle_support;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use devint::verbs::{PlanArgs, PlanView, Profile, SettingsScope, ToolId, VerbCall, VerbResult};
use devint_fs::mode::current_umask;
use devint_runtime::reference::{ReferenceRuntime, RuntimeConfig};
use lifecycle_support::*;

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().mode() & 0o7777
}

fn umask() -> u32 {
    current_umask().expect("Linux reports the umask in /proc/self/status")
}

fn we_are_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// A sandbox whose host root is `<sandbox>/root` (a `0755` directory, as `/` is).
fn managed_sandbox() -> (Sandbox, PathBuf, ReferenceRuntime) {
    let sb = Sandbox::new();
    let root = sb.dir.path().join("root");
    fs::create_dir(&root).unwrap();
    fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
    let mut config: RuntimeConfig = sb.config();
    config.system_root = root.clone();
    let rt = ReferenceRuntime::open(config).unwrap();
    (sb, root, rt)
}

fn plan_at(c: &mut Client, rt: &ReferenceRuntime, tool: &str, scope: SettingsScope) -> PlanView {
    let args = PlanArgs {
        scope,
        allow_privileged_host_steps: scope == SettingsScope::Managed,
        ..plan_args(Profile::Recommended, Some("team"))
    };
    match c
        .call(
            rt,
            VerbCall::Plan {
                tool: ToolId::parse(tool).unwrap(),
                args,
            },
        )
        .unwrap()
    {
        VerbResult::Plan(p) => p,
        other => panic!("{other:?}"),
    }
}

fn install_at(c: &mut Client, rt: &ReferenceRuntime, tool: &str, scope: SettingsScope) {
    let plan = plan_at(c, rt, tool, scope);
    let applied = c
        .call(
            rt,
            VerbCall::Apply {
                tool: ToolId::parse(tool).unwrap(),
                plan_id: plan.plan_id,
            },
        )
        .unwrap();
    assert!(matches!(applied, VerbResult::Apply(_)), "{applied:?}");
}

#[test]
fn a_managed_file_is_created_root_owned_0644_in_0755_directories() {
    let (_sb, root, rt) = managed_sandbox();
    let mut c = Client::new(&book(), "installer");
    install_at(&mut c, &rt, "claude-code", SettingsScope::Managed);
    let file = root.join("etc/claude-code/managed-settings.json");
    assert!(
        file.is_file(),
        "written under the sandboxed root, never /etc"
    );
    assert_eq!(mode(&file), 0o644, "a non-root Claude Code must read it");
    assert_eq!(mode(&root.join("etc")), 0o755);
    assert_eq!(mode(&root.join("etc/claude-code")), 0o755);
    let owner = fs::metadata(&file).unwrap().uid();
    assert_eq!(
        owner,
        rustix::process::geteuid().as_raw(),
        "owned by the writer"
    );
    if we_are_root() {
        assert_eq!(owner, 0, "root-owned");
    }
}

#[test]
fn an_existing_managed_file_is_reset_to_root_owned_0644() {
    let (_sb, root, rt) = managed_sandbox();
    let dir = root.join("etc/claude-code");
    fs::create_dir_all(&dir).unwrap();
    for d in [root.join("etc"), dir.clone()] {
        fs::set_permissions(&d, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let file = dir.join("managed-settings.json");
    fs::write(&file, "{\"model\": \"claude-sonnet-4-5\"}\n").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
    if we_are_root() {
        // A managed policy another user owns is one they can rewrite.
        std::os::unix::fs::chown(&file, Some(4242), Some(4242)).unwrap();
    }
    let mut c = Client::new(&book(), "installer");
    install_at(&mut c, &rt, "claude-code", SettingsScope::Managed);
    assert_eq!(mode(&file), 0o644);
    let meta = fs::metadata(&file).unwrap();
    assert_eq!(meta.uid(), rustix::process::geteuid().as_raw());
    assert!(
        fs::read_to_string(&file)
            .unwrap()
            .contains("claude-sonnet-4-5"),
        "the administrator's keys are kept"
    );
}

#[test]
fn a_managed_directory_others_cannot_search_is_reported_and_left_alone() {
    let (_sb, root, rt) = managed_sandbox();
    let dir = root.join("etc/claude-code");
    fs::create_dir_all(&dir).unwrap();
    fs::set_permissions(root.join("etc"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
    let mut c = Client::new(&book(), "installer");
    let plan = plan_at(&mut c, &rt, "claude-code", SettingsScope::Managed);
    let named = plan
        .warnings
        .iter()
        .find(|w| w.as_str().contains("cannot be searched by other users"))
        .unwrap_or_else(|| panic!("{:?}", plan.warnings));
    assert!(named.as_str().contains("chmod o+x"), "{named:?}");
    assert!(named.as_str().contains("claude-code"), "{named:?}");
    install_at(&mut c, &rt, "claude-code", SettingsScope::Managed);
    assert_eq!(
        mode(&dir),
        0o700,
        "never chmod a directory devint did not create"
    );
    assert_eq!(mode(&dir.join("managed-settings.json")), 0o644);
}

#[test]
fn a_new_user_file_gets_the_tools_usual_mode_and_directory() {
    let sb = Sandbox::new();
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    install_at(&mut c, &rt, "claude-code", SettingsScope::User);
    // Claude Code (Node's fs.writeFile, fs.mkdir) creates 0666/0777 less the umask.
    assert_eq!(mode(&sb.settings()), 0o666 & !umask());
    assert_eq!(mode(&sb.home.join(".claude")), 0o777 & !umask());
    install_at(&mut c, &rt, "codex", SettingsScope::User);
    // Codex persists config.toml from a 0600 temporary file.
    assert_eq!(mode(&sb.home.join(".codex/config.toml")), 0o600 & !umask());
}

#[test]
fn an_existing_user_file_keeps_its_mode_and_owner_through_apply_repair_and_removal() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    fs::set_permissions(sb.settings(), fs::Permissions::from_mode(0o640)).unwrap();
    if we_are_root() {
        std::os::unix::fs::chown(sb.settings(), Some(4242), Some(4242)).unwrap();
    }
    let owner = fs::metadata(sb.settings()).unwrap().uid();
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    assert_eq!(mode(&sb.settings()), 0o640);
    // Drift one key of ours, repair it.
    let drifted = sb
        .read_settings()
        .unwrap()
        .replace("http://127.0.0.1:8787/anthropic", "http://elsewhere");
    fs::write(sb.settings(), drifted).unwrap();
    match c.call(&rt, VerbCall::Repair { tool: claude() }).unwrap() {
        VerbResult::Repair(r) => assert!(!r.repaired.is_empty(), "{r:?}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(mode(&sb.settings()), 0o640);
    c.uninstall(&rt);
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
    assert_eq!(mode(&sb.settings()), 0o640);
    assert_eq!(fs::metadata(sb.settings()).unwrap().uid(), owner);
}

#[test]
fn a_new_project_file_gets_the_tools_usual_mode() {
    let sb = Sandbox::new();
    let project = sb.dir.path().join("project");
    fs::create_dir(&project).unwrap();
    let rt = sb.open_with_project(&project);
    let mut c = Client::new(&book(), "ide");
    install_at(&mut c, &rt, "claude-code", SettingsScope::Project);
    assert_eq!(
        mode(&project.join(".claude/settings.json")),
        0o666 & !umask()
    );
    assert_eq!(mode(&project.join(".claude")), 0o777 & !umask());
}
