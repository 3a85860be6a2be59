//! Commands across an upgrade, a SIGHUP and `devint restart`: `devint status` run back to
//! back while the runtime hands its socket over to its next executable, every outcome
//! counted (the target is zero failures, whatever the machine's load: no assertion here is
//! about time). The binary is replaced the ways docs/service.md names (`mv` of a staged
//! copy, `install`), and the client is the binary at the runtime's own path, as on a
//! machine with one `devint` installed. And the other side: a runtime that is genuinely
//! another build, or whose executable another file replaced, is still refused (exit 10).

mod cli_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cli_support::{replace_executable, write_script, Sandbox, DEVINT};

/// What the re-executed runtime prints once it serves on the socket it was handed.
const HANDED_OVER: &str = "socket handed over by the previous executable";

/// Calls before the binary is replaced, and after the new one serves.
const CALLS_BEFORE: usize = 100;
const CALLS_AFTER: usize = 100;

/// `devint status` run back to back, every outcome counted.
#[derive(Default)]
struct Calls {
    done: AtomicUsize,
    failures: Mutex<Vec<String>>,
    stop: AtomicBool,
}

impl Calls {
    /// Run `exe status` with the sandbox's environment until told to stop.
    fn run(&self, s: &Sandbox, exe: &Path) {
        while !self.stop.load(Ordering::SeqCst) {
            let out = assert_cmd::Command::from_std(s.std_command(exe))
                .arg("status")
                .timeout(Duration::from_secs(60))
                .output()
                .expect("run devint status");
            if !out.status.success() {
                self.failures.lock().unwrap().push(format!(
                    "exit {:?}: {}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            self.done.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn done(&self) -> usize {
        self.done.load(Ordering::SeqCst)
    }

    /// Wait until `n` calls have ended (a deadline, not a timing).
    fn wait_for(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(120);
        while self.done() < n {
            assert!(
                Instant::now() < deadline,
                "only {} of {n} calls ended",
                self.done()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Every call ended with exit 0.
    fn assert_none_failed(&self, what: &str) {
        let failures = self.failures.lock().unwrap();
        assert!(
            failures.is_empty(),
            "{} of {} `devint status` calls failed across {what}:\n{}",
            failures.len(),
            self.done(),
            failures.join("\n")
        );
    }
}

/// Stops the call loops when the test body ends, also when it panics (else the scope
/// would wait for them forever).
struct StopOnDrop<'a>(&'a Calls);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::SeqCst);
    }
}

/// Run `body` while `loops` threads call `exe status` back to back; returns the counts.
fn with_calls(s: &Sandbox, exe: &Path, loops: usize, body: impl FnOnce(&Calls)) -> Arc<Calls> {
    let calls = Arc::new(Calls::default());
    std::thread::scope(|scope| {
        for _ in 0..loops {
            scope.spawn(|| calls.run(s, exe));
        }
        let _stop = StopOnDrop(&calls);
        body(&calls);
    });
    calls
}

/// The built binary at `b/devint` in the sandbox, as a package manager installs it: the
/// runtime and the commands run from there. A hard link where the file system allows (the
/// binary is large, and an upgrade replaces the path, never the file), else a copy.
fn installed(s: &Sandbox) -> PathBuf {
    let dir = s.root().join("b");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("devint");
    if std::fs::hard_link(DEVINT, &exe).is_err() {
        replace_executable(&exe, Path::new(DEVINT), 0o755);
    }
    exe
}

/// Run `program ARGS` (a system tool) and require success.
fn system(program: &str, args: &[&Path]) {
    let status = Command::new(program).args(args).status().unwrap();
    assert!(status.success(), "{program} {args:?} failed");
}

/// The runtime on `exe` serves the new binary, verified, as the same process.
fn assert_serving_verified(s: &Sandbox, exe: &Path, n: usize) {
    let out = assert_cmd::Command::from_std(s.std_command(exe))
        .args(["--output", "json", "version"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["runtime"]["standing"], "verified", "{doc}");
    assert_eq!(
        doc["runtime"]["provenance"]["pid"],
        s.server_pid(n),
        "{doc}"
    );
}

/// Replace the runtime's binary with `put_new_binary` while `devint status` runs back to
/// back from `client` (`None`: the runtime's own path); no call may fail.
fn upgrade_while_calling(client: Option<&Path>, put_new_binary: impl FnOnce(&Path)) {
    let mut s = Sandbox::new();
    let exe = installed(&s);
    let (socket, state) = (s.socket(), s.state());
    let n = s.serve_program(&exe, &socket, &state, &[]);
    s.enrol("read-only");
    let calls = with_calls(&s, client.unwrap_or(&exe), 1, |calls| {
        calls.wait_for(CALLS_BEFORE);
        put_new_binary(&exe);
        s.wait_for_output(n, HANDED_OVER, 1);
        calls.wait_for(calls.done() + CALLS_AFTER);
    });
    calls.assert_none_failed("an upgrade");
    assert_serving_verified(&s, &exe, n);
}

#[test]
fn status_calls_across_an_mv_of_a_new_binary_over_the_running_one_all_succeed() {
    // The commands run from the path being upgraded: `mv` swaps the file in one step, so
    // each starts either the old binary or the new one.
    upgrade_while_calling(None, |exe| {
        // Staged beside the target (same file system), then renamed over it.
        let staged = exe.with_extension("new");
        system("cp", &[Path::new(DEVINT), &staged]);
        system("mv", &[&staged, exe]);
    });
}

#[test]
fn status_calls_across_an_install_of_a_new_binary_over_the_running_one_all_succeed() {
    // `install` writes the new file in place (remove, write, then chmod): a command
    // started from that very path in those milliseconds is refused by the system before
    // devint runs, so the commands here run from an identical copy elsewhere.
    upgrade_while_calling(Some(Path::new(DEVINT)), |exe| {
        let status = Command::new("install")
            .args(["-m", "0755"])
            .arg(DEVINT)
            .arg(exe)
            .status()
            .unwrap();
        assert!(status.success(), "install failed");
    });
}

/// How many hand-overs the SIGHUP and restart tests make while the calls run.
const HAND_OVERS: usize = 8;

#[test]
fn status_calls_across_sighups_all_succeed() {
    let mut s = Sandbox::new();
    let n = s.serve();
    s.enrol("read-only");
    let pid = rustix::process::Pid::from_raw(s.server_pid(n) as i32).unwrap();
    let calls = with_calls(&s, Path::new(DEVINT), 2, |calls| {
        calls.wait_for(CALLS_BEFORE / 2);
        for k in 1..=HAND_OVERS {
            rustix::process::kill_process(pid, rustix::process::Signal::HUP).unwrap();
            s.wait_for_output(n, HANDED_OVER, k);
            calls.wait_for(calls.done() + 5);
        }
        calls.wait_for(calls.done() + CALLS_AFTER / 2);
    });
    calls.assert_none_failed("SIGHUPs");
    assert_serving_verified(&s, Path::new(DEVINT), n);
}

#[test]
fn status_calls_across_devint_restart_all_succeed() {
    let mut s = Sandbox::new();
    let n = s.serve();
    s.enrol("read-only");
    let calls = with_calls(&s, Path::new(DEVINT), 2, |calls| {
        calls.wait_for(CALLS_BEFORE / 2);
        for k in 1..=HAND_OVERS {
            let (code, out, err) = s.run(&["restart"]);
            assert_eq!(code, 0, "restart {k}: {out}{err}");
            calls.wait_for(calls.done() + 5);
        }
        calls.wait_for(calls.done() + CALLS_AFTER / 2);
    });
    calls.assert_none_failed("`devint restart`");
    s.wait_for_output(n, HANDED_OVER, HAND_OVERS);
    assert_serving_verified(&s, Path::new(DEVINT), n);
}

/// A runtime in this test process that answers every `Hello` with `provenance`.
struct FakeRuntime {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeRuntime {
    fn start(s: &Sandbox, provenance: devint::wire::pb::RuntimeProvenance) -> FakeRuntime {
        use devint_net::book::{BookFile, SharedBook};
        use devint_net::server::Server;
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(s.run_dir()).unwrap();
        std::fs::set_permissions(s.run_dir(), std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::create_dir_all(s.state()).unwrap();
        std::fs::set_permissions(s.state(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let socket = devint_net::transport::bind_secure(&s.socket()).unwrap();
        let book = SharedBook::open(BookFile::new(s.state().join("book.json"))).unwrap();
        let server = Server::builder(
            Arc::new(book),
            Arc::new(devint::testing::CountingBackend::default()),
            Arc::new(devint::audit::MemoryAuditSink::new()),
        )
        .provenance(Arc::new(move || provenance.clone()))
        .build();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(server.serve(socket, async {
                let _ = stopped.await;
            }))
            .unwrap();
        });
        FakeRuntime {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for FakeRuntime {
    fn drop(&mut self) {
        let _ = self.stop.take().map(|s| s.send(()));
        let _ = self.thread.take().map(|t| t.join());
    }
}

/// Our own build's provenance, as a runtime of this very build would report it.
fn our_provenance(executable: &Path) -> devint::wire::pb::RuntimeProvenance {
    let ours = devint::provenance::BuildIdentity::compiled();
    devint::wire::pb::RuntimeProvenance {
        core_version: ours.core_version,
        build_sha: ours.sha,
        pid: std::process::id(),
        executable_path: executable.display().to_string(),
        executable_present: true,
        source_path: String::new(),
        started_at_unix_secs: 1,
        build_id_source: ours.source.token().to_owned(),
    }
}

/// Every command is refused with exit 10 ("refuted"), read-only and privileged, with or
/// without the override.
fn assert_refused(s: &Sandbox, exe: &Path, why: &str) {
    for args in [
        &["status"][..],
        &["tools"],
        &["verify", "claude-code"],
        &[
            "--allow-unverified-runtime",
            "repair",
            "claude-code",
            "--yes",
        ],
    ] {
        let out = assert_cmd::Command::from_std(s.std_command(exe))
            .args(args)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(10), "{args:?}: {err}");
        assert!(err.contains("the runtime is refuted"), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
    }
}

#[test]
fn a_runtime_of_another_build_is_still_refused() {
    let s = Sandbox::new();
    let exe = installed(&s);
    let mut provenance = our_provenance(&exe);
    provenance.core_version = "9.9.9".into();
    provenance.build_sha = "0123456789abcdef0123456789abcdef01234567".into();
    provenance.build_id_source = "injected".into();
    let _runtime = FakeRuntime::start(&s, provenance);
    assert_refused(&s, &exe, "a different build");
}

#[test]
fn a_runtime_whose_executable_another_program_replaced_is_still_refused() {
    // The runtime says the file at its path is no longer its binary, and what is there now
    // is another program, not this client's binary: no upgrade to this build is under way.
    // The build matches ours, so the replacement is the only evidence, and it refutes, at
    // once.
    let s = Sandbox::new();
    let exe = installed(&s);
    let elsewhere = s.root().join("elsewhere").join("devint");
    std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    write_script(&elsewhere, "#!/bin/sh\nexit 0\n");
    let mut provenance = our_provenance(&elsewhere);
    provenance.executable_present = false;
    let _runtime = FakeRuntime::start(&s, provenance);
    assert_refused(&s, &exe, "deleted or replaced");
}
