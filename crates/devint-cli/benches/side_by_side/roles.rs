//! The servers' processes: this bench binary re-executed in a role (`echo`, `embedded`),
//! or the real `devint serve`, each stopped when its [`Server`] is dropped.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The environment variable naming the role this binary plays.
pub const ROLE_ENV: &str = "DEVINT_SIDE_BY_SIDE_ROLE";

/// The environment variable choosing the tokio runtime of the echo server and the
/// embedded server alike (the roles inherit it): `current_thread` (the default) or
/// `multi_thread` (one worker per core). `devint serve` keeps its own runtime.
pub const RUNTIME_ENV: &str = "DEVINT_BENCH_RUNTIME";

/// The tokio runtime of the echo server and the embedded server.
///
/// The default is the shape in which the raw echo server, the baseline, keeps its own tail
/// on a small machine: on the 2-core bench machine its p99/p50 at 16 connections is 1.7–2.0
/// on a current-thread runtime and 2.8–5.5 on a multi-thread one, at the same throughput
/// (`docs/benchmarks.md`, "the bench's default runtime"). The ratios
/// compare the servers on the same shape either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimeShape {
    /// Everything on the thread that serves (the default).
    CurrentThread,
    /// One worker per core.
    MultiThread,
}

impl RuntimeShape {
    /// Every shape, the default first.
    const ALL: [RuntimeShape; 2] = [RuntimeShape::CurrentThread, RuntimeShape::MultiThread];

    /// Its name in [`RUNTIME_ENV`] and in the report.
    pub fn name(self) -> &'static str {
        match self {
            RuntimeShape::CurrentThread => "current_thread",
            RuntimeShape::MultiThread => "multi_thread",
        }
    }

    /// The shape [`RUNTIME_ENV`] names; an unknown name stops the bench, naming the known
    /// ones.
    pub fn from_env() -> RuntimeShape {
        let Ok(name) = std::env::var(RUNTIME_ENV) else {
            return RuntimeShape::ALL[0];
        };
        RuntimeShape::ALL
            .into_iter()
            .find(|shape| shape.name() == name)
            .unwrap_or_else(|| {
                let known: Vec<&str> = RuntimeShape::ALL.iter().map(|s| s.name()).collect();
                panic!(
                    "{RUNTIME_ENV}: unknown runtime {name:?} (known: {})",
                    known.join(", ")
                )
            })
    }
}

/// The tokio runtime a role serves on: the same shape for the echo server and the embedded
/// server, so their figures differ only by the protocol's work.
pub fn runtime() -> tokio::runtime::Runtime {
    let mut builder = match RuntimeShape::from_env() {
        RuntimeShape::CurrentThread => tokio::runtime::Builder::new_current_thread(),
        RuntimeShape::MultiThread => tokio::runtime::Builder::new_multi_thread(),
    };
    builder.enable_all().build().expect("a tokio runtime")
}

/// A server process of ours, killed and reaped when dropped.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub socket: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        // Only the child this bench started, by its handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Tell the parent the socket is bound.
pub fn say_ready() {
    let mut out = std::io::stdout();
    let _ = writeln!(out, "ready");
    let _ = out.flush();
}

/// Write `bytes` to a new `0600` file.
pub fn write_private(path: &Path, bytes: &[u8]) {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Start this binary in `role` with `arg`, and wait until it says it is ready.
pub fn start_role(role: &str, arg: &Path, socket: PathBuf) -> Server {
    let exe = std::env::current_exe().expect("this bench's own path");
    let mut child = Command::new(exe)
        .env(ROLE_ENV, role)
        .arg(arg)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start the {role} server: {e}"));
    let stdout = child.stdout.take().expect("piped stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .unwrap_or_else(|e| panic!("the {role} server's first line: {e}"));
    assert_eq!(line.trim(), "ready", "the {role} server did not start");
    Server { child, socket }
}

/// Adopt a started child that listens at `socket`, once a connection succeeds (10 s at
/// most).
pub fn adopt_when_listening(mut child: Child, socket: PathBuf) -> Server {
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the server exited before listening: {status}");
        }
        assert!(Instant::now() < deadline, "the server never listened");
        std::thread::sleep(Duration::from_millis(10));
    }
    Server { child, socket }
}
