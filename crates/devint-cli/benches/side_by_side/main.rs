//! What a client sees, in separate processes: the embedded DI-API server
//! (do-nothing backend), the real `devint serve` (sandboxed HOME, Claude Code integrated),
//! and a raw Unix-socket echo server, each in its own process, measured by one blocking
//! client process in interleaved rounds. Every DI-API figure is a ratio to the echo server
//! answering the same sizes in the same round; the report gives the median over rounds and
//! the spread (min–max) of each ratio.
//!
//! ```sh
//! cargo bench -p devint-cli --bench side_by_side                 # 5 rounds, ~2 minutes
//! DEVINT_BENCH_ROUNDS=9 cargo bench -p devint-cli --bench side_by_side
//! DEVINT_BENCH_SERVERS=embedded cargo bench -p devint-cli --bench side_by_side
//! DEVINT_BENCH_QUICK=1 cargo bench -p devint-cli --bench side_by_side   # smoke run
//! DEVINT_BENCH_FIGURES=denied,status cargo bench -p devint-cli --bench side_by_side
//! DEVINT_BENCH_RUNTIME=multi_thread cargo bench -p devint-cli --bench side_by_side
//! DEVINT_BENCH_PIN=1 cargo bench -p devint-cli --bench side_by_side   # client CPU 0, servers CPU 1
//! ```
//!
//! `DEVINT_BENCH_FIGURES` keeps some figures only, by their keys (`figures::Figure::key`; an
//! unknown key is refused with the list): with many rounds, a loop of one exchange to
//! profile a server under. `DEVINT_BENCH_RUNTIME` (`current_thread`, the default, or
//! `multi_thread`) is the tokio runtime of the echo server and the embedded server alike
//! (`roles::runtime`); `devint serve` keeps its own.
//!
//! The same binary plays the servers: re-executed with `DEVINT_SIDE_BY_SIDE_ROLE` set to
//! `echo` or `embedded`. `docs/benchmarks.md` explains every figure and records results.

mod echo;
mod embedded;
mod figures;
mod measure;
mod pinning;
mod report;
mod roles;
mod sandbox;
mod wire;

use std::path::{Path, PathBuf};

fn main() {
    let arg = || PathBuf::from(std::env::args_os().nth(1).expect("a role's path argument"));
    match std::env::var(roles::ROLE_ENV).as_deref() {
        Ok("echo") => echo::run(&arg()),
        Ok("embedded") => embedded::run(&arg()),
        Ok(other) => panic!("unknown role {other:?}"),
        Err(_) => drive(),
    }
}

/// Which servers, how many rounds, how long each measurement.
pub struct Settings {
    rounds: usize,
    servers: Vec<String>,
    budget: measure::Budget,
    window: std::time::Duration,
    figures: Vec<figures::Figure>,
    /// The runtime of the echo and embedded servers (the roles read it again from the
    /// environment they inherit).
    runtime: roles::RuntimeShape,
    /// The client's and the servers' CPUs, when pinned.
    pinning: Option<pinning::Pinning>,
}

impl Settings {
    fn from_env() -> Settings {
        use std::time::Duration;
        // Read here, before any server starts, so a typo stops the bench at once.
        let runtime = roles::RuntimeShape::from_env();
        let pinning = pinning::Pinning::from_env();
        let quick = std::env::var_os("DEVINT_BENCH_QUICK").is_some_and(|v| v != "0");
        let rounds = std::env::var("DEVINT_BENCH_ROUNDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|r| *r > 0)
            .unwrap_or(if quick { 1 } else { 5 });
        let servers = env_list("DEVINT_BENCH_SERVERS")
            .unwrap_or_else(|| vec!["embedded".into(), "serve".into()]);
        let (time, window) = if quick {
            (Duration::from_millis(40), Duration::from_millis(60))
        } else {
            (Duration::from_millis(400), Duration::from_millis(600))
        };
        let figures = match env_list("DEVINT_BENCH_FIGURES") {
            Some(keys) => {
                let chosen: Vec<_> = keys.iter().map(|k| figures::Figure::from_key(k)).collect();
                assert!(!chosen.is_empty(), "DEVINT_BENCH_FIGURES names no figure");
                chosen
            }
            None => figures::FIGURES.to_vec(),
        };
        Settings {
            rounds,
            servers,
            figures,
            runtime,
            pinning,
            budget: measure::Budget {
                time,
                max_samples: 20_000,
                min_samples: if quick { 5 } else { 20 },
            },
            window,
        }
    }

    fn wants(&self, server: &str) -> bool {
        self.servers.iter().any(|s| s == server)
    }
}

/// The comma-separated, non-empty items of the environment variable `name`, if it is set.
fn env_list(name: &str) -> Option<Vec<String>> {
    let value = std::env::var(name).ok()?;
    Some(
        value
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

fn private_dir(path: &Path) {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(path)
        .unwrap_or_else(|e| panic!("create {}: {e}", path.display()));
}

fn drive() {
    let settings = Settings::from_env();
    let dir = tempfile::Builder::new()
        .prefix("dsb")
        .tempdir_in("/tmp")
        .expect("a scratch directory");
    let root = dir.path();
    std::fs::set_permissions(root, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .expect("scratch directory mode");
    let load_before = report::load_average();
    // Every server starts on the servers' CPU (and keeps it); the client moves off it after.
    if let Some(pinning) = settings.pinning {
        pinning::pin_to(pinning.servers);
    }

    let echo_socket = root.join("echo.sock");
    let echo = roles::start_role("echo", &echo_socket, echo_socket.clone());
    let mut subjects = Vec::new();
    let mut processes = Vec::new();
    if settings.wants("embedded") {
        let at = root.join("embedded");
        private_dir(&at);
        let server = roles::start_role("embedded", &at, at.join("run/devint.sock"));
        let token = read_token(&at.join("token"));
        subjects.push(figures::Subject::learn("embedded", &server.socket, &token));
        processes.push(server);
    }
    let mut serve_log = None;
    if settings.wants("serve") {
        let at = root.join("serve");
        private_dir(&at);
        let sandbox = sandbox::Sandbox::new(&at);
        let server = sandbox.serve();
        let token = read_token(&sandbox.token_file());
        subjects.push(figures::Subject::learn(
            "devint serve",
            &server.socket,
            &token,
        ));
        serve_log = Some(sandbox.log());
        processes.push(server);
    }
    assert!(
        !subjects.is_empty(),
        "DEVINT_BENCH_SERVERS names no server (embedded, serve)"
    );

    if let Some(pinning) = settings.pinning {
        pinning::pin_to(pinning.client);
    }

    // One discarded pass warms every process (allocators, caches, the kernel's socket
    // buffers) before the rounds that count.
    let warm = Settings {
        rounds: 1,
        budget: measure::Budget {
            time: settings.budget.time / 4,
            ..settings.budget
        },
        window: settings.window / 4,
        servers: Vec::new(),
        figures: settings.figures.clone(),
        runtime: settings.runtime,
        pinning: settings.pinning,
    };
    figures::run_rounds(&subjects, &echo.socket, &warm);
    let results = figures::run_rounds(&subjects, &echo.socket, &settings);
    report::print(&subjects, &results, &settings, load_before);
    if let Some(log) = serve_log {
        let size = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
        println!("devint serve wrote {size} bytes of log during the run");
    }
    drop(processes);
    drop(echo);
}

fn read_token(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read the token {}: {e}", path.display()))
        .trim()
        .to_owned()
}
