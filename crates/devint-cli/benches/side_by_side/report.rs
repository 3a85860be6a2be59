//! The report: per server and figure, the median over rounds of each side's value, the
//! median ratio with its spread, and the issue-15 target where there is one.

use super::figures::{Figure, Results, Subject, Value};
use super::Settings;

/// `/proc/loadavg`'s first three fields.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// The machine's CPUs (not the ones this process may run on: the client may be pinned).
fn cpu_count() -> usize {
    std::fs::read_to_string("/proc/cpuinfo")
        .map(|s| s.lines().filter(|l| l.starts_with("processor")).count())
        .unwrap_or(0)
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "?".into())
}

/// A target: its text and whether a ratio (or, for `Concurrent`, the server's p99/p50)
/// meets it.
type Target = (&'static str, fn(f64) -> bool);

/// The target of `figure` for `server`. Pinned (client and servers on separate CPUs), a
/// throughput figure is CPU per answer on one server core, and the targets are those of
/// the sans-IO connection work; unpinned, they are the first latency targets'.
fn target(server: &str, figure: Figure, pinned: bool) -> Option<Target> {
    let embedded = server == "embedded";
    if pinned {
        return Some(match figure {
            Figure::Handshake | Figure::Denied | Figure::Status if embedded => {
                ("≤ 1.10×", |r| r <= 1.10)
            }
            Figure::Throughput(7) if embedded => ("≥ 0.70×", |r| r >= 0.70),
            Figure::DeniedThroughput(7) if embedded => ("≥ 0.95×", |r| r >= 0.95),
            Figure::Throughput(7) => ("≥ 0.50×", |r| r >= 0.50),
            _ => return None,
        });
    }
    Some(match figure {
        Figure::Handshake if embedded => ("≤ 1.10×", |r| r <= 1.10),
        Figure::Denied if embedded => ("≤ 1.10×", |r| r <= 1.10),
        Figure::Denied => ("≤ 1.15×", |r| r <= 1.15),
        Figure::Status if embedded => ("≤ 1.15×", |r| r <= 1.15),
        Figure::Status => ("≤ 3×", |r| r <= 3.0),
        Figure::ListTools | Figure::Plan if !embedded => ("≤ 5×", |r| r <= 5.0),
        Figure::Throughput(_) if embedded => ("≥ 0.85×", |r| r >= 0.85),
        Figure::Concurrent(_) if embedded => ("p99/p50 ≤ 2", |r| r <= 2.0),
        _ => return None,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

fn spread(v: &[f64]) -> (f64, f64) {
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max)
}

fn p50(v: Value) -> f64 {
    match v {
        Value::Latency { p50, .. } => p50,
        Value::Rate(r) => r,
    }
}

fn p99(v: Value) -> f64 {
    match v {
        Value::Latency { p99, .. } => p99,
        Value::Rate(r) => r,
    }
}

fn tail(v: Value) -> f64 {
    p99(v) / p50(v)
}

fn cell(figure: Figure, side: &[Value]) -> String {
    match figure {
        Figure::Throughput(_) | Figure::DeniedThroughput(_) => format!(
            "{:.1} k/s",
            median(side.iter().map(|&v| p50(v)).collect()) / 1e3
        ),
        Figure::Concurrent(_) | Figure::Multiplexed(_) => format!(
            "{:.1} / {:.1} µs = {:.2}",
            median(side.iter().map(|&v| p50(v)).collect()),
            median(side.iter().map(|&v| p99(v)).collect()),
            median(side.iter().map(|&v| tail(v)).collect())
        ),
        _ => format!(
            "{:.1} / {:.1} µs",
            median(side.iter().map(|&v| p50(v)).collect()),
            median(side.iter().map(|&v| p99(v)).collect())
        ),
    }
}

/// Print the machine, the settings and the table (Markdown, ready for docs/benchmarks.md).
pub fn print(subjects: &[Subject], results: &Results, settings: &Settings, load_before: String) {
    println!();
    println!(
        "machine: {} CPUs ({}), load average {} before, {} after",
        cpu_count(),
        cpu_model(),
        load_before,
        load_average()
    );
    println!(
        "rounds: {}; per latency figure {} ms (≥ {} samples); per throughput/concurrency window {} ms",
        settings.rounds,
        settings.budget.time.as_millis(),
        settings.budget.min_samples,
        settings.window.as_millis()
    );
    println!(
        "runtime of the echo and embedded servers: {} (devint serve: its own)",
        settings.runtime.name()
    );
    println!(
        "pinned: {}",
        crate::pinning::Pinning::describe(settings.pinning)
    );
    println!("latency: p50 / p99 (median over rounds); ratio: server ÷ echo of the p50 (throughput: of the rate; p99/p50 with a client thread per connection: the server's own), median [min–max] over rounds");
    println!();
    println!("| server | figure | sizes (B) | echo | server | ratio | spread | target | met |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (si, subject) in subjects.iter().enumerate() {
        for (fi, &figure) in settings.figures.iter().enumerate() {
            let rounds = &results[si][fi];
            let server: Vec<Value> = rounds.iter().map(|r| r.0).collect();
            let echo: Vec<Value> = rounds.iter().map(|r| r.1).collect();
            let ratios: Vec<f64> = match figure {
                Figure::Concurrent(_) => server.iter().map(|&v| tail(v)).collect(),
                _ => rounds.iter().map(|r| p50(r.0) / p50(r.1)).collect(),
            };
            let ratio = median(ratios.clone());
            let (lo, hi) = spread(&ratios);
            let (request, answer) = subject.sizes(figure);
            let (target_text, met) = match target(subject.name, figure, settings.pinning.is_some())
            {
                Some((text, ok)) => (text, if ok(ratio) { "yes" } else { "**no**" }),
                None => ("—", ""),
            };
            let unit = if matches!(figure, Figure::Concurrent(_)) {
                ""
            } else {
                "×"
            };
            println!(
                "| {} | {} | {request} → {answer} | {} | {} | {ratio:.2}{unit} | {lo:.2}–{hi:.2} | {target_text} | {met} |",
                subject.name,
                figure.name(),
                cell(figure, &echo),
                cell(figure, &server),
            );
        }
    }
}
