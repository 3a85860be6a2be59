//! `DEVINT_BENCH_PIN`: the client process on one CPU and every server on another.
//!
//! On a 2-core machine, where the scheduler puts the client and a server moves latency by
//! several times; pinned, every server is placed the same way, and a throughput figure is
//! what one server core can answer: CPU per answer. The servers inherit the CPU the driver
//! is pinned to when it starts them; the driver then moves to the client's CPU, and every
//! client thread it starts after inherits that.

/// The environment variable: unset or `0`, not pinned; `1`, the client on CPU 0 and the
/// servers on the last CPU; `C:S`, the client on CPU `C` and the servers on CPU `S`.
pub const PIN_ENV: &str = "DEVINT_BENCH_PIN";

/// Where the client and the servers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pinning {
    /// The client's CPU.
    pub client: usize,
    /// Every server's CPU.
    pub servers: usize,
}

impl Pinning {
    /// The pinning [`PIN_ENV`] asks for; a value it cannot use stops the bench, saying why.
    pub fn from_env() -> Option<Pinning> {
        let value = std::env::var(PIN_ENV).ok()?;
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let pinning = match value.trim() {
            "" | "0" => return None,
            "1" => Pinning {
                client: 0,
                servers: cpus - 1,
            },
            pair => {
                let parsed = pair
                    .split_once(':')
                    .and_then(|(c, s)| Some((c.parse().ok()?, s.parse().ok()?)));
                let Some((client, servers)) = parsed else {
                    panic!("{PIN_ENV}={pair:?}: use 1, or CLIENT_CPU:SERVER_CPU (e.g. 0:1)");
                };
                Pinning { client, servers }
            }
        };
        assert!(
            pinning.client != pinning.servers && pinning.client.max(pinning.servers) < cpus,
            "{PIN_ENV}={value:?}: the client and the servers need two different CPUs of the {cpus} here"
        );
        Some(pinning)
    }

    /// How the report names it.
    pub fn describe(pinning: Option<Pinning>) -> String {
        match pinning {
            Some(p) => format!(
                "client on CPU {}, every server on CPU {} (throughput on one server core: CPU per answer)",
                p.client, p.servers
            ),
            None => "none (client and servers share every CPU)".into(),
        }
    }
}

/// Pin the calling thread — and every thread and process it starts afterwards — to `cpu`.
pub fn pin_to(cpu: usize) {
    let mut set = rustix::thread::CpuSet::new();
    set.set(cpu);
    rustix::thread::sched_setaffinity(None, &set)
        .unwrap_or_else(|e| panic!("pin to CPU {cpu}: {e}"));
}
