//! Group commit of the audit log: refusals are queued and written in
//! batches off the caller's path, mutations are durable before `record` returns, the chain
//! keeps the order records were made in, a clean shutdown loses nothing, and a crash loses
//! at most what the bounded queue held.

use std::fs;
use std::path::{Path, PathBuf};

use devint::audit::{AuditEvent, AuditKind, AuditSink, MutationOutcome};
use devint::time::UnixSecs;
use devint::verbs::MutationVerb;
use devint_net::audit_log::{verify, JsonLinesAuditLog};

const WORKER_ENV: &str = "DEVINT_TEST_AUDIT_CRASH_WORKER";
const CRASH_CAPACITY: usize = 8;
const CRASH_RECORDS: u64 = 64;

fn log_path() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit").join("audit.jsonl");
    (dir, path)
}

fn refusal(request: u64) -> AuditEvent {
    AuditEvent::new(UnixSecs::new(1_800_000_000), AuditKind::UnknownVerb)
        .with_connection(1)
        .with_request(request)
}

fn mutation(request: u64) -> AuditEvent {
    AuditEvent::new(
        UnixSecs::new(1_800_000_000),
        AuditKind::LifecycleMutation {
            verb: MutationVerb::Apply,
            outcome: MutationOutcome::Succeeded,
        },
    )
    .with_request(request)
}

/// The request ids of the log's records, in file order.
fn request_ids(path: &Path) -> Vec<u64> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            v["event"]["request_id"].as_u64().unwrap()
        })
        .collect()
}

#[test]
fn queued_refusals_are_all_written_in_order_by_flush() {
    let (_d, path) = log_path();
    let log = JsonLinesAuditLog::open(&path).unwrap();
    for i in 0..500 {
        log.record_deferred(&refusal(i)).unwrap();
    }
    log.flush().unwrap();
    assert_eq!(verify(&path).unwrap().records, 500);
    assert_eq!(request_ids(&path), (0..500).collect::<Vec<_>>());
    assert_eq!(verify(&path).unwrap().head_sha256, log.head());
}

#[test]
fn a_mutation_is_durable_when_record_returns_behind_the_refusals_queued_before_it() {
    let (_d, path) = log_path();
    let log = JsonLinesAuditLog::open(&path).unwrap();
    log.record_deferred(&refusal(1)).unwrap();
    log.record_deferred(&refusal(2)).unwrap();
    log.record(&mutation(3)).unwrap();
    // No flush: the mutation's record is on disk now, with everything queued before it, in
    // the order they were made.
    assert_eq!(request_ids(&path), vec![1, 2, 3]);
    assert_eq!(verify(&path).unwrap().records, 3);
}

#[test]
fn a_mutation_never_overtakes_a_batch_the_committer_has_already_taken() {
    // The committer may take the queued refusals at any moment between the two calls below;
    // whoever wins, the mutation's record must be written behind them. Repeated, because
    // which thread wins is up to the scheduler.
    for round in 0..300 {
        let (_d, path) = log_path();
        let log = JsonLinesAuditLog::open(&path).unwrap();
        log.record_deferred(&refusal(1)).unwrap();
        if round % 2 == 1 {
            std::thread::yield_now();
        }
        log.record(&mutation(2)).unwrap();
        assert_eq!(request_ids(&path), vec![1, 2], "round {round}");
    }
}

#[test]
fn dropping_the_log_writes_every_queued_refusal() {
    let (_d, path) = log_path();
    {
        let log = JsonLinesAuditLog::open_with_capacity(&path, 4).unwrap();
        for i in 0..100 {
            log.record_deferred(&refusal(i)).unwrap();
        }
    }
    assert_eq!(request_ids(&path), (0..100).collect::<Vec<_>>());
    // The chain continues where it stopped.
    let log = JsonLinesAuditLog::open(&path).unwrap();
    log.record(&mutation(100)).unwrap();
    assert_eq!(verify(&path).unwrap().records, 101);
}

#[test]
fn refusals_from_many_threads_are_all_recorded_and_the_chain_verifies() {
    let (_d, path) = log_path();
    let log = std::sync::Arc::new(JsonLinesAuditLog::open_with_capacity(&path, 16).unwrap());
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let log = log.clone();
            std::thread::spawn(move || {
                for i in 0..250 {
                    if i % 50 == 0 {
                        log.record(&mutation(t * 1000 + i)).unwrap();
                    } else {
                        log.record_deferred(&refusal(t * 1000 + i)).unwrap();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    log.flush().unwrap();
    let mut ids = request_ids(&path);
    assert_eq!(verify(&path).unwrap().records, 1000);
    ids.sort_unstable();
    let expected: Vec<u64> = (0..4u64)
        .flat_map(|t| (0..250).map(move |i| t * 1000 + i))
        .collect();
    assert_eq!(ids, expected, "every record exactly once");
}

/// Not a test on its own: the child of `a_crash_loses_at_most_what_the_bounded_queue_held`.
/// Queues refusals as fast as it can, then dies without any clean-up.
#[test]
fn audit_crash_worker_process() {
    let Some(path) = std::env::var_os(WORKER_ENV) else {
        return;
    };
    let log = JsonLinesAuditLog::open_with_capacity(PathBuf::from(path), CRASH_CAPACITY).unwrap();
    for i in 0..CRASH_RECORDS {
        log.record_deferred(&refusal(i)).unwrap();
    }
    std::process::abort();
}

#[test]
fn a_crash_loses_at_most_what_the_bounded_queue_held() {
    let (_d, path) = log_path();
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "audit_crash_worker_process", "--test-threads=1"])
        .env(WORKER_ENV, &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success(), "the worker must die, not exit");
    // A crash in the middle of a write can leave a torn last line (which `open` refuses, as
    // after any crash mid-append); what came before it must verify.
    let bytes = fs::read(&path).unwrap();
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    fs::write(&path, &bytes[..whole]).unwrap();
    let records = verify(&path).unwrap().records as u64;
    // Producers wait for room, so when the last record was queued at most the queue and the
    // batch being written were not yet on disk.
    let window = 2 * CRASH_CAPACITY as u64;
    assert!(
        records >= CRASH_RECORDS - window,
        "{records} of {CRASH_RECORDS} records survived; the loss window is {window}"
    );
    assert_eq!(
        request_ids(&path),
        (0..records).collect::<Vec<_>>(),
        "what survived is a prefix"
    );
}
