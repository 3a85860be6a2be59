//! The version probe: run a tool's version command and read what it prints, bounded.
//!
//! Owns running one binary with a cleared environment (only the given `PATH` and `HOME`),
//! in a process group of its own, waiting for it with a real timeout (no polling), and
//! reading at most [`MAX_VERSION_OUTPUT`] bytes of its stdout and stderr. When the timeout
//! expires the whole group is killed, so a script's children die with it. Also owns the
//! `PATH` a version command gets ([`search_path`]): the binary's own folders first (see
//! [`super::locate::own_dirs`]: a `#!/usr/bin/env node` script installed by nvm finds its
//! node there, which a service manager's `PATH` does not hold), then the runtime's `PATH`.
//! Must never read the process environment, pass on any variable but `PATH` and `HOME`,
//! write anything, or wait past the deadline it was given.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

/// At most this much version output is read.
pub const MAX_VERSION_OUTPUT: u64 = 64 * 1024;

/// `first` then `path_env`'s entries as one `PATH`: each directory once, none empty (an
/// empty entry means the working directory), none holding a `:` or not UTF-8 (they cannot
/// be written in a `PATH`).
pub fn search_path(first: &[PathBuf], path_env: &str) -> String {
    let mut entries: Vec<&str> = Vec::new();
    let first = first.iter().filter_map(|d| d.to_str());
    for entry in first.chain(path_env.split(':')) {
        if !entry.is_empty() && !entry.contains(':') && !entries.contains(&entry) {
            entries.push(entry);
        }
    }
    entries.join(":")
}

/// Runs `binary args` and returns what it printed (stdout and stderr interleaved), or
/// `None` when it cannot start, or does not exit and close its output within `timeout`.
pub fn version_output(
    binary: &Path,
    args: &[&str],
    path_env: &str,
    home: &Path,
    timeout: Duration,
) -> Option<String> {
    let deadline = Instant::now() + timeout;
    let (reader, writer) = std::io::pipe().ok()?;
    let mut child = Command::new(binary)
        .args(args)
        .env_clear()
        .env("PATH", path_env)
        .env("HOME", home)
        .stdin(Stdio::null())
        .stdout(writer.try_clone().ok()?)
        .stderr(writer)
        // Own process group, so a timeout kills the script and everything it started.
        .process_group(0)
        .spawn()
        .ok()?;
    // The command holds the pipe's only write ends now (ours went into `Command`, which is
    // dropped): the reader sees end-of-file once the group has closed them.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = reader.take(MAX_VERSION_OUTPUT).read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    let exited = matches!(child.wait_timeout(timeout), Ok(Some(_)));
    if !exited {
        kill_group(&mut child);
        return None;
    }
    // A descendant that outlives the binary may hold the pipe open: never wait past the
    // deadline for it, and take the group down if it does.
    match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(_) => {
            signal_group(child.id());
            None
        }
    }
}

/// Kills the still-unreaped child's process group, then reaps the child.
fn kill_group(child: &mut Child) {
    // Not yet reaped, so the group id is still ours to signal.
    signal_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

fn signal_group(pid: u32) {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_path_puts_the_own_folders_first_and_drops_what_path_cannot_hold() {
        let first = [
            PathBuf::from("/a/bin"),
            PathBuf::from("/odd:dir"),
            PathBuf::from("/usr/bin"),
        ];
        assert_eq!(
            search_path(&first, "/usr/bin::/bin:/a/bin:"),
            "/a/bin:/usr/bin:/bin"
        );
        assert_eq!(search_path(&[], ""), "");
    }
}
