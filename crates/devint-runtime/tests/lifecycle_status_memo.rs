//! `status` answers are remembered per tool and given again only while everything they were
//! derived from is unchanged (`reference::status_memo`): each test asks once so an answer is
//! remembered, changes one input, and asks again on the same runtime — the next answer must
//! see the change. Each would fail if that input were left out of the memo's key.

mod lifecycle_support;

use std::fs;
use std::time::Duration;

use devint::time::UnixSecs;
use devint::verbs::{Phase, PolicyState, StatusState};
use devint_runtime::reference::ReferenceRuntime;
use lifecycle_support::*;

/// Claude Code installed under the file policy `team` and verified, its status remembered.
fn verified() -> (Sandbox, ReferenceRuntime, Client) {
    let (sb, rt, mut c) = installed();
    c.verify(&rt);
    let first = c.status(&rt);
    assert_eq!(first.state, StatusState::Ladder);
    assert!(!first.evidence.is_empty());
    assert_eq!(c.status(&rt), first, "nothing changed, the same answer");
    (sb, rt, c)
}

#[test]
fn an_edit_of_our_key_is_seen_by_the_next_status_and_its_undo_too() {
    let (sb, rt, mut c) = verified();
    let before = c.status(&rt);
    let text = sb.read_settings().unwrap();
    let mut v = json(&sb.settings());
    v["env"]["ANTHROPIC_BASE_URL"] = serde_json::json!("https://elsewhere.example");
    sb.write_settings(&serde_json::to_string_pretty(&v).unwrap());
    assert_eq!(c.status(&rt).state, StatusState::Drifted);
    sb.write_settings(&text);
    assert_eq!(
        c.status(&rt),
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
    assert_eq!(c.status(&rt).state, StatusState::Drifted);
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
    let s = c.status(&rt);
    assert_eq!(s.phase, Phase::PartiallyInstalled, "{s:?}");
    assert!(s.state_reason.unwrap().as_str().contains("receipt"));
}

#[test]
fn a_changed_policy_profile_is_seen_by_the_next_status() {
    let (sb, rt, mut c) = verified();
    assert_eq!(c.status(&rt).policy.unwrap().state, PolicyState::Enforced);
    sb.write_profile("team", &format!("{TEAM_PROFILE}\n# reviewed\n"));
    assert_eq!(c.status(&rt).policy.unwrap().state, PolicyState::Unknown);
}

#[test]
fn removed_evidence_is_seen_by_the_next_status() {
    let (sb, rt, mut c) = verified();
    let before = c.status(&rt);
    for file in sb.files("evidence") {
        fs::remove_file(file).unwrap();
    }
    let after = c.status(&rt);
    assert!(after.achieved_level < before.achieved_level, "{after:?}");
}

#[test]
fn the_clock_is_part_of_the_answer() {
    let (_sb, rt, mut c) = verified();
    let before = c.status(&rt);
    c.now = UnixSecs::new(c.now.get() + 1);
    let later = c.status(&rt);
    assert_eq!(later.observed_at_unix_secs, c.now);
    c.now = UnixSecs::new(c.now.get() + Duration::from_secs(25 * 3600).as_secs());
    let stale = c.status(&rt);
    assert!(stale.achieved_level < before.achieved_level, "{stale:?}");
}

#[test]
fn a_removal_previewed_then_executed_is_seen_by_the_next_status() {
    let (_sb, rt, mut c) = verified();
    let preview = c.remove(&rt, None).unwrap();
    assert_eq!(
        c.status(&rt).phase,
        Phase::Installed,
        "a preview is no removal"
    );
    c.remove(&rt, Some(preview.plan_id)).unwrap();
    assert_eq!(c.status(&rt).phase, Phase::DetectedNotIntegrated);
}
