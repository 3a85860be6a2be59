//! Where the command's logs go: stderr, or journald's native protocol when stderr is
//! connected to the journal (a systemd service).
//!
//! systemd says a stream is the journal's by `JOURNAL_STREAM=DEVICE:INODE`, and a process
//! checks that its own stderr is that stream (a child that inherited the variable but not
//! the stream must keep writing plain lines). There each event goes to journald as one entry
//! with its fields (`PRIORITY`, `SYSLOG_IDENTIFIER=devint`, `TARGET`, each field of the event
//! as `DEVINT_NAME`, …) through `tracing-journald`, which speaks the protocol over a datagram
//! socket without libsystemd. When journald cannot be reached, logs stay on stderr, which
//! the journal still records line by line. This module must never log to both at once.

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::EnvFilter;

/// The prefix of an event's own fields in the journal (`DEVINT_ERROR`, `DEVINT_EXECUTABLE`).
const FIELD_PREFIX: &str = "DEVINT";

/// Whether `journal_stream` (`JOURNAL_STREAM`'s value) names the stream whose device and
/// inode are `dev` and `ino`.
fn names_stream(journal_stream: &str, dev: u64, ino: u64) -> bool {
    journal_stream
        .split_once(':')
        .and_then(|(d, i)| Some((d.parse::<u64>().ok()?, i.parse::<u64>().ok()?)))
        .is_some_and(|(d, i)| d == dev && i == ino)
}

/// Whether this process's stderr is the journal's stream.
fn stderr_is_the_journal() -> bool {
    let Some(stream) = std::env::var_os("JOURNAL_STREAM") else {
        return false;
    };
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|fd| std::fs::File::from(fd).metadata())
    else {
        return false;
    };
    names_stream(&stream.to_string_lossy(), meta.dev(), meta.ino())
}

/// Install the subscriber: `filter`'s events to journald when stderr is the journal's and
/// journald answers, else to stderr (`colour` when stderr takes it).
pub fn init(filter: EnvFilter, colour: bool) {
    let journald = stderr_is_the_journal()
        .then(|| tracing_journald::layer().ok())
        .flatten()
        .map(|layer| {
            layer
                .with_syslog_identifier("devint".to_owned())
                .with_field_prefix(Some(FIELD_PREFIX.to_owned()))
        });
    let stderr = journald.is_none().then(|| {
        tracing_subscriber::fmt::layer()
            .with_ansi(colour)
            .with_writer(std::io::stderr)
    });
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(journald)
        .with(stderr)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    /// The `JOURNAL_STREAM` value naming `file`'s stream.
    fn stream_of(file: &std::fs::File) -> String {
        let meta = file.metadata().unwrap();
        format!("{}:{}", meta.dev(), meta.ino())
    }

    #[test]
    fn only_the_stream_journal_stream_names_is_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(dir.path().join("stream")).unwrap();
        let meta = file.metadata().unwrap();
        let named = stream_of(&file);
        assert!(names_stream(&named, meta.dev(), meta.ino()));
        assert!(!names_stream(&named, meta.dev(), meta.ino() + 1));
        assert!(!names_stream("", meta.dev(), meta.ino()));
        assert!(!names_stream("8:x", meta.dev(), meta.ino()));
        assert!(!names_stream(
            &format!("{}", meta.ino()),
            meta.dev(),
            meta.ino()
        ));
    }
}
