//! `devint sidecar` driven by real non-Rust hosts against a real runtime: the Python host
//! (`examples/sidecar_host.py`, standard library only) and the Node.js host
//! (`examples/sidecar_host.mjs`, no dependencies) each build a sandbox like `devint demo`,
//! start `devint serve`, enrol, and walk discover → open → tools/list → plan → apply →
//! status → remove through the sidecar, checking the Claude Code settings file is
//! byte-identical at the end. Every protocol line they exchanged is then validated against
//! the JSON Schema `devint sidecar --schema` prints. A host whose interpreter is not
//! installed is skipped with a plain message (run with `--nocapture` to see it); `.ci/run`
//! says which ran.

#[path = "../../devint-sidecar/tests/support/schema.rs"]
mod sidecar_schema;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use sidecar_schema::SchemaCheck;

/// The `devint` binary cargo built for these tests (a compile-time path, as
/// `cli_support::DEVINT`).
const DEVINT: &str = env!("CARGO_BIN_EXE_devint");

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `name` on PATH, as a shell would find it.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

fn run_host(interpreter: &str, script: &str) {
    let Some(interpreter_path) = on_path(interpreter) else {
        eprintln!("SKIPPED: {interpreter} is not installed, so {script} did not run");
        return;
    };
    let scratch = tempfile::Builder::new()
        .prefix("dvh")
        .tempdir_in("/tmp")
        .expect("temp dir");
    let trace = scratch.path().join("trace.jsonl");
    let devint = PathBuf::from(DEVINT);
    let mut child = Command::new(&interpreter_path)
        .arg(repository().join(script))
        .arg("--devint")
        .arg(&devint)
        .arg("--trace")
        .arg(&trace)
        .env_clear()
        // The host gives every devint process its own sandbox environment; its own HOME is
        // a scratch directory, never the real one.
        .env("HOME", scratch.path())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {interpreter}: {e}"));
    let deadline = std::time::Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{script} did not finish in 180 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        status.success(),
        "{script} failed ({status}); its output is above"
    );

    let text = std::fs::read_to_string(&trace).expect("the host wrote its trace");
    let lines: Vec<(bool, String)> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a trace line");
            (
                v["dir"] == "in",
                v["line"].as_str().expect("a line").to_owned(),
            )
        })
        .collect();
    let checked = SchemaCheck::new()
        .check_transcript(lines.iter().map(|(d, l)| (*d, l.as_str())))
        .unwrap_or_else(|e| panic!("{script}: traffic does not match the schema: {e}"));
    assert!(
        checked >= 20,
        "{script}: only {checked} lines were exchanged"
    );
    eprintln!("{script}: ran with {interpreter}; {checked} protocol lines match the schema");
}

#[test]
fn the_python_host_drives_the_journey_through_the_sidecar_against_a_real_runtime() {
    run_host("python3", "examples/sidecar_host.py");
}

#[test]
fn the_node_host_drives_the_journey_through_the_sidecar_against_a_real_runtime() {
    run_host("node", "examples/sidecar_host.mjs");
}

#[test]
fn sidecar_schema_prints_the_schema_the_tests_check_against() {
    let out = assert_cmd::Command::new(DEVINT)
        .args(["sidecar", "--schema"])
        .env_clear()
        .timeout(Duration::from_secs(30))
        .output()
        .expect("runs");
    assert!(out.status.success());
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(&printed, SchemaCheck::new().document());
}

#[test]
fn the_sidecar_exits_0_at_the_end_of_its_input_and_answers_what_it_read() {
    let out = assert_cmd::Command::new(DEVINT)
        .arg("sidecar")
        .env_clear()
        .env("HOME", "/nonexistent-home-for-the-sidecar-test")
        .write_stdin("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\nnot json\n")
        .timeout(Duration::from_secs(30))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON"))
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0]["result"]["protocol"], "devint.sidecar.v1");
    assert_eq!(lines[1]["error"]["code"], -32700);
}
