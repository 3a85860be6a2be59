//! `status` answers are remembered per tool and given again only while everything they were
//! derived from is unchanged (`reference::status_memo`): each test asks once so an answer is
//! remembered, changes one input, and asks again on the same runtime — the next answer must
//! see the change. Each would fail if that input were left out of the memo's key.
//!
//! Every status is asked twice: first at once (`Lifecycle::status_at_once`, the answer a
//! server gives on its own thread when a watch shows the files unchanged), then in full. An
//! answer given at once must be the one the full derivation gives; after a change, a stale
//! one would differ.

mod lifecycle_support;

use std::fs;
use std::time::Duration;

use devint::time::UnixSecs;
use devint::verbs::{Phase, PolicyState, StatusState, StatusView};
use devint_runtime::reference::ReferenceRuntime;
use lifecycle_support::*;

/// The next status, asked at once and then in full (see the module doc).
fn status(c: &mut Client, rt: &ReferenceRuntime) -> StatusView {
    let at_once = c.status_at_once(rt);
    let derived = c.status(rt);
    if let Some(at_once) = at_once {
        assert_eq!(at_once, derived, "answered at once from a stale memo");
    }
    derived
}

/// Claude Code installed under the file policy `team` and verified, its status remembered.
fn verified() -> (Sandbox, ReferenceRuntime, Client) {
    let (sb, rt, mut c) = installed();
    c.verify(&rt);
    let first = status(&mut c, &rt);
    assert_eq!(first.state, StatusState::Ladder);
    assert!(!first.evidence.is_empty());
    assert_eq!(
        status(&mut c, &rt),
        first,
        "nothing changed, the same answer"
    );
    (sb, rt, c)
}

#[test]
fn an_unchanged_status_is_answered_at_once_and_a_change_stops_that_until_derived_again() {
    let (sb, rt, mut c) = verified();
    let before = c
        .status_at_once(&rt)
        .expect("remembered, and its files watched");
    let text = sb.read_settings().unwrap();
    sb.write_settings(&format!("{text}\n"));
    assert_eq!(
        c.status_at_once(&rt),
        None,
        "the edit is seen without reading"
    );
    assert_eq!(c.status_at_once(&rt), None, "and until derived again");
    let after = c.status(&rt);
    assert_eq!(after.state, before.state, "a newline changes no key");
    // Derived again; the next comparison reads the files under a new watch (no extra read).
    assert_eq!(c.status_at_once(&rt), None, "not watched yet");
    assert_eq!(c.status(&rt), after);
    assert_eq!(c.status_at_once(&rt), Some(after), "watched again");
    // Another file beside the settings (the tool's own) changes nothing.
    fs::write(sb.settings().with_file_name("history.jsonl"), "{}\n").unwrap();
    assert!(c.status_at_once(&rt).is_some());
}

#[test]
fn settings_kept_in_a_dotfiles_directory_behind_a_symlink_are_watched_through_it() {
    let sb = Sandbox::new();
    let dotfiles = sb.dir.path().join("dotfiles/claude");
    fs::create_dir_all(dotfiles.parent().unwrap()).unwrap();
    fs::create_dir_all(&dotfiles).unwrap();
    std::os::unix::fs::symlink("../dotfiles/claude", sb.home.join(".claude")).unwrap();
    sb.write_settings(CLAUDE_SETTINGS);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    c.verify(&rt);
    let first = status(&mut c, &rt);
    assert_eq!(status(&mut c, &rt), first);
    assert_eq!(
        c.status_at_once(&rt),
        Some(first),
        "watched through the link"
    );
    // Edited where it really lives (a copy as installed kept in another profile first).
    let real = dotfiles.join("settings.json");
    let other = sb.dir.path().join("dotfiles/other");
    fs::create_dir_all(&other).unwrap();
    fs::copy(&real, other.join("settings.json")).unwrap();
    let mut v = json(&real);
    v["env"]["ANTHROPIC_BASE_URL"] = serde_json::json!("https://elsewhere.example");
    fs::write(&real, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    assert_eq!(c.status_at_once(&rt), None);
    assert_eq!(status(&mut c, &rt).state, StatusState::Drifted);
    assert_eq!(status(&mut c, &rt).state, StatusState::Drifted);
    assert!(c.status_at_once(&rt).is_some());
    // The link pointed at the other directory (a dotfiles manager switching profiles).
    let tmp = sb.home.join(".claude.new");
    std::os::unix::fs::symlink("../dotfiles/other", &tmp).unwrap();
    fs::rename(&tmp, sb.home.join(".claude")).unwrap();
    assert_eq!(c.status_at_once(&rt), None);
    assert_eq!(status(&mut c, &rt).state, StatusState::Ladder);
}

#[test]
fn a_status_is_not_answered_at_once_for_a_new_second_or_a_new_plan() {
    let (_sb, rt, mut c) = verified();
    assert!(c.status_at_once(&rt).is_some());
    c.now = UnixSecs::new(c.now.get() + 1);
    assert_eq!(c.status_at_once(&rt), None, "a new second is derived");
    let next = c.status(&rt);
    assert_eq!(c.status_at_once(&rt), Some(next));
    c.plan(&rt, "team");
    assert_eq!(c.status_at_once(&rt), None, "a live plan changes the phase");
}

#[test]
fn an_edit_of_our_key_is_seen_by_the_next_status_and_its_undo_too() {
    let (sb, rt, mut c) = verified();
    let before = status(&mut c, &rt);
    let text = sb.read_settings().unwrap();
    let mut v = json(&sb.settings());
    v["env"]["ANTHROPIC_BASE_URL"] = serde_json::json!("https://elsewhere.example");
    sb.write_settings(&serde_json::to_string_pretty(&v).unwrap());
    assert_eq!(status(&mut c, &rt).state, StatusState::Drifted);
    sb.write_settings(&text);
    assert_eq!(
        status(&mut c, &rt),
        before,
        "the same bytes again: the same answer"
    );
}

#[test]
fn an_edit_that_keeps_the_size_is_seen() {
    let (sb, rt, mut c) = verified();
    let text = sb.read_settings().unwrap();
    let url = json(&sb.settings())["env"]["ANTHROPIC_BASE_URL"]
        .as_str()
        .unwrap()
        .to_owned();
    // One character of our value changed, the length kept: content, not size, is compared.
    let mut other = url.clone().into_bytes();
    let last = other.len() - 2;
    other[last] = if other[last] == b'1' { b'2' } else { b'1' };
    let other = String::from_utf8(other).unwrap();
    let edited = text.replace(&url, &other);
    assert_eq!(edited.len(), text.len());
    assert_ne!(edited, text);
    sb.write_settings(&edited);
    assert_eq!(status(&mut c, &rt).state, StatusState::Drifted);
}

#[test]
fn a_corrupted_receipt_is_seen_by_the_next_status() {
    let (sb, rt, mut c) = verified();
    let receipt = sb.files("receipts").pop().unwrap();
    let text = fs::read_to_string(&receipt).unwrap();
    fs::write(
        &receipt,
        text.replacen("\"version\": 1", "\"version\": 9", 1),
    )
    .unwrap();
    let s = status(&mut c, &rt);
    assert_eq!(s.phase, Phase::PartiallyInstalled, "{s:?}");
    assert!(s.state_reason.unwrap().as_str().contains("receipt"));
}

#[test]
fn a_changed_policy_profile_is_seen_by_the_next_status() {
    let (sb, rt, mut c) = verified();
    assert_eq!(
        status(&mut c, &rt).policy.unwrap().state,
        PolicyState::Enforced
    );
    sb.write_profile("team", &format!("{TEAM_PROFILE}\n# reviewed\n"));
    assert_eq!(
        status(&mut c, &rt).policy.unwrap().state,
        PolicyState::Unknown
    );
}

#[test]
fn removed_evidence_is_seen_by_the_next_status() {
    let (sb, rt, mut c) = verified();
    let before = status(&mut c, &rt);
    for file in sb.files("evidence") {
        fs::remove_file(file).unwrap();
    }
    let after = status(&mut c, &rt);
    assert!(after.achieved_level < before.achieved_level, "{after:?}");
}

#[test]
fn the_clock_is_part_of_the_answer() {
    let (_sb, rt, mut c) = verified();
    let before = status(&mut c, &rt);
    c.now = UnixSecs::new(c.now.get() + 1);
    let later = status(&mut c, &rt);
    assert_eq!(later.observed_at_unix_secs, c.now);
    c.now = UnixSecs::new(c.now.get() + Duration::from_secs(25 * 3600).as_secs());
    let stale = status(&mut c, &rt);
    assert!(stale.achieved_level < before.achieved_level, "{stale:?}");
}

#[test]
fn a_removal_previewed_then_executed_is_seen_by_the_next_status() {
    let (_sb, rt, mut c) = verified();
    let preview = c.remove(&rt, None).unwrap();
    assert_eq!(
        status(&mut c, &rt).phase,
        Phase::Installed,
        "a preview is no removal"
    );
    c.remove(&rt, Some(preview.plan_id)).unwrap();
    assert_eq!(status(&mut c, &rt).phase, Phase::DetectedNotIntegrated);
}
