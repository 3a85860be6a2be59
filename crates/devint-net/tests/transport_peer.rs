//! Peer credentials at accept (spec §1): our own uid is verified, another uid is rejected.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use devint::peer::{verify_peer, PeerRejected};

fn short_tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("dvp")
        .tempdir_in("/tmp")
        .unwrap()
}

fn our_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

#[test]
fn connection_from_ourselves_is_verified() {
    let tmp = short_tempdir();
    let path = tmp.path().join("peer.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let _client = UnixStream::connect(&path).unwrap();
    let (server_side, _) = listener.accept().unwrap();
    let proof = verify_peer(&server_side).unwrap();
    assert_eq!(proof.uid(), our_uid());
}

#[tokio::test]
async fn tokio_connection_from_ourselves_is_verified() {
    let tmp = short_tempdir();
    let path = tmp.path().join("peer.sock");
    let listener = tokio::net::UnixListener::bind(&path).unwrap();
    let _client = tokio::net::UnixStream::connect(&path).await.unwrap();
    let (server_side, _) = listener.accept().await.unwrap();
    assert_eq!(verify_peer(&server_side).unwrap().uid(), our_uid());
}

const CLIENT: &str = "import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
print('connected', flush=True)
s.recv(1)
";

#[test]
fn connection_from_another_uid_is_rejected() {
    if !rustix::process::geteuid().is_root() {
        eprintln!(
            "SKIP connection_from_another_uid_is_rejected: needs root to run a peer as uid 65534"
        );
        return;
    }
    if Command::new("python3")
        .arg("-c")
        .arg("pass")
        .status()
        .is_err()
    {
        eprintln!("SKIP connection_from_another_uid_is_rejected: python3 is not installed");
        return;
    }
    // A plain listener in a directory uid 65534 can reach (the secure bind would keep it out).
    let tmp = short_tempdir();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = tmp.path().join("peer.sock");
    let listener = UnixListener::bind(&path).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();

    let mut child = Command::new("python3")
        .arg("-c")
        .arg(CLIENT)
        .arg(&path)
        .uid(65534)
        .gid(65534)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the child to say it connected (EOF instead means it failed: no hang).
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(
        line.trim(),
        "connected",
        "the uid-65534 client could not connect"
    );

    let (server_side, _) = listener.accept().unwrap();
    let rejected = verify_peer(&server_side).unwrap_err();
    assert!(
        matches!(
            rejected,
            PeerRejected::OtherUid {
                peer: 65534,
                ours: 0
            }
        ),
        "{rejected:?}"
    );

    // The tokio path rejects it too.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        server_side.set_nonblocking(true).unwrap();
        let stream = tokio::net::UnixStream::from_std(server_side).unwrap();
        let rejected = verify_peer(&stream).unwrap_err();
        assert!(
            matches!(
                rejected,
                PeerRejected::OtherUid {
                    peer: 65534,
                    ours: 0
                }
            ),
            "{rejected:?}"
        );
    });
    // Closing our side ends the child's recv.
    child.wait().unwrap();
}
