//! `devint serve` under a service manager, driven as systemd drives it: a listening socket
//! passed as fd 3 with `LISTEN_FDS=1` and `LISTEN_PID` the child's own pid, and a
//! `NOTIFY_SOCKET` datagram socket that receives `READY=1` and `STOPPING=1`. A passed
//! socket the secure bind would refuse is refused with the bind's own words. And upgrades:
//! replacing the binary under a running `serve` re-executes it on the same socket (or, with
//! `--on-upgrade exit`, exits 75).

mod cli_support;

use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixDatagram, UnixListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use cli_support::{replace_executable, Sandbox, DEVINT};
use command_fds::{CommandFdExt, FdMapping};

/// The run directory `0700`, as a socket unit's `DirectoryMode=0700` makes it.
fn private_dir(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
}

/// A listening socket at `path` with `mode`, as systemd's `ListenStream=`/`SocketMode=`.
fn listening(path: &Path, mode: u32) -> OwnedFd {
    let listener = UnixListener::bind(path).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    OwnedFd::from(listener)
}

/// Spawn `devint serve` as systemd would: `fd` at 3, `LISTEN_FDS=1`, `LISTEN_PID` the
/// child's pid (set by the shell right before it execs devint, so it is the pid devint
/// runs as), and `NOTIFY_SOCKET` when given.
fn activated(s: &Sandbox, fd: OwnedFd, notify: Option<&Path>, log: &Path) -> Child {
    let mut c = s.std_command(Path::new("/bin/sh"));
    c.args(["-c", "LISTEN_PID=$$ exec \"$0\" serve", DEVINT])
        .env("LISTEN_FDS", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(log).unwrap())
        .stderr(std::fs::File::create(log.with_extension("err")).unwrap());
    if let Some(n) = notify {
        c.env("NOTIFY_SOCKET", n);
    }
    c.fd_mappings(vec![FdMapping {
        parent_fd: fd,
        child_fd: 3,
    }])
    .unwrap();
    c.spawn().expect("spawn devint serve")
}

/// The next datagram on `notify` (a deadline, not a timed assertion: a runtime that never
/// says anything fails the test instead of hanging it).
fn next_notification(notify: &UnixDatagram) -> String {
    notify
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut buf = [0u8; 4096];
    let n = notify.recv(&mut buf).expect("a notification");
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// Wait for `child` to exit, and return its status and stderr.
fn exit_of(mut child: Child, log: &Path) -> (i32, String) {
    let status = child.wait().unwrap();
    let err = std::fs::read_to_string(log.with_extension("err")).unwrap_or_default();
    (status.code().unwrap_or(-1), err)
}

#[test]
fn serve_adopts_the_passed_socket_and_tells_the_service_manager_ready_and_stopping() {
    let s = Sandbox::new();
    private_dir(&s.run_dir());
    let notify_path = s.root().join("notify");
    let notify = UnixDatagram::bind(&notify_path).unwrap();
    let fd = listening(&s.socket(), 0o600);
    let log = s.root().join("activated.out");
    let child = activated(&s, fd, Some(&notify_path), &log);
    let ready = next_notification(&notify);
    assert!(ready.lines().any(|l| l == "READY=1"), "{ready}");
    let out = std::fs::read_to_string(&log).unwrap();
    assert!(
        out.contains("socket passed by the service manager"),
        "{out}"
    );

    // A client reaches the runtime on the passed socket, and it is the child that answers.
    let (code, doc) = s.json(&["version"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["runtime"]["provenance"]["pid"], child.id());

    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let stopping = next_notification(&notify);
    assert!(stopping.lines().any(|l| l == "STOPPING=1"), "{stopping}");
    let (code, err) = exit_of(child, &log);
    assert_eq!(code, 0, "{err}");
    // The service manager owns the socket: the runtime leaves it in place.
    assert!(s.socket().exists());
}

/// Start an activated `serve` on `fd` and return its exit code and stderr.
fn refused(s: &Sandbox, fd: OwnedFd) -> (i32, String) {
    let log = s.root().join("refused.out");
    let child = activated(s, fd, None, &log);
    exit_of(child, &log)
}

#[test]
fn a_passed_socket_with_the_wrong_mode_is_refused() {
    let s = Sandbox::new();
    private_dir(&s.run_dir());
    let fd = listening(&s.socket(), 0o666);
    let (code, err) = refused(&s, fd);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("has mode 0666; it must be 0600"), "{err}");
    assert!(err.contains("SocketMode=0600"), "{err}");
}

#[test]
fn a_passed_socket_in_a_directory_others_can_enter_is_refused() {
    let s = Sandbox::new();
    std::fs::create_dir_all(s.run_dir()).unwrap();
    std::fs::set_permissions(s.run_dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let fd = listening(&s.socket(), 0o600);
    let (code, err) = refused(&s, fd);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("has mode 0755; it must be 0700"), "{err}");
}

#[test]
fn a_passed_socket_that_is_not_listening_is_refused() {
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketType};
    let s = Sandbox::new();
    private_dir(&s.run_dir());
    let sock = rustix::net::socket(AddressFamily::UNIX, SocketType::STREAM, None).unwrap();
    rustix::net::bind(&sock, &SocketAddrUnix::new(s.socket()).unwrap()).unwrap();
    std::fs::set_permissions(s.socket(), std::fs::Permissions::from_mode(0o600)).unwrap();
    let (code, err) = refused(&s, sock);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is not listening"), "{err}");
}

#[test]
fn a_passed_datagram_socket_is_refused() {
    let s = Sandbox::new();
    private_dir(&s.run_dir());
    let dgram = UnixDatagram::bind(s.socket()).unwrap();
    let (code, err) = refused(&s, OwnedFd::from(dgram));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is not a Unix stream socket"), "{err}");
}

#[test]
fn a_passed_socket_at_another_path_than_the_runtime_serves_at_is_refused() {
    let s = Sandbox::new();
    private_dir(&s.run_dir());
    let elsewhere = s.run_dir().join("other.sock");
    let fd = listening(&elsewhere, 0o600);
    let (code, err) = refused(&s, fd);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("but this runtime serves at"), "{err}");
    assert!(err.contains("ListenStream="), "{err}");
}

#[test]
fn sockets_meant_for_another_process_are_not_adopted() {
    // LISTEN_PID names another process: fd 3 is not ours, so serve binds its own socket.
    let s = Sandbox::new();
    private_dir(&s.run_dir());
    let fd = listening(&s.run_dir().join("other.sock"), 0o600);
    let log = s.root().join("foreign.out");
    let mut c = s.std_command(Path::new(DEVINT));
    c.arg("serve")
        .env("LISTEN_FDS", "1")
        .env("LISTEN_PID", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(Stdio::null());
    c.fd_mappings(vec![FdMapping {
        parent_fd: fd,
        child_fd: 3,
    }])
    .unwrap();
    let mut child = c.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("stop with Ctrl-C")
    {
        assert!(Instant::now() < deadline && child.try_wait().unwrap().is_none());
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = std::fs::read_to_string(&log).unwrap();
    assert!(!out.contains("passed by the service manager"), "{out}");
    assert_eq!(s.run(&["version"]).0, 0);
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A copy of the devint binary at `dir/devint`, as a package manager installs it.
fn install_copy(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let exe = dir.join("devint");
    replace_binary(&exe);
    exe
}

/// Put a fresh copy of the built binary at `exe` the way upgrades do.
fn replace_binary(exe: &Path) {
    replace_executable(exe, Path::new(DEVINT), 0o755);
}

#[test]
fn replacing_the_binary_under_serve_re_executes_it_and_commands_keep_working() {
    let mut s = Sandbox::new();
    let exe = install_copy(&s.root().join("b"));
    let (socket, state) = (s.socket(), s.state());
    let n = s.serve_program(&exe, &socket, &state, &[]);
    s.enrol("read-only");
    assert_eq!(s.run(&["tools"]).0, 0);

    replace_binary(&exe);
    s.wait_for_output(n, "re-executing", 1);
    s.wait_for_output(n, "stop with Ctrl-C", 2);
    assert!(s
        .serve_output(n)
        .contains("socket handed over by the previous executable"));
    // No manual restart: the same process (same pid) serves the new binary, verified.
    let (code, stdout, stderr) = s.run(&["tools"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, doc) = s.json(&["version"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["runtime"]["standing"], "verified", "{doc}");
    assert_eq!(doc["runtime"]["provenance"]["pid"], s.server_pid(n));
    // The handed-over socket is still the runtime's to remove at shutdown.
    assert_eq!(s.terminate(n).code(), Some(0));
    assert!(!socket.exists());
}

#[test]
fn on_upgrade_exit_leaves_with_75_for_the_service_manager() {
    let mut s = Sandbox::new();
    let exe = install_copy(&s.root().join("b"));
    let (socket, state) = (s.socket(), s.state());
    let n = s.serve_program(&exe, &socket, &state, &["--on-upgrade", "exit"]);
    replace_binary(&exe);
    let status = s.wait_server(n);
    assert_eq!(status.code(), Some(75), "{}", s.serve_errors(n));
    assert!(s.serve_errors(n).contains("--on-upgrade exit"));
    assert!(!s.serve_output(n).contains("re-executing"));
}
