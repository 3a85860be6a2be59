//! The reference runtime's own cost per request, in process and without a
//! socket: `status`, `plan` and `list_tools` of an integrated Claude Code on a sandboxed
//! HOME, each driven through the session core as the server drives it (admission, the
//! backend call, the typed answer). What `devint serve` adds on top — the socket, the
//! blocking pool, the audit — is measured by `crates/devint-cli/benches/side_by_side`.
//!
//! ```sh
//! cargo bench -p devint-runtime --bench lifecycle -- --warm-up-time 1 --measurement-time 3
//! ```

#[path = "../tests/lifecycle_support/mod.rs"]
mod lifecycle_support;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use devint::verbs::{Profile, VerbCall};
use lifecycle_support::*;

fn lifecycle(c: &mut Criterion) {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    sb.write_profile("team", TEAM_PROFILE);
    let rt = sb.open();
    let mut client = Client::new(&book(), "bench");
    let plan = client.plan(&rt, "team");
    client.apply(&rt, &plan.plan_id).expect("apply");
    client.verify(&rt);
    let mut group = c.benchmark_group("reference_runtime");
    group.bench_function("status_claude_code", |b| {
        b.iter(|| black_box(client.status(&rt)))
    });
    group.bench_function("plan_claude_code", |b| {
        b.iter(|| black_box(client.plan_with(&rt, plan_args(Profile::Recommended, Some("team")))))
    });
    group.bench_function("list_tools", |b| {
        b.iter(|| black_box(client.call(&rt, VerbCall::ListTools)))
    });
    group.finish();
}

criterion_group!(benches, lifecycle);
criterion_main!(benches);
