//! Why a serving runtime stops, and what it does then: SIGINT/SIGTERM stop it, SIGHUP
//! (`devint restart`) re-executes the binary at its path handing over the listening socket,
//! and so does noticing that the executable was replaced (an upgrade), unless
//! `--on-upgrade exit` asks to leave for the service manager to restart it.
//!
//! This module owns the signals and the executable watch; whether the file at the path is
//! still the running binary is provenance's one rule (`RuntimeProvenance::executable_present`),
//! never decided here. It must never close the socket on a hand-over (the transport hands
//! the listening descriptor to the new executable).

use std::time::Duration;

use devint_net::provenance::RuntimeProvenance;
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
    /// Whether to watch the executable: only when it was readable at start, so an
    /// unreadable path never reads as "replaced" over and over.
    watch: bool,
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
            watch: true,
        })
    }

    /// Stop watching the executable (it was unreadable at start, or a re-exec of the
    /// replacement failed: `devint restart` retries by hand).
    pub fn stop_watching(&mut self) {
        self.watch = false;
    }

    /// Wait for the next reason to stop.
    pub async fn next(&mut self, provenance: &RuntimeProvenance) -> Why {
        let mut tick = tokio::time::interval(WATCH_INTERVAL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = self.interrupt.recv() => return Why::Stop,
                _ = self.terminate.recv() => return Why::Stop,
                _ = self.hangup.recv() => return Why::Restart,
                _ = tick.tick(), if self.watch => {
                    if !provenance.executable_present() {
                        return Why::Replaced;
                    }
                }
            }
        }
    }
}
