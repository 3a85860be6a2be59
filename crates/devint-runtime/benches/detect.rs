//! Detection with a warm cache, as every request after the first meets it: `detect` of
//! one installed tool and `list_tools` over every registered tool, on a sandboxed HOME with Claude Code in `~/.local/bin` and a
//! service manager's minimal `PATH`. Each call still looks every tool up (a few `stat`s per
//! directory searched); no version command runs after the first call.

use std::hint::black_box;
use std::os::unix::fs::PermissionsExt;

use criterion::{criterion_group, criterion_main, Criterion};
use devint_runtime::adapters::{find, Detector};

fn detect(c: &mut Criterion) {
    let root = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
    let home = root.path().join("home");
    let bin = home.join(".local/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let claude = bin.join("claude");
    std::fs::write(&claude, "#!/bin/sh\necho '2.0.14 (Claude Code)'\n").unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    let detector = Detector::new("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin", &home)
        .with_root(root.path());
    let tool = find("claude-code").unwrap();
    assert!(detector.detect(tool).present);
    let mut group = c.benchmark_group("detect");
    group.bench_function("claude_code_warm", |b| {
        b.iter(|| black_box(detector.detect(black_box(tool))))
    });
    group.bench_function("list_tools_warm", |b| {
        b.iter(|| black_box(detector.list_tools()))
    });
    group.finish();
}

criterion_group!(benches, detect);
criterion_main!(benches);
