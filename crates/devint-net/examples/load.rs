//! Load and soak: 1,000 idle negotiated connections plus 32 busy ones issuing authorised
//! `status` requests against an in-process server on a real Unix socket, for
//! `DEVINT_LOAD_SECONDS` seconds (default 60).
//!
//! Reports requests served, errors, p50/p99 latency and the resident set size (from
//! `/proc/self/statm`, 4 KiB pages) once every connection is up and warmed (200 requests
//! on each busy one) and again at the end, against the
//! targets of `docs/assurance.md`: 0 errors, RSS growth under 5 %, p99 ≤ 2 × p50. Exits
//! non-zero if any request failed or any idle connection was lost; a missed RSS or latency
//! target is reported, not fatal (the machine's noise decides those on a shared CI box).
//!
//! ```sh
//! cargo run --example load --features test-support             # 60 s
//! DEVINT_LOAD_SECONDS=10 cargo run --example load --features test-support
//! ```

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use devint::audit::TracingAuditSink;
use devint::auth::{ClientName, EnrolmentBook, Scope, TokenSecret, ToolScope};
use devint::testing::CountingBackend;
use devint::verbs::ToolId;
use devint_net::book::{BookFile, SharedBook};
use devint_net::client::{DevIntClient, NegotiatedClient};
use devint_net::server::{Limits, Server};
use devint_net::transport::bind_secure;

const IDLE: usize = 1_000;
const BUSY: usize = 32;
const PAGE_SIZE: u64 = 4096;
const WARM_UP_REQUESTS: usize = 200;

/// A log-linear latency histogram in microseconds: 16 sub-buckets per power of two, so a
/// reported percentile is within about 6 % of the true one, in a fixed 8 KiB that does not
/// grow with the number of samples (an ever-growing sample list would pollute the RSS
/// figure this example reports).
struct Histogram {
    counts: Vec<u64>,
}

impl Histogram {
    const SUB_BITS: u32 = 4;

    fn new() -> Histogram {
        Histogram {
            counts: vec![0; 64 << Self::SUB_BITS],
        }
    }

    fn index(micros: u64) -> usize {
        let v = micros.max(1);
        let msb = 63 - v.leading_zeros();
        if msb < Self::SUB_BITS {
            return v as usize;
        }
        let sub = (v >> (msb - Self::SUB_BITS)) & ((1 << Self::SUB_BITS) - 1);
        (((msb - Self::SUB_BITS + 1) << Self::SUB_BITS) as u64 + sub) as usize
    }

    /// The smallest value that lands in bucket `i` (the bucket's lower bound).
    fn lower_bound(i: usize) -> u64 {
        let i = i as u64;
        let sub_count = 1u64 << Self::SUB_BITS;
        if i < sub_count {
            return i;
        }
        let msb = i / sub_count + u64::from(Self::SUB_BITS) - 1;
        let sub = i % sub_count;
        (1 << msb) | (sub << (msb - u64::from(Self::SUB_BITS)))
    }

    fn record(&mut self, latency: Duration) {
        let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.counts[Self::index(micros)] += 1;
    }

    fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
    }

    fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The lower bound of the bucket holding the `q`-quantile, in microseconds.
    fn quantile(&self, q: f64) -> u64 {
        let total = self.total();
        if total == 0 {
            return 0;
        }
        let rank = ((total as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::lower_bound(i);
            }
        }
        u64::MAX
    }
}

/// Resident set size in bytes, from the second field of `/proc/self/statm` (pages).
fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|f| f.parse().ok())
        .unwrap_or(0);
    pages * PAGE_SIZE
}

/// Each connection costs two descriptors here (client and server end).
fn raise_fd_limit(needed: u64) -> Result<(), String> {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current.is_none_or(|c| c >= needed) {
        return Ok(());
    }
    let target = limit.maximum.map_or(needed, |max| needed.min(max));
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: Some(target),
            maximum: limit.maximum,
        },
    )
    .map_err(|e| format!("could not raise RLIMIT_NOFILE to {target}: {e}"))?;
    if target < needed {
        return Err(format!(
            "RLIMIT_NOFILE hard limit {target} is below the {needed} descriptors this run needs"
        ));
    }
    Ok(())
}

fn seconds_from_env() -> u64 {
    std::env::var("DEVINT_LOAD_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|s| *s > 0)
        .unwrap_or(60)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

async fn connect(path: &Path, name: &str) -> Result<NegotiatedClient, String> {
    DevIntClient::connect(path, name, "1.0.0")
        .await
        .map_err(|e| format!("connect {name}: {e}"))
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("load: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<bool, String> {
    let seconds = seconds_from_env();
    raise_fd_limit(2 * (IDLE + BUSY) as u64 + 256)?;

    let scratch = tempfile::Builder::new()
        .prefix("dl")
        .tempdir_in("/tmp")
        .map_err(|e| format!("scratch directory: {e}"))?;
    let socket_path = scratch.path().join("run").join("s");
    let book_file = BookFile::new(scratch.path().join("state").join("book.json"));

    let secret = TokenSecret::generate().map_err(|e| e.to_string())?;
    let secret_hex = secret.expose_secret_hex();
    let mut book = EnrolmentBook::new();
    book.issue_with_secret(
        ClientName::parse("load").map_err(|e| e.to_string())?,
        Scope::read_only(ToolScope::All),
        Duration::from_secs(seconds + 3600),
        devint::time::UnixSecs::from_system_time(std::time::SystemTime::now()),
        &secret,
    )
    .map_err(|e| e.to_string())?;
    book_file.save(&book).map_err(|e| e.to_string())?;
    let shared_book = SharedBook::open(book_file).map_err(|e| e.to_string())?;
    let token = || TokenSecret::parse(&secret_hex).expect("our own token parses");

    let backend = Arc::new(CountingBackend::default());
    let server = Arc::new(
        Server::builder(
            Arc::new(shared_book),
            backend.clone(),
            Arc::new(TracingAuditSink),
        )
        .limits(Limits {
            max_connections: 2 * (IDLE + BUSY),
            max_connections_per_uid: 2 * (IDLE + BUSY),
            idle_timeout: Duration::from_secs(seconds + 600),
            ..Limits::default()
        })
        .build(),
    );
    let socket = bind_secure(&socket_path).map_err(|e| format!("bind: {e}"))?;
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let serving = {
        let server = server.clone();
        tokio::spawn(async move {
            server
                .serve(socket, async {
                    let _ = stop_rx.await;
                })
                .await
        })
    };

    let mut idle = Vec::with_capacity(IDLE);
    for i in 0..IDLE {
        idle.push(connect(&socket_path, &format!("idle-{i}")).await?);
    }
    let mut busy = Vec::with_capacity(BUSY);
    for i in 0..BUSY {
        busy.push(
            connect(&socket_path, &format!("busy-{i}"))
                .await?
                .authorize(token()),
        );
    }
    let histograms: Vec<Histogram> = (0..BUSY).map(|_| Histogram::new()).collect();
    let open_at_start = server.open_connections();
    let rss_connected = rss_bytes();
    let tool = ToolId::parse("claude-code").map_err(|e| e.to_string())?;

    // Warm-up: every busy connection serves a few requests first, so the start figure
    // includes each worker thread's allocator arena and each connection's buffers at their
    // working size; growth after that is what a soak is about (leaks, unbounded queues).
    for client in &mut busy {
        for _ in 0..WARM_UP_REQUESTS {
            client
                .status(tool.clone())
                .await
                .map_err(|e| format!("warm-up request: {e}"))?;
        }
    }
    let rss_start = rss_bytes();
    println!(
        "load: {IDLE} idle + {BUSY} busy connections up ({open_at_start} open on the server); \
         RSS {:.2} MiB connected, {:.2} MiB after warm-up; running {seconds} s",
        mib(rss_connected),
        mib(rss_start)
    );

    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut workers = Vec::with_capacity(BUSY);
    for (mut client, mut histogram) in busy.into_iter().zip(histograms) {
        let tool = tool.clone();
        workers.push(tokio::spawn(async move {
            let mut errors = 0u64;
            let mut first_error = None;
            while Instant::now() < deadline {
                let started = Instant::now();
                match client.status(tool.clone()).await {
                    Ok(_) => histogram.record(started.elapsed()),
                    Err(e) => {
                        errors += 1;
                        first_error.get_or_insert_with(|| e.to_string());
                    }
                }
            }
            (client, histogram, errors, first_error)
        }));
    }
    let began = Instant::now();
    let mut all = Histogram::new();
    let mut errors = 0u64;
    let mut busy = Vec::with_capacity(BUSY);
    for worker in workers {
        let (client, histogram, e, first) = worker.await.map_err(|e| format!("worker: {e}"))?;
        busy.push(client);
        all.merge(&histogram);
        errors += e;
        if let Some(first) = first {
            eprintln!("load: first error on a busy connection: {first}");
        }
    }
    let elapsed = began.elapsed();
    let rss_end = rss_bytes();
    let open_at_end = server.open_connections();
    drop(busy);

    // Every idle connection must still be alive and usable after the soak.
    let mut idle_lost = 0u64;
    for client in idle {
        if client
            .authorize(token())
            .status(tool.clone())
            .await
            .is_err()
        {
            idle_lost += 1;
        }
    }

    let _ = stop_tx.send(());
    serving
        .await
        .map_err(|e| format!("server task: {e}"))?
        .map_err(|e| format!("serve: {e}"))?;

    let served = all.total();
    let p50 = all.quantile(0.50);
    let p99 = all.quantile(0.99);
    let growth = (rss_end as f64 - rss_start as f64) / rss_start.max(1) as f64 * 100.0;
    println!(
        "load: {served} requests served in {:.1} s ({:.0}/s), {errors} errors, backend saw {} status calls",
        elapsed.as_secs_f64(),
        served as f64 / elapsed.as_secs_f64(),
        backend.calls(devint::verbs::Verb::Status),
    );
    println!("load: latency p50 {p50} µs, p99 {p99} µs (bucket lower bounds, ±6 %)");
    println!(
        "load: RSS connected {:.2} MiB, start (warmed) {:.2} MiB, end {:.2} MiB, growth from start {growth:+.2} %",
        mib(rss_connected),
        mib(rss_start),
        mib(rss_end)
    );
    println!(
        "load: open connections start {open_at_start}, end {open_at_end}; idle connections lost {idle_lost}"
    );
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!(
        "load: target 0 errors: {}",
        verdict(errors == 0 && idle_lost == 0)
    );
    println!("load: target RSS growth < 5 %: {}", verdict(growth < 5.0));
    println!("load: target p99 <= 2 x p50: {}", verdict(p99 <= 2 * p50));
    Ok(errors == 0 && idle_lost == 0 && served > 0)
}
