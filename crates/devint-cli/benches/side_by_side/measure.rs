//! The measurements, each on fresh connections of the driver's blocking client: a
//! handshake (connect + one exchange), round trips on one connection, closed-loop
//! throughput over N connections, and latency over N concurrent connections.

use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use super::wire::{connect, Buffer, Exchange};

/// How long one measurement runs.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Wall-clock time per measurement.
    pub time: Duration,
    /// Samples at most.
    pub max_samples: usize,
    /// Samples at least (even past `time`).
    pub min_samples: usize,
}

/// Where a measurement connects and how a connection gets ready for requests.
pub struct Endpoint<'a> {
    /// The socket.
    pub socket: &'a Path,
    /// The exchange that makes a connection ready (`Hello` for a DI-API server).
    pub negotiate: Option<&'a Exchange>,
}

impl Endpoint<'_> {
    fn open(&self, buf: &mut Buffer) -> UnixStream {
        let mut stream = connect(self.socket).expect("connect");
        if let Some(hello) = self.negotiate {
            hello.run(&mut stream, buf).expect("negotiate");
        }
        stream
    }
}

/// Sorted latencies of one measurement.
pub struct Latencies(Vec<Duration>);

impl Latencies {
    fn new(mut samples: Vec<Duration>) -> Latencies {
        samples.sort_unstable();
        Latencies(samples)
    }

    /// The `q`-quantile, in microseconds.
    pub fn quantile_us(&self, q: f64) -> f64 {
        let i = ((self.0.len() as f64 * q) as usize).min(self.0.len().saturating_sub(1));
        self.0.get(i).map_or(f64::NAN, |d| d.as_secs_f64() * 1e6)
    }

    /// Samples taken.
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

fn sample_until(budget: Budget, mut one: impl FnMut() -> Duration) -> Latencies {
    let started = Instant::now();
    let mut samples = Vec::with_capacity(budget.max_samples.min(100_000));
    while samples.len() < budget.min_samples
        || (samples.len() < budget.max_samples && started.elapsed() < budget.time)
    {
        samples.push(one());
    }
    Latencies::new(samples)
}

/// Connect, run `exchange` once, close; repeated.
pub fn handshakes(socket: &Path, exchange: &Exchange, budget: Budget) -> Latencies {
    let mut buf = Buffer::new();
    sample_until(budget, || {
        let t = Instant::now();
        let mut stream = connect(socket).expect("connect");
        exchange.run(&mut stream, &mut buf).expect("handshake");
        let took = t.elapsed();
        drop(stream);
        took
    })
}

/// Round trips of `exchange` on one ready connection.
pub fn round_trips(at: &Endpoint<'_>, exchange: &Exchange, budget: Budget) -> Latencies {
    let mut buf = Buffer::new();
    let mut stream = at.open(&mut buf);
    sample_until(budget, || {
        let t = Instant::now();
        exchange.run(&mut stream, &mut buf).expect("round trip");
        t.elapsed()
    })
}

/// Round trips per second of `exchange`, closed loop, on `connections` connections for
/// `window`.
pub fn throughput(
    at: &Endpoint<'_>,
    exchange: &Exchange,
    connections: usize,
    window: Duration,
) -> f64 {
    let (count, elapsed) = concurrently(
        at,
        connections,
        |stream, buf, deadline| {
            let mut n = 0u64;
            while Instant::now() < deadline {
                exchange.run(stream, buf).expect("round trip");
                n += 1;
            }
            n
        },
        window,
    );
    count.into_iter().sum::<u64>() as f64 / elapsed.as_secs_f64()
}

/// Latencies of `exchange` on `connections` concurrent connections for `window`.
pub fn concurrent_latency(
    at: &Endpoint<'_>,
    exchange: &Exchange,
    connections: usize,
    window: Duration,
) -> Latencies {
    let (per_connection, _) = concurrently(
        at,
        connections,
        |stream, buf, deadline| {
            let mut samples = Vec::new();
            while Instant::now() < deadline {
                let t = Instant::now();
                exchange.run(stream, buf).expect("round trip");
                samples.push(t.elapsed());
            }
            samples
        },
        window,
    );
    Latencies::new(per_connection.into_iter().flatten().collect())
}

/// Open `connections` ready connections, start every thread at once, run `work` on each
/// until `window` has passed; what each returned and the time from start to the last end.
/// The window starts once every connection is open and ready: opening them is not part of
/// the figure.
fn concurrently<T: Send>(
    at: &Endpoint<'_>,
    connections: usize,
    work: impl Fn(&mut UnixStream, &mut Buffer, Instant) -> T + Sync,
    window: Duration,
) -> (Vec<T>, Duration) {
    let ready = Barrier::new(connections + 1);
    let go = Barrier::new(connections + 1);
    let start = std::sync::OnceLock::<Instant>::new();
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..connections)
            .map(|_| {
                scope.spawn(|| {
                    let mut buf = Buffer::new();
                    let mut stream = at.open(&mut buf);
                    ready.wait();
                    go.wait();
                    let began = *start.get().expect("set before the second barrier opens");
                    work(&mut stream, &mut buf, began + window)
                })
            })
            .collect();
        ready.wait();
        start.set(Instant::now()).ok();
        go.wait();
        handles
            .into_iter()
            .map(|h| h.join().expect("a measuring thread"))
            .collect::<Vec<_>>()
    });
    let elapsed = start.get().map_or(window, |s| s.elapsed());
    (results, elapsed)
}
