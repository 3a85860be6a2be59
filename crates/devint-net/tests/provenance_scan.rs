//! The multiplicity scan (spec §8): live `devint*.sock` sockets only, never a byte sent.

use std::io::Read;
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::time::Duration;

use devint_net::provenance::{is_runtime_socket_name, scan_runtimes};

fn short_tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("dvs")
        .tempdir_in("/tmp")
        .unwrap()
}

const BUDGET: Duration = Duration::from_secs(5);

#[test]
fn counts_live_matching_sockets_only() {
    let tmp = short_tempdir();
    let d = tmp.path();
    let _a = UnixListener::bind(d.join("devint.sock")).unwrap();
    let _b = UnixListener::bind(d.join("devint-2.sock")).unwrap();
    drop(UnixListener::bind(d.join("devint-dead.sock")).unwrap()); // dead: file left behind
    let _other = UnixListener::bind(d.join("runtime.sock")).unwrap(); // live, wrong name
    let _sockish = UnixListener::bind(d.join("devint.socket")).unwrap(); // live, wrong suffix
    std::fs::write(d.join("devint-file.sock"), b"").unwrap(); // not a socket
    std::os::unix::fs::symlink(d.join("devint.sock"), d.join("devint-link.sock")).unwrap();

    let mut found = scan_runtimes(d, BUDGET);
    found.sort();
    // The paths, so a refusal can name the other runtime's socket.
    assert_eq!(found, [d.join("devint-2.sock"), d.join("devint.sock")]);
}

#[test]
fn a_single_runtime_counts_one_and_none_counts_zero() {
    let tmp = short_tempdir();
    assert_eq!(scan_runtimes(tmp.path(), BUDGET), Vec::<PathBuf>::new());
    let _a = UnixListener::bind(tmp.path().join("devint.sock")).unwrap();
    assert_eq!(
        scan_runtimes(tmp.path(), BUDGET),
        [tmp.path().join("devint.sock")]
    );
}

#[test]
fn the_scan_never_sends_a_byte() {
    let tmp = short_tempdir();
    let listener = UnixListener::bind(tmp.path().join("devint.sock")).unwrap();
    assert_eq!(scan_runtimes(tmp.path(), BUDGET).len(), 1);
    // The probe's connection is queued; it was closed without writing anything.
    let (mut conn, _) = listener.accept().unwrap();
    let mut buf = Vec::new();
    assert_eq!(conn.read_to_end(&mut buf).unwrap(), 0);
}

#[test]
fn an_exhausted_budget_probes_nothing() {
    let tmp = short_tempdir();
    let _a = UnixListener::bind(tmp.path().join("devint.sock")).unwrap();
    assert_eq!(scan_runtimes(tmp.path(), Duration::ZERO).len(), 0);
}

#[test]
fn a_missing_directory_counts_zero() {
    let tmp = short_tempdir();
    assert_eq!(scan_runtimes(&tmp.path().join("nope"), BUDGET).len(), 0);
}

#[test]
fn socket_name_filter() {
    assert!(is_runtime_socket_name("devint.sock"));
    assert!(is_runtime_socket_name("devint-alt.sock"));
    assert!(!is_runtime_socket_name("devint.socket"));
    assert!(!is_runtime_socket_name("xdevint.sock"));
    assert!(!is_runtime_socket_name("devint"));
}
