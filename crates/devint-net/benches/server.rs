//! The tokio server against a raw Unix-socket echo server, in the same run, so the
//! figure is the cost of the protocol over the socket's own.
//!
//! The baseline is a tokio task that, per connection, reads `[u32 request_len][u32
//! reply_len][request bytes]` and writes `reply_len` bytes: a round trip of exactly the
//! sizes the DI-API exchange uses, with no protocol work. Every DI-API figure is printed
//! as a ratio to it. The DI-API side is driven with pre-encoded frames and `read_exact` of
//! the known answer size, so the ratio measures the server, not client-side decoding.
//!
//! Criterion measures: connect + `Hello` → `HelloAck`; a denied request round trip; an
//! authorised `status` round trip on `CountingBackend`. Printed after them: throughput
//! with 32 connections, memory per idle negotiated connection at 1,000 connections (RSS
//! from `/proc/self/statm`, clients in this process too), and p99/p50 at 1, 16 and 256
//! connections. Short settings: `cargo bench --bench server --features test-support`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use devint::audit::MemoryAuditSink;
use devint::auth::{ClientName, Scope, ToolScope};
use devint::testing::CountingBackend;
use devint::verbs::{ToolId, VerbCall};
use devint::wire::{encode, pb, ClientFrame, Decoder, ServerToClient};
use devint_net::book::{BookFile, SharedBook};
use devint_net::server::{Limits, Server};
use devint_net::transport::bind_secure;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::runtime::Runtime;

/// One DI-API exchange: the bytes a client writes and how many bytes the answer has.
#[derive(Clone)]
struct Exchange {
    request: Arc<Vec<u8>>,
    reply_len: usize,
}

impl Exchange {
    /// The same sizes, framed for the echo server.
    fn echo_form(&self) -> Exchange {
        let mut bytes = Vec::with_capacity(8 + self.request.len());
        bytes.extend((self.request.len() as u32).to_le_bytes());
        bytes.extend((self.reply_len as u32).to_le_bytes());
        bytes.extend(self.request.iter());
        Exchange {
            request: Arc::new(bytes),
            reply_len: self.reply_len,
        }
    }

    async fn run(&self, stream: &mut UnixStream, buf: &mut Vec<u8>) {
        stream.write_all(&self.request).await.unwrap();
        buf.resize(self.reply_len, 0);
        stream.read_exact(buf).await.unwrap();
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    di_socket: PathBuf,
    echo_socket: PathBuf,
    hello: Exchange,
    denied: Exchange,
    status: Exchange,
}

async fn echo_server(listener: UnixListener) {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            continue;
        };
        tokio::spawn(async move {
            let mut header = [0u8; 8];
            let mut body = Vec::new();
            let mut reply = Vec::new();
            loop {
                if stream.read_exact(&mut header).await.is_err() {
                    return;
                }
                let req = u32::from_le_bytes(header[..4].try_into().unwrap()) as usize;
                let rep = u32::from_le_bytes(header[4..].try_into().unwrap()) as usize;
                body.resize(req, 0);
                if stream.read_exact(&mut body).await.is_err() {
                    return;
                }
                reply.resize(rep, 7);
                if stream.write_all(&reply).await.is_err() {
                    return;
                }
            }
        });
    }
}

/// The size of the next whole server frame on `stream`.
async fn next_frame_len(stream: &mut UnixStream) -> usize {
    let mut decoder = Decoder::<ServerToClient>::new();
    let mut pending = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "the server closed");
        pending.extend_from_slice(&buf[..n]);
        let mut input = &pending[..];
        if decoder.decode(&mut input).unwrap().is_some() {
            assert!(input.is_empty(), "one frame at a time");
            return pending.len();
        }
    }
}

fn hello_bytes() -> Vec<u8> {
    encode(&ClientFrame::Hello(pb::Hello {
        client_name: "bench".into(),
        client_version: "0".into(),
        di_api_versions: vec![1, 2, 3, 4, 5],
        lifecycle_schema_versions: vec![1],
    }))
    .unwrap()
}

fn start(rt: &Runtime) -> Fixture {
    let dir = tempfile::Builder::new()
        .prefix("dvb")
        .tempdir_in("/tmp")
        .unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let book = BookFile::new(dir.path().join("book.json"));
    let (_, secret) = book
        .update(|b| {
            b.issue(
                ClientName::parse("bench").unwrap(),
                Scope::read_only(ToolScope::All),
                Duration::from_secs(86_400),
                devint::time::UnixSecs::from_system_time(std::time::SystemTime::now()),
            )
        })
        .unwrap();
    let token = secret.expose_secret_hex().to_string();
    let di_socket = dir.path().join("devint.sock");
    let echo_socket = dir.path().join("echo.sock");
    let server = Server::builder(
        Arc::new(SharedBook::open(book).unwrap()),
        Arc::new(CountingBackend::default()),
        Arc::new(MemoryAuditSink::new()),
    )
    .limits(Limits {
        max_connections: 4096,
        max_connections_per_uid: 4096,
        ..Limits::default()
    })
    .build();
    let (hello, denied, status) = rt.block_on(async {
        let bound = bind_secure(&di_socket).unwrap();
        tokio::spawn(async move { server.serve(bound, std::future::pending()).await });
        tokio::spawn(echo_server(UnixListener::bind(&echo_socket).unwrap()));
        // Learn the answer sizes once.
        let mut s = UnixStream::connect(&di_socket).await.unwrap();
        let hello = hello_bytes();
        s.write_all(&hello).await.unwrap();
        let ack_len = next_frame_len(&mut s).await;
        let tool = ToolId::parse("codex").unwrap();
        let status_req = encode(&ClientFrame::Request(
            VerbCall::Status { tool: tool.clone() }.to_request(1, &token),
        ))
        .unwrap();
        s.write_all(&status_req).await.unwrap();
        let status_len = next_frame_len(&mut s).await;
        let bad = "0".repeat(64);
        let denied_req = encode(&ClientFrame::Request(
            VerbCall::Status { tool }.to_request(1, &bad),
        ))
        .unwrap();
        s.write_all(&denied_req).await.unwrap();
        let denied_len = next_frame_len(&mut s).await;
        let ex = |request: Vec<u8>, reply_len| Exchange {
            request: Arc::new(request),
            reply_len,
        };
        (
            ex(hello, ack_len),
            ex(denied_req, denied_len),
            ex(status_req, status_len),
        )
    });
    Fixture {
        _dir: dir,
        di_socket,
        echo_socket,
        hello,
        denied,
        status,
    }
}

/// A connection, negotiated when it is a DI-API one.
async fn open(path: &Path, hello: Option<&Exchange>) -> UnixStream {
    let mut s = UnixStream::connect(path).await.unwrap();
    if let Some(h) = hello {
        h.run(&mut s, &mut Vec::new()).await;
    }
    s
}

thread_local! {
    static MEANS: RefCell<BTreeMap<&'static str, f64>> = const { RefCell::new(BTreeMap::new()) };
}

fn record(name: &'static str, total: Duration, iters: u64) {
    let mean = total.as_secs_f64() / iters as f64;
    MEANS.with(|m| m.borrow_mut().insert(name, mean));
}

/// `iters` round trips of `ex` on one connection (opened by `connect`, negotiated for DI).
fn bench_round_trips(
    c: &mut Criterion,
    rt: &Runtime,
    name: &'static str,
    path: &Path,
    hello: Option<&Exchange>,
    ex: &Exchange,
) {
    let mut conn = rt.block_on(open(path, hello));
    let mut buf = Vec::new();
    let (mut total, mut count) = (Duration::ZERO, 0u64);
    c.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let took = rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    ex.run(&mut conn, &mut buf).await;
                }
                start.elapsed()
            });
            total += took;
            count += iters;
            took
        })
    });
    record(name, total, count);
}

/// `iters` × (connect, one exchange, close).
fn bench_connects(c: &mut Criterion, rt: &Runtime, name: &'static str, path: &Path, ex: &Exchange) {
    let mut buf = Vec::new();
    let (mut total, mut count) = (Duration::ZERO, 0u64);
    c.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let took = rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let mut s = UnixStream::connect(path).await.unwrap();
                    ex.run(&mut s, &mut buf).await;
                }
                start.elapsed()
            });
            total += took;
            count += iters;
            took
        })
    });
    record(name, total, count);
}

/// Round trips per second over `conns` connections running for `window`.
fn throughput(
    rt: &Runtime,
    path: &Path,
    hello: Option<&Exchange>,
    ex: &Exchange,
    conns: usize,
) -> f64 {
    let window = Duration::from_secs(2);
    rt.block_on(async {
        let mut streams = Vec::new();
        for _ in 0..conns {
            streams.push(open(path, hello).await);
        }
        let start = Instant::now();
        let tasks: Vec<_> = streams
            .into_iter()
            .map(|mut s| {
                let ex = ex.clone();
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut n = 0u64;
                    while start.elapsed() < window {
                        ex.run(&mut s, &mut buf).await;
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        let mut total = 0;
        for t in tasks {
            total += t.await.unwrap();
        }
        total as f64 / start.elapsed().as_secs_f64()
    })
}

/// (p50, p99) of round-trip latency with `conns` concurrent connections.
fn latency(
    rt: &Runtime,
    path: &Path,
    hello: Option<&Exchange>,
    ex: &Exchange,
    conns: usize,
) -> (Duration, Duration) {
    let per_conn = (4000 / conns).max(40);
    rt.block_on(async {
        let mut streams = Vec::new();
        for _ in 0..conns {
            streams.push(open(path, hello).await);
        }
        let tasks: Vec<_> = streams
            .into_iter()
            .map(|mut s| {
                let ex = ex.clone();
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut samples = Vec::with_capacity(per_conn);
                    for _ in 0..per_conn {
                        let t = Instant::now();
                        ex.run(&mut s, &mut buf).await;
                        samples.push(t.elapsed());
                    }
                    samples
                })
            })
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        all.sort();
        let at = |q: f64| all[((all.len() as f64 * q) as usize).min(all.len() - 1)];
        (at(0.50), at(0.99))
    })
}

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// RSS growth per idle connection with `n` connections held open.
fn memory_per_connection(rt: &Runtime, path: &Path, hello: Option<&Exchange>, n: usize) -> f64 {
    rt.block_on(async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let before = rss_bytes();
        let mut held = Vec::with_capacity(n);
        for _ in 0..n {
            held.push(open(path, hello).await);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let after = rss_bytes();
        drop(held);
        tokio::time::sleep(Duration::from_millis(200)).await;
        after.saturating_sub(before) as f64 / n as f64
    })
}

fn raise_open_file_limit(want: u64) {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current.is_some_and(|c| c < want) {
        limit.current = Some(limit.maximum.map_or(want, |m| m.min(want)));
        let _ = setrlimit(Resource::Nofile, limit);
    }
}

fn ratio_line(what: &str, di: f64, echo: f64, unit: &str, target: &str) {
    println!(
        "{what:<34} devint {di:>10.2} {unit:<5} echo {echo:>10.2} {unit:<5} ratio {:>5.2}x  (target {target})",
        di / echo
    );
}

fn main() {
    raise_open_file_limit(4096);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let fx = start(&rt);
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();

    let (di, echo) = (&fx.di_socket, &fx.echo_socket);
    bench_connects(
        &mut c,
        &rt,
        "echo/connect+exchange",
        echo,
        &fx.hello.echo_form(),
    );
    bench_connects(&mut c, &rt, "devint/connect+hello", di, &fx.hello);
    bench_round_trips(
        &mut c,
        &rt,
        "echo/denied-sized",
        echo,
        None,
        &fx.denied.echo_form(),
    );
    bench_round_trips(
        &mut c,
        &rt,
        "devint/denied",
        di,
        Some(&fx.hello),
        &fx.denied,
    );
    bench_round_trips(
        &mut c,
        &rt,
        "echo/status-sized",
        echo,
        None,
        &fx.status.echo_form(),
    );
    bench_round_trips(
        &mut c,
        &rt,
        "devint/status",
        di,
        Some(&fx.hello),
        &fx.status,
    );
    c.final_summary();

    let mean = |k| MEANS.with(|m| m.borrow()[k]) * 1e6;
    println!("\n== devint server vs raw echo (2 worker threads) ==");
    println!(
        "sizes: Hello {} B → HelloAck {} B; denied {} B → {} B; status {} B → {} B",
        fx.hello.request.len(),
        fx.hello.reply_len,
        fx.denied.request.len(),
        fx.denied.reply_len,
        fx.status.request.len(),
        fx.status.reply_len
    );
    ratio_line(
        "connect + Hello → HelloAck",
        mean("devint/connect+hello"),
        mean("echo/connect+exchange"),
        "µs",
        "≤ 1.10x",
    );
    ratio_line(
        "denied round trip",
        mean("devint/denied"),
        mean("echo/denied-sized"),
        "µs",
        "≤ 1.10x",
    );
    ratio_line(
        "authorized status round trip",
        mean("devint/status"),
        mean("echo/status-sized"),
        "µs",
        "≤ 1.15x",
    );
    let di_tp = throughput(&rt, di, Some(&fx.hello), &fx.status, 32);
    let echo_tp = throughput(&rt, echo, None, &fx.status.echo_form(), 32);
    ratio_line(
        "throughput, 32 connections",
        di_tp,
        echo_tp,
        "op/s",
        "≥ 0.85x",
    );
    // Echo first: memory freed by one measurement is reused by the next.
    let echo_mem = memory_per_connection(&rt, echo, None, 1000);
    let di_mem = memory_per_connection(&rt, di, Some(&fx.hello), 1000);
    println!(
        "{:<34} devint {:>10.0} B     echo {:>10.0} B     (target ≤ 16384 B per devint connection)",
        "RSS per idle connection (1,000)", di_mem, echo_mem
    );
    for conns in [1, 16, 256] {
        let (d50, d99) = latency(&rt, di, Some(&fx.hello), &fx.status, conns);
        let (e50, e99) = latency(&rt, echo, None, &fx.status.echo_form(), conns);
        println!(
            "status latency, {conns:>3} connections: devint p50 {:>8.1} µs p99 {:>8.1} µs p99/p50 {:>5.2} | echo p50 {:>8.1} µs p99 {:>8.1} µs p99/p50 {:>5.2} | p50 ratio {:>5.2}x (target p99/p50 ≤ 2)",
            d50.as_secs_f64() * 1e6,
            d99.as_secs_f64() * 1e6,
            d99.as_secs_f64() / d50.as_secs_f64(),
            e50.as_secs_f64() * 1e6,
            e99.as_secs_f64() * 1e6,
            e99.as_secs_f64() / e50.as_secs_f64(),
            d50.as_secs_f64() / e50.as_secs_f64(),
        );
    }
}
