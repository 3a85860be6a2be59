//! The figures: which exchange each one uses, and the interleaved rounds that measure every
//! server beside the echo server answering the same sizes.

use std::path::{Path, PathBuf};

use devint::wire::{pb, ServerFrame};

use super::measure::{self, Endpoint, Latencies};
use super::wire::{self, Exchange, Reply, TAG_DENIED, TAG_HELLO_ACK, TAG_RESPONSE};
use super::Settings;

/// One figure of the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Connect + `Hello` → `HelloAck`.
    Handshake,
    /// A request with an unknown token → `Denied`.
    Denied,
    /// Authorised `status claude-code`.
    Status,
    /// Authorised `list_tools`.
    ListTools,
    /// Authorised `plan claude-code --scope user`.
    Plan,
    /// Authorised `status` round trips per second over this many connections.
    Throughput(usize),
    /// Denied requests (unknown token) answered per second over this many connections.
    DeniedThroughput(usize),
    /// `status` latency over this many concurrent connections, one client thread each
    /// (p99/p50 is the figure).
    Concurrent(usize),
    /// `status` latency over this many connections driven by one client thread, as an
    /// event-loop client drives them (no target: what such a client sees, p50 against
    /// echo's).
    Multiplexed(usize),
}

/// Every figure, in report order.
pub const FIGURES: [Figure; 11] = [
    Figure::Handshake,
    Figure::Denied,
    Figure::Status,
    Figure::ListTools,
    Figure::Plan,
    Figure::Throughput(1),
    Figure::Throughput(7),
    Figure::Throughput(32),
    Figure::DeniedThroughput(7),
    Figure::Concurrent(16),
    Figure::Multiplexed(16),
];

impl Figure {
    /// Its short name for `DEVINT_BENCH_FIGURES`.
    pub fn key(self) -> String {
        match self {
            Figure::Handshake => "handshake".into(),
            Figure::Denied => "denied".into(),
            Figure::Status => "status".into(),
            Figure::ListTools => "list_tools".into(),
            Figure::Plan => "plan".into(),
            Figure::Throughput(n) => format!("throughput{n}"),
            Figure::DeniedThroughput(n) => format!("denied_throughput{n}"),
            Figure::Concurrent(n) => format!("concurrent{n}"),
            Figure::Multiplexed(n) => format!("multiplexed{n}"),
        }
    }

    /// The figure whose key is `key`; an unknown key stops the bench, naming the keys.
    pub fn from_key(key: &str) -> Figure {
        FIGURES
            .into_iter()
            .find(|f| f.key() == key)
            .unwrap_or_else(|| {
                let keys: Vec<String> = FIGURES.iter().map(|f| f.key()).collect();
                panic!(
                    "DEVINT_BENCH_FIGURES: unknown figure {key:?} (known: {})",
                    keys.join(", ")
                )
            })
    }

    /// The report's name for it.
    pub fn name(self) -> String {
        match self {
            Figure::Handshake => "connect + Hello → HelloAck".into(),
            Figure::Denied => "denied request".into(),
            Figure::Status => "authorised status".into(),
            Figure::ListTools => "authorised list_tools".into(),
            Figure::Plan => "authorised plan".into(),
            Figure::Throughput(n) => format!("status throughput, {n} conn"),
            Figure::DeniedThroughput(n) => format!("denied throughput, {n} conn"),
            Figure::Concurrent(n) => format!("status p99/p50, {n} conn, {n} client threads"),
            Figure::Multiplexed(n) => format!("status latency, {n} conn, one client thread"),
        }
    }
}

/// One DI-API server under measurement, with its exchanges and their echo forms.
pub struct Subject {
    /// Its name in the report.
    pub name: &'static str,
    socket: PathBuf,
    hello: Exchange,
    hello_echo: Exchange,
    denied: (Exchange, Exchange),
    status: (Exchange, Exchange),
    list_tools: (Exchange, Exchange),
    plan: (Exchange, Exchange),
}

impl Subject {
    /// Learn each answer's size from the server at `socket` (checking each answer is the
    /// frame its figure means), with `token` enrolled for every verb and tool.
    pub fn learn(name: &'static str, socket: &Path, token: &str) -> Subject {
        let hello = wire::hello();
        let mut stream = wire::connect(socket).expect("connect to learn the sizes");
        let (ack, ack_len) = wire::probe(&mut stream, &hello).expect("Hello");
        assert!(
            matches!(ack, ServerFrame::HelloAck(_)),
            "{name}: Hello was answered with {ack:?}"
        );
        let mut learn = |request: Vec<u8>, tag: u8| {
            let (frame, len) = wire::probe(&mut stream, &request).expect("a request");
            let ok = matches!(
                (&frame, tag),
                (ServerFrame::Response(_), TAG_RESPONSE) | (ServerFrame::Denied(_), TAG_DENIED)
            );
            assert!(ok, "{name}: expected tag {tag}, got {frame:?}");
            let exchange = Exchange {
                request,
                reply: Reply::Frame { tag },
            };
            let echo = exchange.echo_form(len);
            (exchange, echo)
        };
        let tool = "claude-code";
        let plan_args = pb::PlanArgs {
            profile: "recommended".into(),
            settings_scope: "user".into(),
            ..pb::PlanArgs::default()
        };
        let unknown = "0".repeat(64);
        let denied = learn(
            wire::request(pb::Verb::Status, &unknown, tool, None),
            TAG_DENIED,
        );
        let status = learn(
            wire::request(pb::Verb::Status, token, tool, None),
            TAG_RESPONSE,
        );
        let list_tools = learn(
            wire::request(pb::Verb::ListTools, token, "", None),
            TAG_RESPONSE,
        );
        let plan = learn(
            wire::request(pb::Verb::Plan, token, tool, Some(plan_args)),
            TAG_RESPONSE,
        );
        let hello = Exchange {
            request: hello,
            reply: Reply::Frame { tag: TAG_HELLO_ACK },
        };
        let hello_echo = hello.echo_form(ack_len);
        Subject {
            name,
            socket: socket.to_path_buf(),
            hello,
            hello_echo,
            denied,
            status,
            list_tools,
            plan,
        }
    }

    /// The exchange a figure uses: (DI-API form, echo form).
    fn exchanges(&self, figure: Figure) -> (&Exchange, &Exchange) {
        let pair = match figure {
            Figure::Handshake => return (&self.hello, &self.hello_echo),
            Figure::Denied | Figure::DeniedThroughput(_) => &self.denied,
            Figure::Status
            | Figure::Throughput(_)
            | Figure::Concurrent(_)
            | Figure::Multiplexed(_) => &self.status,
            Figure::ListTools => &self.list_tools,
            Figure::Plan => &self.plan,
        };
        (&pair.0, &pair.1)
    }

    /// The sizes (request, answer) of the figure's exchange.
    pub fn sizes(&self, figure: Figure) -> (usize, usize) {
        let (exchange, echo) = self.exchanges(figure);
        let answer = match echo.reply {
            Reply::Exact(n) => n,
            Reply::Frame { .. } => 0,
        };
        (exchange.request.len(), answer)
    }
}

/// One measured value.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    /// Latency quantiles, µs.
    Latency { p50: f64, p99: f64 },
    /// Round trips per second.
    Rate(f64),
}

/// Per subject, per figure, per round: (server, echo).
pub type Results = Vec<Vec<Vec<(Value, Value)>>>;

fn latency(l: Latencies) -> Value {
    assert!(l.len() > 0, "a measurement took no sample");
    Value::Latency {
        p50: l.quantile_us(0.50),
        p99: l.quantile_us(0.99),
    }
}

fn measure_one(figure: Figure, at: &Endpoint<'_>, exchange: &Exchange, s: &Settings) -> Value {
    match figure {
        Figure::Handshake => latency(measure::handshakes(at.socket, exchange, s.budget)),
        Figure::Denied | Figure::Status | Figure::ListTools | Figure::Plan => {
            latency(measure::round_trips(at, exchange, s.budget))
        }
        Figure::Throughput(n) | Figure::DeniedThroughput(n) => {
            Value::Rate(measure::throughput(at, exchange, n, s.window))
        }
        Figure::Concurrent(n) => latency(measure::concurrent_latency(at, exchange, n, s.window)),
        Figure::Multiplexed(n) => latency(measure::multiplexed_latency(at, exchange, n, s.window)),
    }
}

/// `settings.rounds` rounds; in each, every figure of every subject is measured beside the
/// echo server, which of the two goes first alternating from round to round.
pub fn run_rounds(subjects: &[Subject], echo: &Path, settings: &Settings) -> Results {
    let mut results: Results = subjects
        .iter()
        .map(|_| settings.figures.iter().map(|_| Vec::new()).collect())
        .collect();
    for round in 0..settings.rounds {
        for (si, subject) in subjects.iter().enumerate() {
            for (fi, &figure) in settings.figures.iter().enumerate() {
                let (exchange, echo_exchange) = subject.exchanges(figure);
                let server_at = Endpoint {
                    socket: &subject.socket,
                    negotiate: (figure != Figure::Handshake).then_some(&subject.hello),
                };
                let echo_at = Endpoint {
                    socket: echo,
                    negotiate: None,
                };
                let echo_first = (round + fi) % 2 == 0;
                let (server, echo) = if echo_first {
                    let e = measure_one(figure, &echo_at, echo_exchange, settings);
                    (measure_one(figure, &server_at, exchange, settings), e)
                } else {
                    let s = measure_one(figure, &server_at, exchange, settings);
                    (s, measure_one(figure, &echo_at, echo_exchange, settings))
                };
                results[si][fi].push((server, echo));
            }
        }
    }
    results
}
