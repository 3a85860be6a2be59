//! `resolve` with 10 and with 10,000 enrolled tokens (the target: ≤ 1 µs, flat in
//! the number of tokens, since every request resolves its token). In-memory book, no file IO.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use devint::auth::{ClientName, EnrolmentBook, Scope, ToolScope};
use devint::verbs::Verb;

const NOW: devint::time::UnixSecs = devint::time::UnixSecs::new(1_800_000_000);

fn book_of(n: usize) -> (EnrolmentBook, String) {
    let mut book = EnrolmentBook::new();
    let mut last = String::new();
    for i in 0..n {
        let (_, secret) = book
            .issue(
                ClientName::parse(&format!("client-{i}")).unwrap(),
                Scope::full_lifecycle(ToolScope::only(["codex", "claude-code"])),
                Duration::from_secs(3600),
                NOW,
            )
            .unwrap();
        if i == n / 2 {
            last = secret.expose_secret_hex().to_string();
        }
    }
    (book, last)
}

fn resolve(c: &mut Criterion) {
    let mut group = c.benchmark_group("resolve");
    for n in [10usize, 10_000] {
        let (book, token) = book_of(n);
        group.bench_with_input(BenchmarkId::new("granted", n), &n, |b, _| {
            b.iter(|| book.resolve(black_box(&token), Verb::Apply, black_box("codex"), NOW))
        });
        let unknown = "0".repeat(64);
        group.bench_with_input(BenchmarkId::new("unknown", n), &n, |b, _| {
            b.iter(|| book.resolve(black_box(&unknown), Verb::Apply, black_box("codex"), NOW))
        });
    }
    group.finish();
}

criterion_group!(benches, resolve);
criterion_main!(benches);
