//! Crash safety and cross-process serialisation of the reference backend.
//!
//! Each crash test spawns this test binary as a child that runs one operation and calls
//! `std::process::abort()` at one journal point (the observer in `RuntimeConfig`); the
//! parent then opens a fresh runtime — recovery — and checks that the target is either as
//! it was or fully done, never half. Every point of apply, repair and remove is covered.

#![cfg(feature = "test-support")]

mod lifecycle_support;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::Arc;
use std::time::{Duration, Instant};

use devint::verbs::{ApplyMutation, Level, Phase, StatusState, VerbCall};
use devint_fs::lock::{LockError, TargetLock};
use devint_runtime::reference::{JournalPoint, JournalStage, ReferenceRuntime};
use lifecycle_support::*;

const ROLE: &str = "DEVINT_LC_CHILD_ROLE";
const DIR: &str = "DEVINT_LC_CHILD_DIR";
const AT: &str = "DEVINT_LC_CHILD_AT";

/// The child's side; does nothing unless spawned by a test below.
#[test]
fn child_entry() {
    let (Ok(role), Ok(dir)) = (std::env::var(ROLE), std::env::var(DIR)) else {
        return;
    };
    let root = PathBuf::from(dir);
    let at = std::env::var(AT).unwrap_or_default();
    let mut config = config_for(&root);
    let marker = root.clone();
    let holds = role.starts_with("hold");
    config.journal_observer = Some(Arc::new(move |p: JournalPoint| {
        if p.token() == at {
            if holds {
                std::fs::write(marker.join("a-holding"), "").unwrap();
                wait_for(&marker.join("release"));
            } else {
                std::process::abort();
            }
        }
    }));
    let rt = ReferenceRuntime::open(config).unwrap();
    let mut c = Client::new(&book(), "child");
    match role.as_str() {
        "apply" | "hold" => {
            let view = c.install(&rt, "team");
            assert_eq!(view.outcome.unwrap().mutation, ApplyMutation::Changed);
        }
        "second" => {
            let plan = c.plan(&rt, "other");
            std::fs::write(root.join("b-planned"), "").unwrap();
            c.apply(&rt, &plan.plan_id).unwrap();
        }
        "remove" | "hold-remove" => {
            c.uninstall(&rt);
        }
        "repair" => {
            c.call(&rt, VerbCall::Repair { tool: claude() }).unwrap();
        }
        other => panic!("unknown role {other}"),
    }
}

/// Waits for a marker file another process writes (bounded, so a broken peer fails the
/// test instead of hanging it).
fn wait_for(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn child(role: &str, root: &Path, at: &str) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["child_entry", "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .env(DIR, root)
        .env(AT, at)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    cmd
}

fn run_child(role: &str, root: &Path, at: &str) -> ExitStatus {
    child(role, root, at).status().unwrap()
}

/// The text a full install of the team profile produces from `CLAUDE_SETTINGS`.
fn integrated_text() -> String {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let rt = sb.open();
    Client::new(&book(), "ide").install(&rt, "team");
    sb.read_settings().unwrap()
}

fn point(op: &str, stage: JournalStage) -> String {
    let operation = match op {
        "apply" => devint_runtime::reference::JournalOperation::Apply,
        "repair" => devint_runtime::reference::JournalOperation::Repair,
        _ => devint_runtime::reference::JournalOperation::Remove,
    };
    JournalPoint { operation, stage }.token()
}

/// After recovery: no journal left, and the status agrees with the file.
fn recovered(sb: &Sandbox) -> (ReferenceRuntime, Client) {
    let rt = sb.open();
    assert!(
        sb.files("journal").is_empty(),
        "recovery removed the journal"
    );
    (rt, Client::new(&book(), "ide"))
}

#[test]
fn a_crash_at_every_apply_journal_point_leaves_the_file_as_it_was_or_fully_integrated() {
    let full = integrated_text();
    for stage in JournalPoint::STAGES {
        let sb = Sandbox::new();
        sb.write_settings(CLAUDE_SETTINGS);
        let status = run_child("apply", sb.dir.path(), &point("apply", stage));
        assert!(
            !status.success(),
            "{stage:?}: the child must have died at the point"
        );
        let (rt, mut c) = recovered(&sb);
        let text = sb.read_settings().unwrap();
        if stage == JournalStage::JournalWritten {
            assert_eq!(text, CLAUDE_SETTINGS, "{stage:?}: rolled back");
            assert!(sb.files("receipts").is_empty(), "{stage:?}");
            c.install(&rt, "team");
        } else {
            assert_eq!(text, full, "{stage:?}: fully integrated");
            let s = c.status(&rt);
            assert_eq!(
                (s.state, s.achieved_level),
                (StatusState::Ladder, Level::PartiallyIntegrated),
                "{stage:?}"
            );
        }
        c.uninstall(&rt);
        assert_eq!(
            sb.read_settings().unwrap(),
            CLAUDE_SETTINGS,
            "{stage:?}: removal is exact"
        );
    }
}

#[test]
fn a_crash_at_every_remove_journal_point_leaves_the_file_integrated_or_as_it_was() {
    let full = integrated_text();
    for stage in JournalPoint::STAGES {
        let sb = Sandbox::new();
        sb.write_settings(CLAUDE_SETTINGS);
        {
            let rt = sb.open();
            Client::new(&book(), "ide").install(&rt, "team");
        }
        let status = run_child("remove", sb.dir.path(), &point("remove", stage));
        assert!(
            !status.success(),
            "{stage:?}: the child must have died at the point"
        );
        let (rt, mut c) = recovered(&sb);
        if stage == JournalStage::JournalWritten {
            assert_eq!(sb.read_settings().unwrap(), full, "{stage:?}: rolled back");
            assert_eq!(c.status(&rt).state, StatusState::Ladder, "{stage:?}");
            c.uninstall(&rt);
        } else {
            assert!(sb.files("receipts").is_empty(), "{stage:?}: rolled forward");
        }
        assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS, "{stage:?}");
        assert_eq!(
            c.status(&rt).achieved_level,
            Level::DetectedNotIntegrated,
            "{stage:?}"
        );
    }
}

#[test]
fn a_crash_at_every_repair_journal_point_leaves_the_drift_or_the_repair() {
    let full = integrated_text();
    let drifted = full.replace(
        "http://127.0.0.1:8787/anthropic",
        "https://elsewhere.example",
    );
    for stage in JournalPoint::STAGES {
        let sb = Sandbox::new();
        sb.write_settings(CLAUDE_SETTINGS);
        {
            let rt = sb.open();
            Client::new(&book(), "ide").install(&rt, "team");
        }
        sb.write_settings(&drifted);
        let status = run_child("repair", sb.dir.path(), &point("repair", stage));
        assert!(
            !status.success(),
            "{stage:?}: the child must have died at the point"
        );
        let (rt, mut c) = recovered(&sb);
        let s = c.status(&rt);
        if stage == JournalStage::JournalWritten {
            assert_eq!(
                sb.read_settings().unwrap(),
                drifted,
                "{stage:?}: rolled back"
            );
            assert_eq!(s.state, StatusState::Drifted, "{stage:?}");
            // The drift is still ours to repair (removing now would keep the changed value).
            c.call(&rt, VerbCall::Repair { tool: claude() }).unwrap();
            assert_eq!(sb.read_settings().unwrap(), full, "{stage:?}");
        } else {
            assert_eq!(sb.read_settings().unwrap(), full, "{stage:?}: repaired");
            assert_eq!(s.state, StatusState::Ladder, "{stage:?}");
        }
        c.uninstall(&rt);
        assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS, "{stage:?}");
    }
}

#[test]
fn a_removal_begun_and_not_finished_is_removal_pending_and_only_then() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let root = sb.dir.path();
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    let preview = c.remove(&rt, None).unwrap();
    assert!(!preview.steps.is_empty());
    assert_eq!(
        c.status(&rt).phase,
        Phase::Installed,
        "a preview is not a removal"
    );

    let mut remover = child(
        "hold-remove",
        root,
        &point("remove", JournalStage::JournalWritten),
    )
    .spawn()
    .unwrap();
    wait_for(&root.join("a-holding"));
    // The removal's journal is written and its lock held: it has begun, not finished.
    assert_eq!(c.status(&rt).phase, Phase::RemovalPending);
    std::fs::write(root.join("release"), "").unwrap();
    assert!(remover.wait().unwrap().success(), "the removal completes");
    let done = c.status(&rt);
    assert_eq!(
        (done.phase, done.achieved_level),
        (Phase::DetectedNotIntegrated, Level::DetectedNotIntegrated)
    );
    assert_eq!(sb.read_settings().unwrap(), CLAUDE_SETTINGS);
}

#[test]
fn two_processes_applying_to_one_tool_serialize() {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    sb.write_profile("other", "gateway_base_url = \"http://127.0.0.1:9999\"\n");
    let root = sb.dir.path();
    let mut a = child("hold", root, &point("apply", JournalStage::TargetWritten))
        .spawn()
        .unwrap();
    wait_for(&root.join("a-holding"));
    // A holds the (tool, scope) lock mid-apply: nobody else can take it.
    let busy = TargetLock::try_acquire(&sb.state.join("locks"), "claude-code", "user");
    assert!(matches!(busy, Err(LockError::Busy { .. })), "{busy:?}");
    let mut b = child("second", root, "").spawn().unwrap();
    wait_for(&root.join("b-planned"));
    // B is now applying and must wait for A's lock; A's journal is still the only one.
    assert_eq!(sb.files("journal").len(), 1);
    std::fs::write(root.join("release"), "").unwrap();
    assert!(a.wait().unwrap().success(), "A completes");
    assert!(b.wait().unwrap().success(), "B completes after A");

    let rt = sb.open();
    assert!(sb.files("journal").is_empty());
    assert_eq!(
        json(&sb.settings())["env"]["ANTHROPIC_BASE_URL"],
        "http://127.0.0.1:9999"
    );
    let mut c = Client::new(&book(), "ide");
    assert_eq!(c.status(&rt).state, StatusState::Ladder);
    c.uninstall(&rt);
    assert_eq!(
        sb.read_settings().unwrap(),
        CLAUDE_SETTINGS,
        "one consistent history"
    );
}
