//! The secure bind on real sockets in short temporary paths (spec §1).

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

use devint_net::transport::{bind_secure, BindError, Removal};

fn short_tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("dvb")
        .tempdir_in("/tmp")
        .unwrap()
}

fn mode(p: &Path) -> u32 {
    fs::symlink_metadata(p).unwrap().mode() & 0o7777
}

fn inode(p: &Path) -> u64 {
    fs::symlink_metadata(p).unwrap().ino()
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

fn private_dir(parent: &Path, name: &str) -> PathBuf {
    let d = parent.join(name);
    fs::create_dir(&d).unwrap();
    fs::set_permissions(&d, fs::Permissions::from_mode(0o700)).unwrap();
    d
}

#[test]
fn bound_socket_is_0600_and_created_directories_are_0700() {
    let tmp = short_tempdir();
    let path = tmp.path().join("aa/run/devint.sock");
    let bound = bind_secure(&path).unwrap();
    assert_eq!(bound.path(), path);
    let meta = fs::symlink_metadata(&path).unwrap();
    assert_eq!(bound.identity(), (meta.dev(), meta.ino()));
    assert_eq!(mode(&path), 0o600, "socket mode");
    assert_eq!(
        mode(&tmp.path().join("aa/run")),
        0o700,
        "created socket dir"
    );
    assert_eq!(mode(&tmp.path().join("aa")), 0o700, "created ancestor");
    // It is a working listener.
    let _client = UnixStream::connect(&path).unwrap();
    bound.listener().accept().unwrap();
}

#[test]
fn bind_leaves_no_staging_directory_behind() {
    let tmp = short_tempdir();
    let dir = private_dir(tmp.path(), "run");
    let _bound = bind_secure(&dir.join("devint.sock")).unwrap();
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("devint.sock")]);
}

#[test]
fn existing_0755_directory_is_refused_and_not_chmodded() {
    let tmp = short_tempdir();
    let dir = tmp.path().join("run");
    fs::create_dir(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let err = bind_secure(&dir.join("devint.sock")).unwrap_err();
    assert!(
        matches!(&err, BindError::DirectoryMode { path, mode: 0o755 } if *path == dir),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains(dir.to_str().unwrap()) && msg.contains("0700"),
        "{msg}"
    );
    assert_eq!(
        mode(&dir),
        0o755,
        "a directory we did not create is never chmodded"
    );
    assert!(!dir.join("devint.sock").exists());
}

#[test]
fn foreign_owned_directory_is_refused() {
    if !is_root() {
        eprintln!("SKIP foreign_owned_directory_is_refused: needs root to chown to uid 65534");
        return;
    }
    let tmp = short_tempdir();
    let dir = private_dir(tmp.path(), "run");
    std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
    let err = bind_secure(&dir.join("devint.sock")).unwrap_err();
    assert!(
        matches!(&err, BindError::DirectoryOwner { path, owner: 65534, ours: 0 } if *path == dir),
        "{err:?}"
    );
    assert!(err.to_string().contains(dir.to_str().unwrap()));
    assert_eq!(fs::metadata(&dir).unwrap().uid(), 65534, "owner left alone");
}

#[test]
fn symlinked_component_owned_by_another_user_is_refused() {
    if !is_root() {
        eprintln!(
            "SKIP symlinked_component_owned_by_another_user_is_refused: needs root to lchown \
             the symlink to uid 65534"
        );
        return;
    }
    let tmp = short_tempdir();
    let real = private_dir(tmp.path(), "real");
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    std::os::unix::fs::lchown(&link, Some(65534), Some(65534)).unwrap();
    let err = bind_secure(&link.join("devint.sock")).unwrap_err();
    assert!(
        matches!(&err, BindError::ForeignSymlink { path, owner: 65534, .. } if *path == link),
        "{err:?}"
    );
    assert!(!real.join("devint.sock").exists());
}

#[test]
fn foreign_symlink_deeper_in_a_link_target_is_refused() {
    if !is_root() {
        eprintln!("SKIP foreign_symlink_deeper_in_a_link_target_is_refused: needs root");
        return;
    }
    // ours -> hop/real, where hop is a foreign symlink: found while resolving the target.
    let tmp = short_tempdir();
    let real = private_dir(tmp.path(), "real");
    let hop = tmp.path().join("hop");
    std::os::unix::fs::symlink(tmp.path(), &hop).unwrap();
    std::os::unix::fs::lchown(&hop, Some(65534), Some(65534)).unwrap();
    let ours = tmp.path().join("ours");
    std::os::unix::fs::symlink("hop/real", &ours).unwrap();
    let err = bind_secure(&ours.join("devint.sock")).unwrap_err();
    assert!(
        matches!(&err, BindError::ForeignSymlink { path, .. } if *path == hop),
        "{err:?}"
    );
    assert!(!real.join("devint.sock").exists());
}

#[test]
fn symlink_owned_by_us_is_followed_and_the_socket_lands_in_its_target() {
    let tmp = short_tempdir();
    let real = private_dir(tmp.path(), "real");
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let bound = bind_secure(&link.join("devint.sock")).unwrap();
    assert_eq!(bound.path(), real.join("devint.sock"));
    assert_eq!(mode(&real.join("devint.sock")), 0o600);
}

#[test]
fn live_socket_is_not_stolen() {
    let tmp = short_tempdir();
    let path = private_dir(tmp.path(), "run").join("devint.sock");
    let first = bind_secure(&path).unwrap();
    let ino = inode(&path);

    let err = bind_secure(&path).unwrap_err();
    assert!(
        matches!(&err, BindError::AlreadyServing { path: p, pid } if *p == path && *pid == Some(std::process::id())),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(msg.contains("another runtime is serving at"), "{msg}");
    assert!(msg.contains(path.to_str().unwrap()), "{msg}");

    assert_eq!(inode(&path), ino, "the live socket's file is untouched");
    let names: Vec<_> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("devint.sock")],
        "no staging left"
    );
    // The probe's connection is queued on the first listener; a new client still reaches it.
    let _client = UnixStream::connect(&path).unwrap();
    first.listener().accept().unwrap();
}

#[test]
fn dead_socket_is_replaced() {
    let tmp = short_tempdir();
    let path = private_dir(tmp.path(), "run").join("devint.sock");
    drop(UnixListener::bind(&path).unwrap()); // std leaves the file behind: a dead socket
    let dead_ino = inode(&path);

    let bound = bind_secure(&path).unwrap();
    assert_ne!(inode(&path), dead_ino, "the dead socket was replaced");
    assert_eq!(mode(&path), 0o600);
    let _client = UnixStream::connect(&path).unwrap();
    bound.listener().accept().unwrap();
}

#[test]
fn non_socket_file_at_the_path_is_refused_and_kept() {
    let tmp = short_tempdir();
    let path = private_dir(tmp.path(), "run").join("devint.sock");
    fs::write(&path, b"not a socket").unwrap();
    let err = bind_secure(&path).unwrap_err();
    assert!(
        matches!(&err, BindError::NotASocket(p) if *p == path),
        "{err:?}"
    );
    assert_eq!(fs::read(&path).unwrap(), b"not a socket");
}

#[test]
fn close_removes_our_socket() {
    let tmp = short_tempdir();
    let path = private_dir(tmp.path(), "run").join("devint.sock");
    let bound = bind_secure(&path).unwrap();
    assert_eq!(bound.close().unwrap(), Removal::Removed);
    assert!(fs::symlink_metadata(&path).is_err());
}

#[test]
fn drop_removes_our_socket() {
    let tmp = short_tempdir();
    let path = private_dir(tmp.path(), "run").join("devint.sock");
    drop(bind_secure(&path).unwrap());
    assert!(fs::symlink_metadata(&path).is_err());
}

#[test]
fn shutdown_leaves_a_socket_that_replaced_ours_alone() {
    let tmp = short_tempdir();
    let dir = private_dir(tmp.path(), "run");
    let path = dir.join("devint.sock");
    let bound = bind_secure(&path).unwrap();
    let (_listener, guard) = bound.into_parts();

    // Another runtime's socket is renamed over ours.
    let other_path = dir.join("other.sock");
    let other = UnixListener::bind(&other_path).unwrap();
    fs::rename(&other_path, &path).unwrap();
    let other_ino = inode(&path);

    assert_eq!(guard.close().unwrap(), Removal::NotOurs);
    assert_eq!(
        inode(&path),
        other_ino,
        "the replacement survives our shutdown"
    );
    let _client = UnixStream::connect(&path).unwrap();
    other.accept().unwrap();
}

#[test]
fn drop_leaves_a_socket_that_replaced_ours_alone() {
    let tmp = short_tempdir();
    let dir = private_dir(tmp.path(), "run");
    let path = dir.join("devint.sock");
    let bound = bind_secure(&path).unwrap();
    let other_path = dir.join("other.sock");
    let _other = UnixListener::bind(&other_path).unwrap();
    fs::rename(&other_path, &path).unwrap();
    let other_ino = inode(&path);
    drop(bound);
    assert_eq!(inode(&path), other_ino);
}

#[test]
fn path_longer_than_sun_path_is_a_clear_error() {
    let tmp = short_tempdir();
    let name = format!("devint-{}.sock", "x".repeat(120));
    let path = tmp.path().join(name);
    let err = bind_secure(&path).unwrap_err();
    assert!(
        matches!(err, BindError::PathTooLong { max: 107, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("at most 107 bytes"), "{err}");
    assert!(
        fs::read_dir(tmp.path()).unwrap().next().is_none(),
        "nothing created"
    );
}

#[test]
fn a_path_without_a_file_name_is_refused() {
    let err = bind_secure(Path::new("/tmp/..")).unwrap_err();
    assert!(matches!(err, BindError::NoFileName(_)), "{err:?}");
}

#[test]
fn a_file_in_place_of_a_directory_is_refused() {
    let tmp = short_tempdir();
    let file = tmp.path().join("run");
    fs::write(&file, b"").unwrap();
    let err = bind_secure(&file.join("devint.sock")).unwrap_err();
    assert!(
        matches!(&err, BindError::NotADirectory(p) if *p == file),
        "{err:?}"
    );
}

#[tokio::test]
async fn into_tokio_serves_connections() {
    let tmp = short_tempdir();
    let path = private_dir(tmp.path(), "run").join("devint.sock");
    let (listener, guard) = bind_secure(&path).unwrap().into_tokio().unwrap();
    let _client = tokio::net::UnixStream::connect(&path).await.unwrap();
    let (stream, _) = listener.accept().await.unwrap();
    let proof = devint::peer::verify_peer(&stream).unwrap();
    assert_eq!(proof.uid(), rustix::process::geteuid().as_raw());
    drop(listener);
    assert_eq!(guard.close().unwrap(), Removal::Removed);
}
