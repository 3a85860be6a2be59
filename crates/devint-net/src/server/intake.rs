//! A connection's intake: its reads from the socket, and the bytes it has read with
//! `MSG_PEEK` that are still on the socket (decoded, but not yet taken off).
//!
//! Taking bytes off a Unix socket frees the client's send buffer, and the kernel then wakes
//! a client asleep on that socket — even one asleep waiting for its answer, which finds
//! nothing and sleeps again. On a busy host that spurious wake-up costs a context switch
//! each way per answer (docs/benchmarks.md, "answered before the request is taken off the
//! socket"). So while other connections are open the connection task peeks, and the
//! socket's peek offset (`SO_PEEK_OFF`) lets the next peek start after what was peeked
//! before: the bytes of
//! answered requests can stay on the socket and are taken off together, once
//! [`TAKE_OFF_AT`] of them are owed, in one `recv` instead of one per answer. Where the
//! kernel refuses a peek offset, every peek would start at the first byte on the socket
//! again, so what was peeked is taken off as soon as its answers are written.
//!
//! The rules this module keeps, whatever the caller does:
//!
//! - every byte is delivered by [`Intake::read`] exactly once: a plain read (which starts
//!   at the first byte on the socket) or a peek without an offset is preceded by taking
//!   off every byte owed;
//! - bytes owed are a few KiB of the client's own send buffer at most, and never hold up a
//!   client whose send buffer is too small for them: while it owes, the caller asks
//!   [`Intake::check_stall`] every [`STALL_CHECK`], which takes them off when the client
//!   sent nothing since the last check; and the caller takes them off
//!   ([`Intake::take_off`]) before the socket is closed (a socket closed with bytes unread
//!   reports a reset to the client, not the end of the stream).
//!
//! It owns no protocol decision and never blocks: every `recv` here is non-blocking.

use tokio::net::UnixStream;

// Held by every open connection, idle or not: small enough for the 16 KiB per idle
// connection budget; a large frame just takes more reads.
pub(super) const READ_CHUNK: usize = 4 * 1024;

/// Bytes owed (peeked, answered, still on the socket) at which they are taken off: a dozen
/// `status` requests; with the kernel's per-message overhead a twentieth of the default
/// send buffer (`net.core.wmem_default`, 208 KiB). Not more: a take-off frees every message
/// owed in one `recv`, and meanwhile the other connections on its thread wait; at 4 KiB
/// (some fifty requests) that wait put a 16-connection p99 on a current-thread runtime
/// above twice its p50, at 1 KiB it does not, for the same CPU per answer
/// (docs/benchmarks.md, "bytes owed taken off at 1 KiB").
pub(super) const TAKE_OFF_AT: usize = 1024;

/// How often a connection that owes bytes checks that its client still sends: a client
/// whose send buffer (`SO_SNDBUF`, as small as 4.5 KiB) is filled by bytes owed can send
/// again after two of these at the latest. One timer per connection, set when bytes start
/// to be owed (once per [`TAKE_OFF_AT`] at most) and when it fires, never per request.
pub(super) const STALL_CHECK: std::time::Duration = std::time::Duration::from_millis(50);

/// What one read brought.
pub(super) struct Read {
    /// Bytes read (0: the peer closed its side).
    pub(super) n: usize,
    /// Whether the read filled the buffer: more may be waiting on the socket already.
    pub(super) full: bool,
}

/// Whether the socket's peek offset is on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum PeekOffset {
    /// Not asked for yet (a connection that never peeks never asks).
    Unset,
    /// On: a peek starts after the bytes peeked before.
    On,
    /// The kernel refused it: a peek starts at the first byte on the socket.
    Refused,
}

/// A connection's reads, and the bytes it owes the socket.
#[derive(Debug)]
pub(super) struct Intake {
    /// Bytes read with `MSG_PEEK` and still on the socket.
    owed: usize,
    offset: PeekOffset,
    /// Whether the client sent since the stall check last looked.
    read_since_check: bool,
}

impl Intake {
    pub(super) fn new() -> Intake {
        Intake {
            owed: 0,
            offset: PeekOffset::Unset,
            read_since_check: false,
        }
    }

    /// An intake that never turns the peek offset on, as on a kernel that refuses it.
    #[cfg(test)]
    fn without_peek_offset() -> Intake {
        Intake {
            offset: PeekOffset::Refused,
            ..Intake::new()
        }
    }

    /// Whether bytes read are still on the socket.
    pub(super) fn owes(&self) -> bool {
        self.owed > 0
    }

    /// Reads what has arrived into `buf`'s spare capacity; with `peek`, without taking it
    /// off the socket (`MSG_PEEK`), to be taken off by [`Intake::settle`] or
    /// [`Intake::take_off`].
    ///
    /// A read that does not fill the buffer took everything there was: the socket's
    /// readiness is cleared, as tokio's own reads do after a short read, so the next read
    /// waits for the driver to report new bytes instead of asking the socket first (a
    /// `recv` answered `EAGAIN`), and a connection whose client sent again meanwhile waits
    /// its turn behind the other connections the driver woke. Tokio clears readiness only
    /// when the operation in `try_io` says it would block, and only if no new event arrived
    /// while it ran (its readiness tick): the short read is reported to `try_io` as
    /// would-block and its count kept, so a readiness event that raced the read is never
    /// lost. (The kernel also ends a read early at a message carrying descriptors, which
    /// DI-API never sends: the bytes after it wait for that client's next bytes or its
    /// timeout, and no other connection waits.)
    pub(super) async fn read(
        &mut self,
        stream: &UnixStream,
        buf: &mut Vec<u8>,
        peek: bool,
    ) -> std::io::Result<Read> {
        if peek && self.offset == PeekOffset::Unset {
            self.offset = if set_peek_offset_to_start(stream) {
                PeekOffset::On
            } else {
                PeekOffset::Refused
            };
        }
        // Without an offset, both a plain read and a peek start at the first byte on the
        // socket: what was peeked before must be off it first, or it is read again.
        if self.owes() && (!peek || !self.peeks_past_owed()) {
            self.take_off(stream)?;
        }
        if buf.len() == buf.capacity() {
            buf.reserve(READ_CHUNK);
        }
        let flags = if peek {
            rustix::net::RecvFlags::PEEK
        } else {
            rustix::net::RecvFlags::empty()
        };
        let read = loop {
            // Polled for readiness (not `readable()`), so each read spends the task's
            // cooperative budget, as tokio's own reads do.
            std::future::poll_fn(|cx| stream.poll_read_ready(cx)).await?;
            let room = buf.capacity() - buf.len();
            let mut short = None;
            let read = stream.try_io(tokio::io::Interest::READABLE, || {
                let (n, _) = rustix::net::recv(stream, rustix::buffer::spare_capacity(buf), flags)?;
                if n > 0 && n < room {
                    short = Some(n);
                    return Err(std::io::ErrorKind::WouldBlock.into());
                }
                Ok(n)
            });
            match (read, short) {
                (_, Some(n)) => break Read { n, full: false },
                (Ok(n), None) => break Read { n, full: n == room },
                (Err(e), None) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                (Err(e), None) => return Err(e),
            }
        };
        if peek {
            self.owed += read.n;
        }
        self.read_since_check |= read.n > 0;
        Ok(read)
    }

    /// The stall check starts (bytes are owed and the caller waits for the client): only
    /// what the client sends from now on counts.
    pub(super) fn watch_stalls(&mut self) {
        self.read_since_check = false;
    }

    /// The stall check: when the client sent nothing since the last check, it may be
    /// unable to (its send buffer full of the bytes owed), so they are taken off. True when
    /// bytes are still owed: check again after another [`STALL_CHECK`].
    pub(super) fn check_stall(&mut self, stream: &UnixStream) -> std::io::Result<bool> {
        if !std::mem::take(&mut self.read_since_check) {
            self.take_off(stream)?;
        }
        Ok(self.owes())
    }

    /// Called once the answers to everything read are written: takes the bytes owed off
    /// the socket when there are [`TAKE_OFF_AT`] of them, or at once when peeks cannot
    /// start after them (no peek offset).
    pub(super) fn settle(&mut self, stream: &UnixStream) -> std::io::Result<()> {
        if self.owed >= TAKE_OFF_AT || (self.owes() && !self.peeks_past_owed()) {
            self.take_off(stream)?;
        }
        Ok(())
    }

    /// Whether a peek starts after the bytes owed (the peek offset is on).
    fn peeks_past_owed(&self) -> bool {
        self.offset == PeekOffset::On
    }

    /// Takes every byte owed off the socket.
    pub(super) fn take_off(&mut self, stream: &UnixStream) -> std::io::Result<()> {
        let mut scratch = [0u8; READ_CHUNK];
        while self.owed > 0 {
            let want = self.owed.min(scratch.len());
            let (got, _) = rustix::net::recv(
                stream,
                &mut scratch[..want],
                rustix::net::RecvFlags::empty(),
            )?;
            if got == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            // With the peek offset on, the kernel moves it back by what is taken off, so
            // the next peek still starts after everything peeked.
            self.owed -= got;
        }
        Ok(())
    }
}

/// Turns the socket's peek offset on, at the first byte on the socket (nothing has been
/// peeked yet). False when the kernel refuses (`SO_PEEK_OFF` is Linux's, on Unix stream
/// sockets since 4.x).
fn set_peek_offset_to_start(stream: &UnixStream) -> bool {
    use std::os::fd::AsRawFd;
    let start: libc::c_int = 0;
    // SAFETY: `setsockopt` reads `size_of::<c_int>()` bytes from a pointer to a live
    // `c_int` on this stack frame, and the descriptor is borrowed from `stream`, open for
    // the whole call. Neither rustix nor socket2 wraps `SO_PEEK_OFF`.
    #[allow(unsafe_code)]
    let rc = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEEK_OFF,
            std::ptr::from_ref(&start).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    rc == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    /// Reads once from `server` into a fresh buffer and returns the bytes.
    async fn read(intake: &mut Intake, server: &UnixStream, peek: bool) -> Vec<u8> {
        let mut buf = Vec::with_capacity(READ_CHUNK);
        let read = intake.read(server, &mut buf, peek).await.unwrap();
        assert_eq!(read.n, buf.len());
        buf
    }

    /// Peeks, plain reads and take-offs in every order deliver each byte once, in order,
    /// with the peek offset on and without it (the bytes peeked stay owed until settled).
    async fn every_byte_is_read_once(mut intake: Intake) {
        let (mut client, server) = UnixStream::pair().unwrap();
        let mut seen = Vec::new();
        let mut sent = Vec::new();
        // (peek?, settle after?) for each message; a message is sent only once the one
        // before it was read, so each read takes exactly one message.
        let steps = [
            (true, false),
            (true, false),
            (true, true),
            (false, false),
            (true, false),
            (false, true),
            (true, true),
            (true, false),
        ];
        for (i, (peek, settle)) in steps.into_iter().enumerate() {
            let message = vec![i as u8 + 1; 10 + i];
            client.write_all(&message).await.unwrap();
            sent.extend_from_slice(&message);
            let bytes = read(&mut intake, &server, peek).await;
            assert_eq!(bytes, message, "step {i}: the next message, and only it");
            seen.extend_from_slice(&bytes);
            if settle {
                intake.settle(&server).unwrap();
            }
        }
        intake.take_off(&server).unwrap();
        assert!(!intake.owes());
        assert_eq!(seen, sent);
        // Nothing is left on the socket: the client's end of stream is the next read.
        client.shutdown().await.unwrap();
        assert_eq!(read(&mut intake, &server, false).await, b"");
    }

    #[tokio::test]
    async fn every_byte_is_read_once_with_the_peek_offset() {
        every_byte_is_read_once(Intake::new()).await;
    }

    #[tokio::test]
    async fn every_byte_is_read_once_without_the_peek_offset() {
        every_byte_is_read_once(Intake::without_peek_offset()).await;
    }

    #[tokio::test]
    async fn with_the_peek_offset_answered_bytes_stay_owed_until_enough_of_them() {
        let (mut client, server) = UnixStream::pair().unwrap();
        let mut intake = Intake::new();
        let message = [9u8; 100];
        let mut owed = 0;
        while owed + message.len() < TAKE_OFF_AT {
            client.write_all(&message).await.unwrap();
            assert_eq!(read(&mut intake, &server, true).await, message);
            intake.settle(&server).unwrap();
            owed += message.len();
            assert!(intake.owes(), "below the mark, nothing is taken off");
        }
        client.write_all(&message).await.unwrap();
        read(&mut intake, &server, true).await;
        intake.settle(&server).unwrap();
        assert!(!intake.owes(), "at the mark, everything is taken off");
    }

    #[tokio::test]
    async fn a_stall_check_takes_off_what_is_owed_only_when_nothing_was_read_since_the_last() {
        let (mut client, server) = UnixStream::pair().unwrap();
        let mut intake = Intake::new();
        client.write_all(b"first").await.unwrap();
        read(&mut intake, &server, true).await;
        intake.watch_stalls();
        client.write_all(b"second").await.unwrap();
        read(&mut intake, &server, true).await;
        assert!(
            intake.check_stall(&server).unwrap(),
            "the client sent: still owed"
        );
        assert!(intake.owes());
        assert!(
            !intake.check_stall(&server).unwrap(),
            "nothing sent since: taken off"
        );
        assert!(!intake.owes());
        // Nothing is left on the socket: the client's end of stream is the next read.
        client.shutdown().await.unwrap();
        assert_eq!(read(&mut intake, &server, false).await, b"");
    }

    #[tokio::test]
    async fn without_the_peek_offset_answered_bytes_are_taken_off_at_once() {
        let (mut client, server) = UnixStream::pair().unwrap();
        let mut intake = Intake::without_peek_offset();
        client.write_all(b"one").await.unwrap();
        read(&mut intake, &server, true).await;
        intake.settle(&server).unwrap();
        assert!(!intake.owes());
    }
}
