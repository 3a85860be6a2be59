//! `devint stop` and `devint restart`: signal the runtime that answers on the socket, by the
//! pid its provenance reports (spec §8), once the socket and the process are shown to be
//! this user's and this runtime's.
//!
//! `stop` sends SIGTERM and waits until the process has exited (nothing running at the
//! socket is success, as for `systemctl stop`); `restart` sends SIGHUP,
//! which makes `serve` finish in-flight requests and re-execute the binary at its path on
//! the same socket ([`crate::upgrade`]), and waits until the re-executed runtime answers.
//! This module must never signal a process it has not tied to the socket and to our uid:
//! the pid comes from the runtime's own word, so it is checked against the kernel's.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use devint::wire::pb;
use rustix::process::{Pid, Signal};
use serde_json::json;

use crate::connect;
use crate::exit::{CliError, Exit};
use crate::output::Out;
use crate::socket::SocketChoice;

/// How long `stop` and `restart` wait for the runtime to do it.
const WAIT: Duration = Duration::from_secs(30);

/// What to ask of the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// SIGTERM: stop.
    Stop,
    /// SIGHUP: re-execute the binary at its path, keeping the socket.
    Restart,
}

impl Ask {
    fn name(self) -> &'static str {
        match self {
            Ask::Stop => "stop",
            Ask::Restart => "restart",
        }
    }
}

/// The runtime that answered, tied to a process of ours.
struct Target {
    pid: u32,
    executable: String,
    started: u64,
}

/// Run `devint stop` or `devint restart` on the runtime at `socket`.
pub async fn run(out: &Out, choice: &SocketChoice, ask: Ask) -> Result<Exit, CliError> {
    let socket = choice.path();
    let negotiated = match connect::negotiate(choice).await {
        // As `systemctl stop`: a runtime that is not running is already stopped.
        Err(e) if ask == Ask::Stop && e.exit == Exit::NotRunning => {
            let doc =
                json!({ "pid": null, "socket": socket.display().to_string(), "running": false });
            out.result("stop", None, &doc, |_| {
                format!(
                    "no devint runtime is running at {}; nothing to stop",
                    socket.display()
                )
            })?;
            return Ok(Exit::Ok);
        }
        other => other?,
    };
    let info = negotiated.info.clone();
    let target = identify(socket, negotiated.client.provenance()).map_err(|e| {
        e.with_runtime(&info)
            .context(&format!("`devint {}` refused", ask.name()))
    })?;
    drop(negotiated);
    let pid = Pid::from_raw(target.pid as i32)
        .ok_or_else(|| CliError::internal(format!("pid {} is not a pid", target.pid)))?;
    if ask == Ask::Restart {
        // The re-executed runtime is told from the old one by its start time (seconds):
        // let the second in which the old one started pass first.
        while crate::words::now_unix_secs() <= target.started {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let signal = match ask {
        Ask::Stop => Signal::TERM,
        Ask::Restart => Signal::HUP,
    };
    rustix::process::kill_process(pid, signal).map_err(|e| {
        CliError::internal(format!(
            "cannot signal the runtime (pid {}): {e}",
            target.pid
        ))
    })?;
    let deadline = Instant::now() + WAIT;
    let done = match ask {
        Ask::Stop => loop {
            if !alive(target.pid) {
                break true;
            }
            if Instant::now() > deadline {
                break false;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        },
        Ask::Restart => loop {
            if let Ok(n) = connect::negotiate(choice).await {
                if n.client
                    .provenance()
                    .is_some_and(|p| p.pid == target.pid && p.started_at_unix_secs > target.started)
                {
                    break true;
                }
            }
            if Instant::now() > deadline || !alive(target.pid) {
                break false;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        },
    };
    if !done {
        return Err(CliError::internal(format!(
            "the runtime (pid {}) did not {} within {}s",
            target.pid,
            ask.name(),
            WAIT.as_secs()
        ))
        .fix(format!(
            "look at its log (journalctl --user -u devint, or the terminal running serve); \
             `kill -TERM {}` stops it",
            target.pid
        )));
    }
    let doc = json!({ "pid": target.pid, "executable": target.executable, "socket": socket.display().to_string() });
    out.result(ask.name(), Some(&info), &doc, |_| match ask {
        Ask::Stop => format!(
            "stopped the runtime (pid {}) on {}",
            target.pid,
            socket.display()
        ),
        Ask::Restart => format!(
            "restarted the runtime (pid {}) from {} on {}",
            target.pid,
            target.executable,
            socket.display()
        ),
    })?;
    Ok(Exit::Ok)
}

/// Tie the runtime's word (its provenance pid) to the kernel's: the socket is ours, the
/// process is ours, and it runs the executable the runtime named.
fn identify(socket: &Path, provenance: Option<&pb::RuntimeProvenance>) -> Result<Target, CliError> {
    let ours = rustix::process::geteuid().as_raw();
    let Some(p) = provenance else {
        return Err(CliError::new(
            Exit::Unverifiable,
            "the runtime reports no provenance (DI-API below v4), so its pid is unknown",
        )
        .fix("stop it where it runs (Ctrl-C, or its service manager)"));
    };
    let owner = std::fs::symlink_metadata(socket)
        .map(|m| m.uid())
        .map_err(|e| CliError::internal(format!("cannot examine {}: {e}", socket.display())))?;
    if owner != ours {
        return Err(CliError::new(
            Exit::Refuted,
            format!(
                "the socket {} is owned by uid {owner}, not by you (uid {ours})",
                socket.display()
            ),
        )
        .fix("stop only runtimes you started; choose your own socket with --socket"));
    }
    let process = process_of(p.pid)?;
    if process.uid != ours {
        return Err(CliError::new(
            Exit::Refuted,
            format!(
                "the runtime names pid {} as itself, but that process belongs to uid {}, not \
                 to you (uid {ours})",
                p.pid, process.uid
            ),
        )
        .fix("stop only runtimes you started"));
    }
    if !process.runs(Path::new(&p.executable_path)) {
        return Err(CliError::new(
            Exit::Refuted,
            format!(
                "the runtime names pid {} as itself, but that process runs {}, not {}",
                p.pid,
                process.exe.display(),
                p.executable_path
            ),
        )
        .fix("nothing was signalled; stop the runtime where it runs (Ctrl-C, or its service manager)"));
    }
    Ok(Target {
        pid: p.pid,
        executable: p.executable_path.clone(),
        started: p.started_at_unix_secs,
    })
}

/// A process as the kernel shows it.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct Process {
    uid: u32,
    exe: PathBuf,
}

impl Process {
    /// Whether it runs `path`: the same path, or that path replaced since it started (the
    /// kernel then names it `PATH (deleted)`).
    fn runs(&self, path: &Path) -> bool {
        let shown = self.exe.to_string_lossy();
        let path = path.to_string_lossy();
        shown == path || shown.strip_suffix(" (deleted)") == Some(&*path)
    }
}

#[cfg(target_os = "linux")]
fn process_of(pid: u32) -> Result<Process, CliError> {
    let dir = PathBuf::from(format!("/proc/{pid}"));
    let gone = |e: std::io::Error| {
        CliError::new(
            Exit::Refuted,
            format!("the runtime names pid {pid} as itself, but there is no such process ({e})"),
        )
        .fix("the runtime may run in another pid namespace (a container); stop it there")
    };
    let uid = std::fs::metadata(&dir).map_err(gone)?.uid();
    let exe = std::fs::read_link(dir.join("exe")).map_err(gone)?;
    Ok(Process { uid, exe })
}

#[cfg(not(target_os = "linux"))]
fn process_of(pid: u32) -> Result<Process, CliError> {
    Err(CliError::new(
        Exit::Unverifiable,
        format!(
            "cannot confirm on this system that pid {pid} is the runtime, so nothing was signalled"
        ),
    )
    .fix(format!(
        "under launchd: `launchctl kickstart -k gui/$(id -u)/{}`; otherwise `kill -TERM {pid}`",
        crate::service::LAUNCHD_LABEL
    )))
}

/// Whether `pid` is still running (not gone, not a zombie waiting for its parent).
fn alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            // The state follows the command name's closing parenthesis.
            Ok(stat) => stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .is_some_and(|state| state != "Z" && state != "X"),
            Err(_) => false,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        Pid::from_raw(pid as i32).is_some_and(|p| rustix::process::test_kill_process(p).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provenance(pid: u32, exe: &str) -> pb::RuntimeProvenance {
        pb::RuntimeProvenance {
            pid,
            executable_path: exe.to_owned(),
            ..pb::RuntimeProvenance::default()
        }
    }

    /// A file owned by us standing in for the socket.
    fn our_socket() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::Builder::new()
            .prefix("dvc")
            .tempdir_in("/tmp")
            .unwrap();
        let path = dir.path().join("devint.sock");
        std::fs::write(&path, "").unwrap();
        (dir, path)
    }

    fn refused(socket: &Path, p: Option<&pb::RuntimeProvenance>) -> CliError {
        match identify(socket, p) {
            Ok(t) => panic!("pid {} was accepted", t.pid),
            Err(e) => e,
        }
    }

    #[test]
    fn a_runtime_without_provenance_is_never_signalled() {
        let (_d, socket) = our_socket();
        let e = refused(&socket, None);
        assert_eq!(e.exit, Exit::Unverifiable);
        assert!(e.message.contains("its pid is unknown"), "{}", e.message);
    }

    #[test]
    fn a_socket_owned_by_someone_else_is_refused() {
        let ours = rustix::process::geteuid().as_raw();
        let (_d, mut socket) = our_socket();
        if ours == 0 {
            // As root, hand our stand-in to another uid.
            let nobody = rustix::process::Uid::from_raw(65534);
            rustix::fs::chown(&socket, Some(nobody), None).unwrap();
        } else {
            // Otherwise a path root owns.
            socket = PathBuf::from("/");
        }
        let me = std::env::current_exe().unwrap();
        let p = provenance(std::process::id(), &me.display().to_string());
        let e = refused(&socket, Some(&p));
        assert_eq!(e.exit, Exit::Refuted);
        assert!(e.message.contains("not by you"), "{}", e.message);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pid_that_runs_another_executable_is_refused() {
        let (_d, socket) = our_socket();
        let p = provenance(std::process::id(), "/usr/local/bin/devint");
        let e = refused(&socket, Some(&p));
        assert_eq!(e.exit, Exit::Refuted);
        assert!(
            e.message.contains("not /usr/local/bin/devint"),
            "{}",
            e.message
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pid_with_no_process_is_refused() {
        let (_d, socket) = our_socket();
        // Above the kernel's pid_max ceiling (2^22): never a process.
        let p = provenance(4_194_305, "/usr/local/bin/devint");
        let e = refused(&socket, Some(&p));
        assert!(e.message.contains("no such process"), "{}", e.message);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn our_own_process_running_the_named_executable_is_accepted() {
        let (_d, socket) = our_socket();
        let me = std::fs::read_link("/proc/self/exe").unwrap();
        let p = provenance(std::process::id(), &me.display().to_string());
        assert!(identify(&socket, Some(&p)).is_ok());
    }

    #[test]
    fn a_replaced_executable_still_names_its_path() {
        let shown = Process {
            uid: 0,
            exe: PathBuf::from("/b/devint (deleted)"),
        };
        assert!(shown.runs(Path::new("/b/devint")));
        assert!(!shown.runs(Path::new("/c/devint")));
    }
}
