//! Consent covers what is written. A project-scope settings file that
//! resolves (through a symlink) outside the project is refused, naming the resolved path;
//! at user scope a symlinked settings file is followed (dotfile managers) and the plan
//! shows the file really written ("→ …"); a hard-linked settings file is refused rather than
//! split from its other names by the atomic replace.

#![cfg(feature = "test-support")]

mod lifecycle_support;

use devint::verbs::{Profile, SettingsScope};
use lifecycle_support::*;

#[test]
fn a_project_settings_file_linked_outside_the_project_is_refused_naming_where_it_leads() {
    let sb = Sandbox::new();
    let project = sb.dir.path().join("repo");
    let outside = sb.home.join(".config/someapp/config.json");
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    std::fs::write(&outside, "{\"someapp\": true}\n").unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::os::unix::fs::symlink(
        "../../home/.config/someapp/config.json",
        project.join(".claude/settings.json"),
    )
    .unwrap();
    let rt = sb.open_with_project(&project);
    let mut c = Client::new(&book(), "ide");
    let mut args = plan_args(Profile::Recommended, Some("team"));
    args.scope = SettingsScope::Project;
    let e = c.plan_with(&rt, args).unwrap_err();
    assert!(
        e.message.contains("outside the project") && e.message.contains("someapp/config.json"),
        "{}",
        e.message
    );
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "{\"someapp\": true}\n"
    );
}

#[test]
fn a_symlinked_user_settings_file_is_followed_and_the_plan_names_the_real_file() {
    let sb = Sandbox::new();
    let dotfiles = sb.home.join("dotfiles/claude-settings.json");
    std::fs::create_dir_all(dotfiles.parent().unwrap()).unwrap();
    std::fs::write(&dotfiles, CLAUDE_SETTINGS).unwrap();
    std::fs::create_dir_all(sb.settings().parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&dotfiles, sb.settings()).unwrap();
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    let plan = c.plan(&rt, "team");
    assert!(
        plan.steps.iter().all(|s| s
            .summary
            .as_str()
            .contains("→ ~/dotfiles/claude-settings.json")),
        "{:?}",
        plan.steps
            .iter()
            .map(|s| s.summary.as_str())
            .collect::<Vec<_>>()
    );
    c.apply(&rt, &plan.plan_id).unwrap();
    assert!(std::fs::symlink_metadata(sb.settings())
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&dotfiles).unwrap().contains("8787"));
}

#[test]
fn a_hard_linked_settings_file_is_refused_not_split() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let other = sb.home.join("backup-settings.json");
    std::fs::hard_link(sb.settings(), &other).unwrap();
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    let plan = c.plan(&rt, "team");
    assert!(
        plan.warnings
            .iter()
            .any(|w| w.as_str().contains("hard links")),
        "{:?}",
        plan.warnings
    );
    let e = c.apply(&rt, &plan.plan_id).unwrap_err();
    assert!(e.message.contains("hard links"), "{}", e.message);
    assert_eq!(std::fs::read_to_string(&other).unwrap(), CLAUDE_SETTINGS);
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
}
