//! Why a serving runtime stops, and what it does then: SIGINT/SIGTERM stop it, SIGHUP
//! (`devint restart`) re-executes the binary at its path handing over the listening socket,
//! and so does noticing that the executable was replaced (an upgrade), unless
//! `--on-upgrade exit` asks to leave for the service manager to restart it.
//!
//! This module owns the signals and the executable watch; whether the file at the path is
//! still the running binary is provenance's one rule (`RuntimeProvenance::executable_present`),
//! never decided here. The watch re-executes a replacement only once it looks the same at
//! two looks in a row (an `install` or a copy still writing it is left to finish), and
//! after a replacement that could not be run it waits for the file at the path to change
//! again. It must never close the socket on a hand-over (the transport hands the listening
//! descriptor to the new executable).

use std::path::Path;
use std::time::Duration;

use devint_net::provenance::{FileStamp, RuntimeProvenance};
use tokio::signal::unix::{signal, Signal, SignalKind};

use crate::exit::CliError;

/// How often the runtime looks at its executable's path.
pub const WATCH_INTERVAL: Duration = Duration::from_secs(1);

/// What `serve` does when its executable is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OnUpgrade {
    /// Finish in-flight requests, then re-execute the new binary on the same socket.
    #[default]
    Reexec,
    /// Finish in-flight requests, then exit with status 75 for the service manager to
    /// restart it.
    Exit,
}

/// Why the serve loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// SIGINT or SIGTERM: stop.
    Stop,
    /// SIGHUP (`devint restart`): re-execute the binary at the path.
    Restart,
    /// The executable at the path was replaced.
    Replaced,
}

/// The signal handlers, installed before anything says "serving" (so a signal sent right
/// after can never hit the default action), and the executable watch.
pub struct Stops {
    interrupt: Signal,
    terminate: Signal,
    hangup: Signal,
    watch: Watch,
}

/// What the executable watch knows.
#[derive(Debug)]
enum Watch {
    /// Not watching: the executable's path was unreadable at start, so an unreadable path
    /// never reads as "replaced" over and over.
    Off,
    /// Watching the file at the executable's path.
    On {
        /// The file there at the last look, when it was not the running binary (`None`:
        /// it was, or nothing was there).
        seen: Option<FileStamp>,
        /// The replacement a re-execution could not run: not tried again until the file
        /// at the path changes.
        failed: Option<FileStamp>,
    },
}

impl Watch {
    /// Start watching.
    const fn on() -> Watch {
        Watch::On {
            seen: None,
            failed: None,
        }
    }

    /// One look at the executable's path: whether the running binary is still `present`
    /// there, else what is there `now`. True when a replacement is there that looked the
    /// same at the last look too (nobody is still writing it) and is not the one that could
    /// not be run.
    fn look(&mut self, present: bool, now: Option<FileStamp>) -> bool {
        let Watch::On { seen, failed } = self else {
            return false;
        };
        if present {
            *seen = None;
            return false;
        }
        let settled = now.is_some() && now == *seen && now != *failed;
        *seen = now;
        settled
    }

    /// A re-execution could not run `replacement`: leave it be until the file changes.
    fn failed_on(&mut self, replacement: Option<FileStamp>) {
        if let Watch::On { seen, failed } = self {
            *failed = replacement;
            *seen = None;
        }
    }
}

impl Stops {
    /// Install the handlers.
    pub fn install() -> Result<Stops, CliError> {
        let install = |kind| {
            signal(kind)
                .map_err(|e| CliError::internal(format!("cannot install a signal handler: {e}")))
        };
        Ok(Stops {
            interrupt: install(SignalKind::interrupt())?,
            terminate: install(SignalKind::terminate())?,
            hangup: install(SignalKind::hangup())?,
            watch: Watch::on(),
        })
    }

    /// Stop watching the executable (its path was unreadable at start).
    pub fn stop_watching(&mut self) {
        self.watch = Watch::Off;
    }

    /// A re-execution of the file now at `path` could not run it: leave that file be until
    /// it changes (`devint restart` retries by hand).
    pub fn re_exec_failed(&mut self, path: &Path) {
        self.watch.failed_on(FileStamp::of(path));
    }

    /// Wait for the next reason to stop.
    pub async fn next(&mut self, provenance: &RuntimeProvenance) -> Why {
        let mut tick = tokio::time::interval(WATCH_INTERVAL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let watching = matches!(self.watch, Watch::On { .. });
        loop {
            tokio::select! {
                _ = self.interrupt.recv() => return Why::Stop,
                _ = self.terminate.recv() => return Why::Stop,
                _ = self.hangup.recv() => return Why::Restart,
                _ = tick.tick(), if watching => {
                    let present = provenance.executable_present();
                    let now = (!present)
                        .then(|| FileStamp::of(provenance.executable_path()))
                        .flatten();
                    if self.watch.look(present, now) {
                        return Why::Replaced;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stamp of `path` after writing `text` to it.
    fn written(path: &Path, text: &str) -> Option<FileStamp> {
        std::fs::write(path, text).unwrap();
        FileStamp::of(path)
    }

    #[test]
    fn a_replacement_is_re_executed_only_once_it_looks_the_same_twice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("devint");
        let mut watch = Watch::on();
        assert!(!watch.look(true, None));
        let first = written(&path, "new");
        assert!(!watch.look(false, first), "seen once");
        // Still being written: it changed since the last look.
        let more = written(&path, "new, longer");
        assert!(!watch.look(false, more));
        assert!(watch.look(false, more), "unchanged since the last look");
    }

    #[test]
    fn nothing_at_the_path_is_never_re_executed() {
        let mut watch = Watch::on();
        for _ in 0..3 {
            assert!(!watch.look(false, None));
        }
    }

    #[test]
    fn a_replacement_that_could_not_run_is_retried_only_once_the_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("devint");
        let broken = written(&path, "not runnable");
        let mut watch = Watch::on();
        watch.failed_on(broken);
        for _ in 0..3 {
            assert!(!watch.look(false, broken));
        }
        let fixed = written(&path, "runnable now");
        assert!(!watch.look(false, fixed));
        assert!(watch.look(false, fixed));
    }

    #[test]
    fn a_watch_that_is_off_never_fires() {
        let dir = tempfile::tempdir().unwrap();
        let stamp = written(&dir.path().join("devint"), "x");
        let mut watch = Watch::Off;
        assert!(!watch.look(false, stamp));
        assert!(!watch.look(false, stamp));
    }
}
