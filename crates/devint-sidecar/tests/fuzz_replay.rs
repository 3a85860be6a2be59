//! Replays the committed corpus of the sidecar's fuzz target (`fuzz/corpus/sidecar_lines/`
//! at the repository root) through its harness on stable Rust, so seeds and crash
//! reproducers are regression tests without cargo-fuzz or nightly. The root crate's
//! `tests/fuzz_replay.rs` leaves this target to this file. Needs the `fuzzing` feature
//! (`cargo test --workspace --all-features`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// A fuzz harness: panics when an invariant breaks.
type Harness = fn(&[u8]);

/// The sidecar's fuzz targets and the harness each runs.
const TARGETS: &[(&str, Harness)] = &[("sidecar_lines", devint_sidecar::fuzz_harness::lines)];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

#[test]
fn the_sidecar_corpora_replay_through_their_harnesses() {
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

#[test]
fn an_oversize_line_never_swallows_the_next_one() {
    // The harness compares against the naive split; a frame list that differs must panic.
    // Two lines, the first over a 2-byte cap: the second must still be read on its own (the
    // framer's own frames for this case are pinned by its unit tests).
    devint_sidecar::fuzz_harness::lines(b"\x01\x01abc\nok\n");
}

proptest::proptest! {
    /// A stable stand-in for the fuzzer: random lines from an alphabet rich in framing and
    /// JSON bytes (and hex, so token runs occur) through the same harness.
    #[test]
    fn the_harness_holds_for_random_input(
        head in proptest::collection::vec(proptest::prelude::any::<u8>(), 2),
        body in proptest::collection::vec(
            proptest::sample::select(b"\n\r{}[]\":,0123456789abcdef \x00\xffjsonrpcidmethod".to_vec()),
            0..2048,
        ),
    ) {
        let mut data = head;
        data.extend(body);
        devint_sidecar::fuzz_harness::lines(&data);
    }
}
