//! Replays every committed fuzz corpus (`fuzz/corpus/<target>/`) of the core's targets
//! through its harness on stable Rust, so seeds and crash reproducers are regression tests
//! without cargo-fuzz or nightly. The reference runtime's targets are replayed by
//! `crates/devint-runtime/tests/fuzz_replay.rs`, the sidecar's by
//! `crates/devint-sidecar/tests/fuzz_replay.rs`; every target is claimed by one of them.
//! Needs the `fuzzing` feature (`cargo test --workspace --all-features`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// The harness each core fuzz target runs. Adding a target is one line here (or in the
/// runtime's replay, for a target of the runtime).
fn harness_for(target: &str) -> Option<fn(&[u8])> {
    match target {
        "frame_decoders" => Some(devint::wire::fuzz_harness::decode_both),
        "session_server" => Some(devint::session::fuzz_harness::server_sequence),
        "session_client" => Some(devint::session::fuzz_harness::client_frames),
        "enrolment_book" => Some(devint::auth::fuzz_harness::load_book),
        _ => None,
    }
}

/// Targets of the reference runtime, replayed by `crates/devint-runtime/tests/fuzz_replay.rs`.
const RUNTIME_TARGETS: &[&str] = &["settings_edit", "receipt"];

/// Targets of the sidecar, replayed by `crates/devint-sidecar/tests/fuzz_replay.rs`.
const SIDECAR_TARGETS: &[&str] = &["sidecar_lines"];

/// The replay file that claims a target replayed elsewhere.
fn replayed_elsewhere(target: &str) -> Option<&'static str> {
    if RUNTIME_TARGETS.contains(&target) {
        Some("crates/devint-runtime/tests/fuzz_replay.rs")
    } else if SIDECAR_TARGETS.contains(&target) {
        Some("crates/devint-sidecar/tests/fuzz_replay.rs")
    } else {
        None
    }
}

fn skipped(target: &str) -> bool {
    replayed_elsewhere(target).is_some()
}

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

fn names_in(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|p| keep(p))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_committed_corpus_replays_through_its_harness() {
    let corpus_root = fuzz_dir().join("corpus");
    let targets = names_in(&corpus_root, |p| p.is_dir());
    assert!(
        !targets.is_empty(),
        "no corpus under {}",
        corpus_root.display()
    );
    let mut failures = Vec::new();
    for target in targets.iter().filter(|t| !skipped(t)) {
        let harness = harness_for(target).unwrap_or_else(|| {
            panic!("fuzz/corpus/{target} has no harness: add it to harness_for in this file")
        });
        let dir = corpus_root.join(target);
        let inputs = names_in(&dir, |p| p.is_file());
        assert!(!inputs.is_empty(), "fuzz/corpus/{target} is empty");
        for input in inputs {
            let bytes = std::fs::read(dir.join(&input)).expect("readable corpus file");
            if catch_unwind(AssertUnwindSafe(|| harness(&bytes))).is_err() {
                failures.push(format!("fuzz/corpus/{target}/{input}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "harness invariant violated by: {failures:?}"
    );
}

#[test]
fn every_fuzz_target_has_a_harness_and_a_seed_corpus() {
    let targets = names_in(&fuzz_dir().join("fuzz_targets"), |p| {
        p.extension().is_some_and(|e| e == "rs")
    });
    assert!(!targets.is_empty());
    for file in targets {
        let target = file.trim_end_matches(".rs");
        if let Some(replay) = replayed_elsewhere(target) {
            assert!(
                Path::new(env!("CARGO_MANIFEST_DIR")).join(replay).is_file(),
                "fuzz target {target} is left to {replay}, which is missing"
            );
            continue;
        }
        assert!(
            harness_for(target).is_some(),
            "fuzz target {target} has no harness here"
        );
        assert!(
            fuzz_dir().join("corpus").join(target).is_dir(),
            "fuzz target {target} has no committed seed corpus"
        );
    }
}

#[test]
fn an_unknown_target_has_no_harness() {
    assert!(harness_for("no_such_target").is_none());
}
