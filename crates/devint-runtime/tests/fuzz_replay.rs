//! Replays the committed corpora (`fuzz/corpus/<target>/` at the repository root) of the
//! reference runtime's fuzz targets through their harnesses on stable Rust. The core's
//! targets are replayed by the root crate's `tests/fuzz_replay.rs`. Needs the `fuzzing`
//! feature (`cargo test --workspace --all-features`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// A fuzz harness: panics when an invariant breaks.
type Harness = fn(&[u8]);

/// The runtime's fuzz targets and the harness each runs.
const TARGETS: &[(&str, Harness)] = &[
    (
        "settings_edit",
        devint_runtime::edit::fuzz_harness::edit_roundtrip,
    ),
    ("receipt", devint_runtime::reference::fuzz_harness::receipt),
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

#[test]
fn the_runtime_corpora_replay_through_their_harnesses() {
    let mut failures = Vec::new();
    for (target, harness) in TARGETS {
        assert!(
            fuzz_dir()
                .join("fuzz_targets")
                .join(format!("{target}.rs"))
                .is_file(),
            "fuzz target {target} is missing from fuzz/fuzz_targets"
        );
        let dir = fuzz_dir().join("corpus").join(target);
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|entry| entry.expect("readable directory entry").path())
            .filter(|p| p.is_file())
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "fuzz/corpus/{target} is empty");
        for input in inputs {
            let bytes = std::fs::read(&input).expect("readable corpus file");
            if catch_unwind(AssertUnwindSafe(|| harness(&bytes))).is_err() {
                failures.push(input.display().to_string());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "harness invariant violated by: {failures:?}"
    );
}
