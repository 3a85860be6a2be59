//! Meeting a runtime that hands its socket over to its next executable (an upgrade, a
//! SIGHUP, `devint restart`): the connection is made again once when the runtime closed it
//! before its `HelloAck`, and a runtime being upgraded to this client's own binary is asked
//! again until it has re-executed ([`devint::provenance::upgrade_in_progress`]), at most
//! for [`UPGRADE_WINDOW`].
//!
//! This module owns what the client sees of the file at the runtime's executable path
//! ([`sight_executable`]: is it this client's binary, when did it change) and the loop that
//! waits. It must never judge a runtime: the connection it returns is assessed by the
//! spec §8 rules like any other ([`super::assess_standing`]), and when the window passes
//! it returns the runtime as it last answered, for that judgement to refuse.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use devint::provenance::{upgrade_in_progress, ExecutableSighting, SightedFile, UPGRADE_WINDOW};
use devint::time::UnixSecs;

use super::connection::{ClientOptions, DevIntClient, NegotiatedClient};
use super::error::ClientIoError;
use crate::provenance::FileStamp;

/// How long a client waits before asking a runtime being upgraded again.
const ASK_AGAIN_AFTER: Duration = Duration::from_millis(50);

impl DevIntClient {
    /// [`DevIntClient::connect_with`] through a hand-over: a connection the runtime closed
    /// before its `HelloAck` (it was handing its socket over; nothing but `Hello` was sent)
    /// is made again, once; a runtime being upgraded to this client's own binary is asked
    /// again every 50 ms until it answers otherwise, for at most
    /// [`UPGRADE_WINDOW`]. The connection returned is the one to judge (spec §8).
    pub async fn connect_through_handover(
        path: &Path,
        client_name: &str,
        client_version: &str,
        options: ClientOptions,
    ) -> Result<NegotiatedClient, ClientIoError> {
        let deadline = Instant::now() + UPGRADE_WINDOW;
        let mut reconnected = false;
        let mut sightings = Sightings::default();
        loop {
            let connected =
                DevIntClient::connect_with(path, client_name, client_version, options.clone())
                    .await;
            let client = match connected {
                Err(e) if e.is_closed_before_answer() && !reconnected => {
                    reconnected = true;
                    continue;
                }
                other => other?,
            };
            let Some(provenance) = client.provenance() else {
                return Ok(client);
            };
            if provenance.executable_present || Instant::now() >= deadline {
                return Ok(client);
            }
            let sighting = sightings.of(Path::new(&provenance.executable_path));
            let now = UnixSecs::from_system_time(SystemTime::now());
            if !upgrade_in_progress(Some(provenance), &sighting, now) {
                return Ok(client);
            }
            tracing::debug!(
                pid = provenance.pid,
                "the runtime is being upgraded to this binary; asking again"
            );
            drop(client);
            tokio::time::sleep(ASK_AGAIN_AFTER).await;
        }
    }
}

/// What [`sight_executable`] found, kept while the file stays the same, so waiting
/// compares the bytes of one file once.
#[derive(Default)]
struct Sightings {
    last: Option<(FileStamp, ExecutableSighting)>,
}

impl Sightings {
    fn of(&mut self, path: &Path) -> ExecutableSighting {
        let Some(stamp) = FileStamp::of(path) else {
            return sight_executable(path);
        };
        match &self.last {
            Some((seen, sighting)) if *seen == stamp => *sighting,
            _ => {
                let sighting = sight_executable(path);
                self.last = Some((stamp, sighting));
                sighting
            }
        }
    }
}

/// What this client sees of the file at `path` (a runtime's `executable_path`): whether it
/// is this client's own binary (the very file, or byte for byte identical to it) that this
/// client may execute, nothing runnable, or another binary; and when it last changed (with
/// no file there, when its directory did).
pub fn sight_executable(path: &Path) -> ExecutableSighting {
    let changed_at = |meta: &std::fs::Metadata| u64::try_from(meta.ctime()).ok().map(UnixSecs::new);
    let Ok(meta) = std::fs::metadata(path) else {
        let directory = path.parent().and_then(|d| std::fs::metadata(d).ok());
        return ExecutableSighting {
            file: SightedFile::NotRunnable,
            changed_at: directory.as_ref().and_then(changed_at),
        };
    };
    let runnable = meta.is_file() && rustix::fs::access(path, rustix::fs::Access::EXEC_OK).is_ok();
    let file = if !runnable {
        SightedFile::NotRunnable
    } else if is_own_binary(path, &meta).unwrap_or(false) {
        SightedFile::ThisBinary
    } else {
        SightedFile::AnotherBinary
    };
    ExecutableSighting {
        file,
        changed_at: changed_at(&meta),
    }
}

/// The binary this process runs, opened: on Linux `/proc/self/exe` names the running file
/// even after its path was replaced; elsewhere its path is the best there is.
fn open_own_binary() -> io::Result<File> {
    File::open("/proc/self/exe").or_else(|_| File::open(std::env::current_exe()?))
}

/// Whether the file at `path` (with `meta`) is the binary this process runs: the same file,
/// or the same bytes. The path is the runtime's word, so what is opened there is checked
/// again once open (never blocking on a FIFO put there meanwhile, never reading more than
/// a file of this binary's size).
fn is_own_binary(path: &Path, meta: &std::fs::Metadata) -> io::Result<bool> {
    let own = open_own_binary()?;
    let own_meta = own.metadata()?;
    if (own_meta.dev(), own_meta.ino()) == (meta.dev(), meta.ino()) {
        return Ok(true);
    }
    if own_meta.len() != meta.len() {
        return Ok(false);
    }
    let other = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)?;
    let other_meta = other.metadata()?;
    if !other_meta.is_file() || other_meta.len() != own_meta.len() {
        return Ok(false);
    }
    same_bytes(own, other)
}

/// Whether two readers yield the same bytes.
fn same_bytes(mut a: impl Read, mut b: impl Read) -> io::Result<bool> {
    const CHUNK: usize = 64 * 1024;
    let (mut x, mut y) = (vec![0u8; CHUNK], vec![0u8; CHUNK]);
    loop {
        let n = fill(&mut a, &mut x)?;
        let m = fill(&mut b, &mut y)?;
        if x[..n] != y[..m] {
            return Ok(false);
        }
        if n < CHUNK {
            return Ok(true);
        }
    }
}

/// Read into `buf` until it is full or the reader ends; how many bytes were read.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn this_binary_is_seen_as_itself_and_an_identical_copy_as_this_binary() {
        let me = std::env::current_exe().unwrap();
        assert_eq!(sight_executable(&me).file, SightedFile::ThisBinary);
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("copy");
        std::fs::copy(&me, &copy).unwrap();
        let seen = sight_executable(&copy);
        assert_eq!(seen.file, SightedFile::ThisBinary);
        assert!(seen.changed_at.is_some());
    }

    #[test]
    fn another_program_is_another_binary_and_a_file_nobody_may_run_is_not_runnable() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("script");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(sight_executable(&script).file, SightedFile::AnotherBinary);
        // No execute bit: not even root may run it, so no runtime can re-execute it.
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(sight_executable(&script).file, SightedFile::NotRunnable);
        // Nothing there: when the directory changed stands in for the file's change.
        let missing = sight_executable(&dir.path().join("missing"));
        assert_eq!(missing.file, SightedFile::NotRunnable);
        assert!(missing.changed_at.is_some());
    }

    #[test]
    fn a_fifo_a_device_or_a_file_of_another_size_named_as_the_executable_is_never_read() {
        // The path is the runtime's word: reading a FIFO would block the command for good,
        // a device would never end, a huge file would be read whole.
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o755),
            0,
        )
        .unwrap();
        assert_eq!(sight_executable(&fifo).file, SightedFile::NotRunnable);
        assert_eq!(
            sight_executable(Path::new("/dev/zero")).file,
            SightedFile::NotRunnable
        );
        let big = dir.path().join("big");
        let own = std::fs::metadata(std::env::current_exe().unwrap()).unwrap();
        let file = File::create(&big).unwrap();
        file.set_len(own.len() * 64).unwrap();
        drop(file);
        std::fs::set_permissions(&big, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(sight_executable(&big).file, SightedFile::AnotherBinary);
    }

    #[test]
    fn same_bytes_compares_lengths_and_contents_across_chunks() {
        let long = vec![7u8; 200 * 1024];
        assert!(same_bytes(&long[..], &long[..]).unwrap());
        let mut other = long.clone();
        other[150 * 1024] = 8;
        assert!(!same_bytes(&long[..], &other[..]).unwrap());
        assert!(!same_bytes(&long[..], &long[..long.len() - 1]).unwrap());
        assert!(same_bytes(&[][..], &[][..]).unwrap());
    }
}
