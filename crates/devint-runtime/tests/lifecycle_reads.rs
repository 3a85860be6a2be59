//! Each settings file is read at most once per request: `status`, `plan`,
//! `verify`, `list_tools`, `apply` and `remove` (preview and execution) counted through devint-fs's read tally (test support), which
//! sees every read of file contents on this thread — the lifecycle runs on the caller's
//! thread here, so the tally is exactly what one request read.

mod lifecycle_support;

use std::fs;
use std::path::PathBuf;

use devint::verbs::{Profile, SettingsScope, StatusState, ToolId, VerbCall, VerbResult};
use devint_fs::read::tally;
use devint_runtime::reference::ReferenceRuntime;
use lifecycle_support::*;

/// What `request` read: every file with its count.
fn reads_of(request: impl FnOnce()) -> Vec<(PathBuf, usize)> {
    tally::reset();
    request();
    tally::all()
}

fn read_twice(reads: &[(PathBuf, usize)]) -> Vec<&PathBuf> {
    reads
        .iter()
        .filter(|(_, n)| *n > 1)
        .map(|(p, _)| p)
        .collect()
}

/// A sandbox with Claude Code installed at user scope under the file policy `team`, and at
/// project scope under the same policy.
fn installed_at_two_scopes() -> (Sandbox, ReferenceRuntime, Client, PathBuf) {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    sb.write_profile("team", TEAM_PROFILE);
    let project = sb.dir.path().join("project");
    fs::create_dir(&project).unwrap();
    let rt = sb.open_with_project(&project);
    let mut c = Client::new(&book(), "ide");
    for scope in [SettingsScope::User, SettingsScope::Project] {
        let mut args = plan_args(Profile::Recommended, Some("team"));
        args.scope = scope;
        let plan = c.plan_with(&rt, args).unwrap();
        c.apply(&rt, &plan.plan_id).unwrap();
    }
    let project_file = project.join(".claude/settings.json");
    assert!(project_file.is_file());
    (sb, rt, c, project_file)
}

#[test]
fn status_reads_each_settings_file_and_the_policy_once() {
    let (sb, rt, mut c, project_file) = installed_at_two_scopes();
    let reads = reads_of(|| {
        c.status(&rt);
    });
    assert_eq!(tally_of(&reads, &sb.settings()), 1, "{reads:?}");
    assert_eq!(tally_of(&reads, &project_file), 1, "{reads:?}");
    assert_eq!(
        tally_of(&reads, &sb.state.join("profiles/team.toml")),
        1,
        "one policy installed at two scopes is loaded once: {reads:?}"
    );
    assert!(read_twice(&reads).is_empty(), "{reads:?}");
}

#[test]
fn verify_reads_each_settings_file_once() {
    let (sb, rt, mut c, project_file) = installed_at_two_scopes();
    let reads = reads_of(|| {
        c.verify(&rt);
    });
    assert_eq!(tally_of(&reads, &sb.settings()), 1, "{reads:?}");
    assert_eq!(tally_of(&reads, &project_file), 1, "{reads:?}");
    assert!(read_twice(&reads).is_empty(), "{reads:?}");
}

#[test]
fn plan_reads_the_settings_file_once() {
    let (sb, rt, mut c, _) = installed_at_two_scopes();
    let reads = reads_of(|| {
        c.plan_with(&rt, plan_args(Profile::Recommended, Some("team")))
            .unwrap();
    });
    assert_eq!(tally_of(&reads, &sb.settings()), 1, "{reads:?}");
    assert!(read_twice(&reads).is_empty(), "{reads:?}");
}

#[test]
fn list_tools_reads_no_settings_file() {
    let (sb, rt, mut c, project_file) = installed_at_two_scopes();
    let reads = reads_of(|| {
        let listed = c.call(&rt, VerbCall::ListTools).unwrap();
        assert!(matches!(listed, VerbResult::ListTools(_)), "{listed:?}");
    });
    assert_eq!(tally_of(&reads, &sb.settings()), 0, "{reads:?}");
    assert_eq!(tally_of(&reads, &project_file), 0, "{reads:?}");
    assert!(read_twice(&reads).is_empty(), "{reads:?}");
}

#[test]
fn repair_reads_each_settings_file_once() {
    let (sb, rt, mut c, project_file) = installed_at_two_scopes();
    let drifted = sb
        .read_settings()
        .unwrap()
        .replace("127.0.0.1:8787", "127.0.0.1:1");
    sb.write_settings(&drifted);
    let reads = reads_of(|| {
        let repaired = c
            .call(
                &rt,
                VerbCall::Repair {
                    tool: ToolId::parse("claude-code").unwrap(),
                },
            )
            .unwrap();
        let VerbResult::Repair(view) = repaired else {
            panic!("{repaired:?}")
        };
        assert!(!view.repaired.is_empty(), "{view:?}");
        let status = view.status;
        assert_ne!(status.state, StatusState::Drifted, "{status:?}");
        assert!(status.drift_mismatched.is_empty(), "{status:?}");
    });
    // Once under the lock to repair it; the status in its answer is read back from what
    // the repair wrote (or left), not from a second read.
    assert_eq!(tally_of(&reads, &sb.settings()), 1, "{reads:?}");
    assert_eq!(tally_of(&reads, &project_file), 1, "{reads:?}");
    let now = sb.read_settings().unwrap();
    assert!(!now.contains("127.0.0.1:1/"), "repaired: {now}");
    assert!(now.contains("127.0.0.1:8787/anthropic"), "repaired: {now}");
}

fn tally_of(reads: &[(PathBuf, usize)], path: &std::path::Path) -> usize {
    reads.iter().find(|(p, _)| p == path).map_or(0, |(_, n)| *n)
}

#[test]
fn apply_and_remove_read_each_settings_file_once() {
    let (sb, rt, mut c, project_file) = installed_at_two_scopes();
    let plan = c
        .plan_with(&rt, plan_args(Profile::Strict, Some("team")))
        .unwrap();
    let reads = reads_of(|| {
        c.apply(&rt, &plan.plan_id).unwrap();
    });
    assert_eq!(tally_of(&reads, &sb.settings()), 1, "{reads:?}");
    assert!(read_twice(&reads).is_empty(), "{reads:?}");

    let mut preview = None;
    let reads = reads_of(|| preview = Some(c.remove(&rt, None).unwrap()));
    assert_eq!(tally_of(&reads, &sb.settings()), 1, "preview: {reads:?}");
    assert_eq!(tally_of(&reads, &project_file), 1, "preview: {reads:?}");
    assert!(read_twice(&reads).is_empty(), "preview: {reads:?}");

    let plan_id = preview.unwrap().plan_id;
    let reads = reads_of(|| {
        c.remove(&rt, Some(plan_id)).unwrap();
    });
    assert_eq!(tally_of(&reads, &sb.settings()), 1, "remove: {reads:?}");
    assert_eq!(tally_of(&reads, &project_file), 1, "remove: {reads:?}");
    assert!(read_twice(&reads).is_empty(), "remove: {reads:?}");
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
}
