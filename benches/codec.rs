//! Frame codec cost: encode and decode of a typical `Request` (status verb, 64-hex token,
//! tool id) and of a `HelloAck` with provenance filled, each beside the bare prost
//! encode/decode of the same message as a baseline, so the framing's own cost is visible.
//!
//! Run: `cargo bench --bench codec -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use devint::wire::{
    encode, encode_into, pb, ClientFrame, ClientToServer, Decoder, ServerFrame, ServerToClient,
};
use prost::Message;

fn status_request() -> pb::Request {
    pb::Request {
        request_id: 42,
        verb: pb::Verb::Status as i32,
        capability_token: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
        tool_id: "claude-code".into(),
        ..Default::default()
    }
}

fn hello_ack() -> pb::HelloAck {
    pb::HelloAck {
        outcome: pb::NegotiationOutcome::Supported as i32,
        di_api_version: 5,
        core_version: "0.1.0".into(),
        lifecycle_schema_version: 1,
        min_supported: 1,
        max_supported: 5,
        provenance: Some(pb::RuntimeProvenance {
            core_version: "0.1.0".into(),
            build_sha: "2d3254c0e1f5a8b9c7d6e5f4a3b2c1d0e9f8a7b6".into(),
            pid: 48_213,
            executable_path: "/home/dev/.cargo/bin/devint".into(),
            executable_present: true,
            source_path: "/home/dev/src/devint".into(),
            started_at_unix_secs: 1_796_000_000,
            build_id_source: "checkout".into(),
        }),
        ..Default::default()
    }
}

fn request(c: &mut Criterion) {
    let frame = ClientFrame::Request(status_request());
    let bytes = encode(&frame).unwrap();
    let mut g = c.benchmark_group("request");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("encode", |b| b.iter(|| encode(black_box(&frame)).unwrap()));
    let mut out = Vec::with_capacity(bytes.len());
    g.bench_function("encode_into_reused_buffer", |b| {
        b.iter(|| {
            out.clear();
            encode_into(black_box(&frame), &mut out).unwrap();
        })
    });
    g.bench_function("decode", |b| {
        b.iter(|| {
            let mut input = black_box(bytes.as_slice());
            Decoder::<ClientToServer>::new()
                .decode(&mut input)
                .unwrap()
                .unwrap()
        })
    });
    g.bench_function("decode_then_encode", |b| {
        b.iter(|| {
            let mut input = black_box(bytes.as_slice());
            let f = Decoder::<ClientToServer>::new()
                .decode(&mut input)
                .unwrap()
                .unwrap();
            encode(&f).unwrap()
        })
    });
    let message = status_request();
    let payload = message.encode_to_vec();
    g.bench_function("baseline_prost_encode", |b| {
        b.iter(|| black_box(&message).encode_to_vec())
    });
    g.bench_function("baseline_prost_decode", |b| {
        b.iter(|| pb::Request::decode(black_box(payload.as_slice())).unwrap())
    });
    g.finish();
}

fn hello_ack_with_provenance(c: &mut Criterion) {
    let frame = ServerFrame::HelloAck(hello_ack());
    let bytes = encode(&frame).unwrap();
    let mut g = c.benchmark_group("hello_ack");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("encode", |b| b.iter(|| encode(black_box(&frame)).unwrap()));
    g.bench_function("decode", |b| {
        b.iter(|| {
            let mut input = black_box(bytes.as_slice());
            Decoder::<ServerToClient>::new()
                .decode(&mut input)
                .unwrap()
                .unwrap()
        })
    });
    let message = hello_ack();
    let payload = message.encode_to_vec();
    g.bench_function("baseline_prost_encode", |b| {
        b.iter(|| black_box(&message).encode_to_vec())
    });
    g.bench_function("baseline_prost_decode", |b| {
        b.iter(|| pb::HelloAck::decode(black_box(payload.as_slice())).unwrap())
    });
    g.finish();
}

criterion_group!(codec, request, hello_ack_with_provenance);
criterion_main!(codec);
