//! Whether a runtime that reports its executable replaced is being upgraded to the binary
//! this very client runs, and so is to be asked again shortly rather than judged now.
//!
//! A runtime serving with `--on-upgrade reexec` notices that the file at its path is no
//! longer its binary, finishes what it was asked, and re-executes the new file on the same
//! socket. Until then its `HelloAck` says `executable_present: false`, which spec §8
//! refutes. When the new file is this client's own binary, that answer describes an
//! upgrade in progress towards this client's build: judging it now would refuse a command
//! that, asked a moment later, meets exactly the runtime it was built for. So the client
//! waits and asks again, and judges the runtime that answers then by the full spec §8
//! rules.
//!
//! The same holds for the moments in which the new file is still being put in place (an
//! `install` removes the old file, writes the new one, then makes it executable): nothing
//! runnable is at the path yet, and a look a moment later tells.
//!
//! This module owns that one rule ([`upgrade_in_progress`]) and its bounds
//! ([`UPGRADE_WINDOW`], [`REPLACING_WINDOW`]); what the client sees of the file is read by
//! the shell (`devint_net::client`). It must never let an answer proceed: an upgrade in
//! progress only defers the judgement, and a runtime whose replacement is another binary
//! than this client's, or that has not re-executed within the window, is judged (and
//! refuted) as before.

use std::time::Duration;

use crate::time::UnixSecs;
use crate::wire::pb;

/// How long after the file at a runtime's path changed an answer reporting it replaced can
/// still be an upgrade in progress to this client's binary: a runtime notices a
/// replacement within a couple of seconds (it looks every second and waits for the file to
/// settle), finishes its in-flight requests within its shutdown grace (5 s), and starts
/// again. Past this, the runtime is not re-executing (a failed re-exec, `--on-upgrade exit`
/// without a service manager, a runtime that does not watch) and is judged as it is.
pub const UPGRADE_WINDOW: Duration = Duration::from_secs(15);

/// How long after it last changed a path with nothing runnable at it (the old file removed,
/// the new one still being written, not yet executable: `install` does all three) can
/// still be a replacement being put in place. Past this, it is a broken upgrade.
pub const REPLACING_WINDOW: Duration = Duration::from_secs(3);

/// What the file now at the runtime's `executable_path` is, as this client sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SightedFile {
    /// This client's own binary: the very file, or one byte for byte identical to it (and
    /// so of the same build), which this client may execute.
    ThisBinary,
    /// Nothing this client may run: no file, or one without the right to execute it (a
    /// replacement still being written, or a broken one).
    NotRunnable,
    /// A runnable file that is not this client's binary: another build, another program.
    AnotherBinary,
}

/// What a client sees, on its own side, of the runtime's `executable_path`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutableSighting {
    /// The file there.
    pub file: SightedFile,
    /// When it last changed (its status change time: a rename, a fresh file, a `chmod`);
    /// with no file there, when its directory last changed (the removal). `None` when that
    /// could not be read.
    pub changed_at: Option<UnixSecs>,
}

/// Whether the runtime that answered with `provenance` is being upgraded to this client's
/// binary: it reports its executable replaced, and the file now at its path is this
/// client's own binary and changed less than [`UPGRADE_WINDOW`] before `now`, or is still
/// being put in place (nothing runnable there yet, changed less than [`REPLACING_WINDOW`]
/// before `now`). A change time after `now` counts as now; the caller bounds its wait by
/// [`UPGRADE_WINDOW`] too.
///
/// `false` for every other answer (another binary at the path, or a replacement older than
/// its window), which is then judged by [`super::Standing::assess`].
pub fn upgrade_in_progress(
    provenance: Option<&pb::RuntimeProvenance>,
    sighting: &ExecutableSighting,
    now: UnixSecs,
) -> bool {
    let Some(peer) = provenance else {
        return false;
    };
    let window = match sighting.file {
        SightedFile::ThisBinary => UPGRADE_WINDOW,
        SightedFile::NotRunnable => REPLACING_WINDOW,
        SightedFile::AnotherBinary => return false,
    };
    !peer.executable_present
        && sighting
            .changed_at
            .is_some_and(|changed| now.duration_since(changed) < window)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: UnixSecs = UnixSecs::new(1_800_000_000);

    fn replaced(present: bool) -> pb::RuntimeProvenance {
        pb::RuntimeProvenance {
            executable_present: present,
            executable_path: "/usr/local/bin/devint".into(),
            ..pb::RuntimeProvenance::default()
        }
    }

    fn sighting(file: SightedFile, secs_ago: u64) -> ExecutableSighting {
        ExecutableSighting {
            file,
            changed_at: Some(UnixSecs::new(NOW.get() - secs_ago)),
        }
    }

    fn upgrading(file: SightedFile, secs_ago: u64) -> bool {
        upgrade_in_progress(Some(&replaced(false)), &sighting(file, secs_ago), NOW)
    }

    #[test]
    fn a_runtime_replaced_by_this_binary_within_the_window_is_upgrading() {
        assert!(upgrading(SightedFile::ThisBinary, 0));
        assert!(upgrading(
            SightedFile::ThisBinary,
            UPGRADE_WINDOW.as_secs() - 1
        ));
        assert!(!upgrading(
            SightedFile::ThisBinary,
            UPGRADE_WINDOW.as_secs()
        ));
    }

    #[test]
    fn a_replacement_still_being_put_in_place_is_upgrading_only_for_a_moment() {
        assert!(upgrading(SightedFile::NotRunnable, 0));
        assert!(upgrading(
            SightedFile::NotRunnable,
            REPLACING_WINDOW.as_secs() - 1
        ));
        // A file nobody may run, left as it is: a broken upgrade, judged (and refuted).
        assert!(!upgrading(
            SightedFile::NotRunnable,
            REPLACING_WINDOW.as_secs()
        ));
    }

    #[test]
    fn another_binary_at_the_path_is_never_an_upgrade_to_this_client() {
        assert!(!upgrading(SightedFile::AnotherBinary, 0));
    }

    #[test]
    fn a_path_whose_change_time_is_unknown_is_no_upgrade() {
        for file in [SightedFile::ThisBinary, SightedFile::NotRunnable] {
            let unknown = ExecutableSighting {
                file,
                changed_at: None,
            };
            assert!(!upgrade_in_progress(Some(&replaced(false)), &unknown, NOW));
        }
    }

    #[test]
    fn a_runtime_whose_executable_is_present_or_that_sent_no_provenance_is_not_upgrading() {
        let ours = sighting(SightedFile::ThisBinary, 0);
        assert!(!upgrade_in_progress(Some(&replaced(true)), &ours, NOW));
        assert!(!upgrade_in_progress(None, &ours, NOW));
    }

    #[test]
    fn a_change_time_in_the_future_counts_as_now() {
        let ahead = ExecutableSighting {
            file: SightedFile::ThisBinary,
            changed_at: Some(NOW + Duration::from_secs(30)),
        };
        assert!(upgrade_in_progress(Some(&replaced(false)), &ahead, NOW));
    }
}
