//! Socket discovery against real files (spec §1).

use std::os::unix::net::UnixListener;
use std::path::Path;

use devint_net::transport::{discover, DiscoveryError, SocketDiscovery};

fn short_tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("dvd")
        .tempdir_in("/tmp")
        .unwrap()
}

#[test]
fn nothing_at_the_path_is_absent() {
    let tmp = short_tempdir();
    let path = tmp.path().join("devint.sock");
    let found = discover(Some(path.to_str().unwrap()), None).unwrap();
    assert_eq!(found, SocketDiscovery::Absent(path));
}

#[test]
fn a_socket_at_the_override_is_present() {
    let tmp = short_tempdir();
    let path = tmp.path().join("devint.sock");
    let _l = UnixListener::bind(&path).unwrap();
    let found = discover(
        Some(path.to_str().unwrap()),
        Some(Path::new("/nonexistent")),
    )
    .unwrap();
    assert_eq!(found, SocketDiscovery::Present(path));
}

#[test]
fn default_path_is_under_home() {
    let tmp = short_tempdir();
    let found = discover(Some(""), Some(tmp.path())).unwrap();
    assert_eq!(
        found,
        SocketDiscovery::Absent(tmp.path().join(".aa/run/devint.sock"))
    );
    std::fs::create_dir_all(tmp.path().join(".aa/run")).unwrap();
    let _l = UnixListener::bind(tmp.path().join(".aa/run/devint.sock")).unwrap();
    assert!(matches!(
        discover(None, Some(tmp.path())).unwrap(),
        SocketDiscovery::Present(_)
    ));
}

#[test]
fn a_regular_file_at_the_path_is_an_error() {
    let tmp = short_tempdir();
    let path = tmp.path().join("devint.sock");
    std::fs::write(&path, b"").unwrap();
    let err = discover(Some(path.to_str().unwrap()), None).unwrap_err();
    assert!(matches!(err, DiscoveryError::NotASocket(p) if p == path));
}

#[test]
fn no_home_is_an_error_not_a_tmp_fallback() {
    let err = discover(None, None).unwrap_err();
    assert!(matches!(err, DiscoveryError::NoHome));
    assert!(err.to_string().contains("HOME"));
}
