//! The measurements, each on fresh connections of the driver's client: a handshake
//! (connect + one exchange), round trips on one connection, closed-loop throughput over N
//! connections, and latency over N concurrent connections, with a blocking client thread
//! per connection or with one thread driving them all (`poll(2)`).

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

/// Latencies of `exchange` on `connections` connections driven by one client thread, as an
/// event-loop client (an editor's extension host, the sidecar) drives them: each connection
/// keeps one request in flight, the thread waits in `poll(2)` for answers and writes the
/// next request on a connection as soon as its answer is whole. Unlike
/// `concurrent_latency`, the client's own threads do not compete with the server for the
/// CPUs, so the spread is the server's (and the kernel's), not the load generator's.
pub fn multiplexed_latency(
    at: &Endpoint<'_>,
    exchange: &Exchange,
    connections: usize,
    window: Duration,
) -> Latencies {
    use rustix::event::{poll, PollFd, PollFlags};
    use std::io::{ErrorKind, Read, Write};

    let mut buf = Buffer::new();
    let mut streams: Vec<UnixStream> = (0..connections).map(|_| at.open(&mut buf)).collect();
    for stream in &streams {
        stream.set_nonblocking(true).expect("a non-blocking socket");
    }
    let mut answers: Vec<Vec<u8>> = vec![Vec::with_capacity(4096); connections];
    let mut in_flight: Vec<Option<Instant>> = vec![None; connections];
    let mut chunk = vec![0u8; 64 * 1024];
    let mut samples = Vec::new();
    let deadline = Instant::now() + window;
    let send = |stream: &mut UnixStream| {
        // One small request on a connection with nothing in flight: the socket's buffer
        // is empty, so the write is whole.
        stream
            .write_all(&exchange.request)
            .expect("write a request");
        Some(Instant::now())
    };
    for (stream, sent) in streams.iter_mut().zip(&mut in_flight) {
        *sent = send(stream);
    }
    let mut ready = Vec::with_capacity(connections);
    while in_flight.iter().any(Option::is_some) {
        ready.clear();
        {
            let waiting: Vec<usize> = (0..connections)
                .filter(|&i| in_flight[i].is_some())
                .collect();
            let mut fds: Vec<PollFd<'_>> = waiting
                .iter()
                .map(|&i| PollFd::new(&streams[i], PollFlags::IN))
                .collect();
            // A signal ends the wait early (`EINTR`): wait again.
            while let Err(e) = poll(&mut fds, None) {
                assert_eq!(e, rustix::io::Errno::INTR, "poll: {e}");
            }
            ready.extend(
                waiting
                    .iter()
                    .zip(&fds)
                    .filter(|(_, fd)| !fd.revents().is_empty())
                    .map(|(&i, _)| i),
            );
        }
        for &i in &ready {
            loop {
                match streams[i].read(&mut chunk) {
                    Ok(0) => panic!("the server closed a connection mid-measurement"),
                    Ok(n) => answers[i].extend_from_slice(&chunk[..n]),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("read an answer: {e}"),
                }
            }
            let Some(answer) = exchange.answered(&answers[i]) else {
                continue;
            };
            answer.expect("the expected answer");
            let sent = in_flight[i].take().expect("a request in flight");
            let now = Instant::now();
            samples.push(now - sent);
            answers[i].clear();
            if now < deadline {
                in_flight[i] = send(&mut streams[i]);
            }
        }
    }
    Latencies::new(samples)
}
