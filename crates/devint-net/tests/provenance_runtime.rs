//! `RuntimeProvenance` captured at start; `executable_present` re-evaluated on demand
//! (spec §8).

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use devint::provenance::{BuildIdSource, BuildIdentity};
use devint_net::provenance::RuntimeProvenance;

fn short_tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("dvr")
        .tempdir_in("/tmp")
        .unwrap()
}

fn fake_binary(dir: &std::path::Path) -> PathBuf {
    let exe = dir.join("devint");
    std::fs::write(&exe, b"binary v1").unwrap();
    exe
}

#[test]
fn executable_present_flips_when_the_file_is_replaced_by_rename() {
    let tmp = short_tempdir();
    let exe = fake_binary(tmp.path());
    let prov = RuntimeProvenance::for_executable(exe.clone(), SystemTime::now()).unwrap();
    assert!(prov.executable_present());
    assert!(prov.to_wire().executable_present);

    // A rebuild writes a new file and renames it over the old path.
    let rebuilt = tmp.path().join("devint.new");
    std::fs::write(&rebuilt, b"binary v1").unwrap();
    std::fs::rename(&rebuilt, &exe).unwrap();

    assert!(!prov.executable_present(), "same path, different inode");
    assert!(
        !prov.to_wire().executable_present,
        "evaluated at to_wire time"
    );
}

#[test]
fn executable_present_is_false_once_the_file_is_deleted() {
    let tmp = short_tempdir();
    let exe = fake_binary(tmp.path());
    let prov = RuntimeProvenance::for_executable(exe.clone(), SystemTime::now()).unwrap();
    std::fs::remove_file(&exe).unwrap();
    assert!(!prov.executable_present());
}

#[test]
fn executable_present_survives_an_in_place_write() {
    // The same inode is still the binary we recorded.
    let tmp = short_tempdir();
    let exe = fake_binary(tmp.path());
    let prov = RuntimeProvenance::for_executable(exe.clone(), SystemTime::now()).unwrap();
    std::fs::write(&exe, b"touched").unwrap();
    assert!(prov.executable_present());
}

#[test]
fn to_wire_carries_the_captured_fields() {
    let tmp = short_tempdir();
    let exe = fake_binary(tmp.path());
    let started = UNIX_EPOCH + Duration::from_secs(1_700_000_123);
    let prov = RuntimeProvenance::for_executable(exe.clone(), started).unwrap();
    let wire = prov.to_wire();
    let compiled = BuildIdentity::compiled();
    assert_eq!(wire.core_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(wire.build_sha, compiled.sha);
    assert_eq!(wire.build_id_source, compiled.source.token());
    assert_eq!(wire.pid, std::process::id());
    assert_eq!(wire.executable_path, exe.to_str().unwrap());
    assert_eq!(wire.started_at_unix_secs, 1_700_000_123);
    assert_eq!(wire.source_path, prov.source_path());
}

#[test]
fn capture_describes_the_running_test_binary() {
    let prov = RuntimeProvenance::capture();
    assert_eq!(prov.pid(), std::process::id());
    assert_eq!(prov.executable_path(), std::env::current_exe().unwrap());
    assert!(prov.executable_present());
    assert!(prov.started_at_unix_secs() > 0);
}

#[test]
fn compiled_identity_is_consistent_with_its_source() {
    let id = BuildIdentity::compiled();
    match id.source {
        BuildIdSource::Absent => assert!(!id.is_authoritative()),
        _ => {
            assert!(id.is_authoritative());
            assert!(id.sha.len() >= 40 && id.sha.chars().all(|c| c.is_ascii_hexdigit()));
        }
    }
}

#[test]
fn source_tokens_round_trip_and_unknown_reads_absent() {
    for s in [
        BuildIdSource::Injected,
        BuildIdSource::Checkout,
        BuildIdSource::Packaged,
        BuildIdSource::Absent,
    ] {
        assert_eq!(BuildIdSource::from_token(s.token()), s);
    }
    assert_eq!(BuildIdSource::from_token(""), BuildIdSource::Absent);
    assert_eq!(BuildIdSource::from_token("Checkout"), BuildIdSource::Absent);
}
