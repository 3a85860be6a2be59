//! Bounded NDJSON framing: one JSON value per `\n`-terminated line, at most
//! [`MAX_LINE_BYTES`] bytes per line.
//!
//! This module owns cutting a byte stream into lines without ever holding more than the cap:
//! a line that grows past it is reported as [`Frame::Oversize`] and its remaining bytes are
//! skipped as they arrive, never buffered whole. [`LineFramer`] is sans-IO (bytes in, frames
//! out; the fuzz target drives it); [`LineReader`] is its tokio shell. It must never parse
//! JSON, never allocate past the cap for one line, and never lose the line boundary after an
//! oversize line (the next line is read normally).

use std::collections::VecDeque;
use std::io;

use tokio::io::{AsyncRead, AsyncReadExt};

/// The most bytes one line may hold, its `\n` not counted (1 MiB, like a DI-API frame:
/// exactly 1 MiB is allowed).
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// How many bytes [`LineReader`] asks for per read.
const READ_CHUNK: usize = 64 * 1024;

/// One unit of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A line's bytes, without its `\n` (and without one `\r` before it).
    Line(Vec<u8>),
    /// A line longer than the cap: only its length is known; its bytes were skipped.
    Oversize {
        /// The line's length in bytes, its `\n` not counted.
        len: usize,
    },
}

/// Cuts bytes into [`Frame`]s, holding at most `cap` bytes of an unfinished line.
#[derive(Debug)]
pub struct LineFramer {
    cap: usize,
    buf: Vec<u8>,
    /// `Some(n)`: the current line went over the cap; `n` bytes of it were seen so far.
    skipping: Option<usize>,
}

impl Default for LineFramer {
    fn default() -> Self {
        LineFramer::new(MAX_LINE_BYTES)
    }
}

impl LineFramer {
    /// A framer whose lines may hold at most `cap` bytes.
    pub fn new(cap: usize) -> LineFramer {
        LineFramer {
            cap,
            buf: Vec::new(),
            skipping: None,
        }
    }

    /// Bytes of an unfinished line held now (never more than the cap); the fuzz harness and
    /// the tests check the bound with it.
    #[cfg(any(test, feature = "fuzzing"))]
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Feed `input`; every line it completes is appended to `out`, in order.
    pub fn push(&mut self, mut input: &[u8], out: &mut impl Extend<Frame>) {
        while !input.is_empty() {
            let newline = input.iter().position(|&b| b == b'\n');
            let chunk = &input[..newline.unwrap_or(input.len())];
            if let Some(seen) = self.skipping.as_mut() {
                *seen += chunk.len();
            } else if self.buf.len() + chunk.len() > self.cap {
                // Over the cap: forget what we held and skip the rest of the line.
                self.skipping = Some(self.buf.len() + chunk.len());
                self.buf = Vec::new();
            } else {
                self.buf.extend_from_slice(chunk);
            }
            match newline {
                Some(at) => {
                    out.extend(Some(self.end_line()));
                    input = &input[at + 1..];
                }
                None => input = &[],
            }
        }
    }

    /// The end of input: a last line without its `\n` is still a line (or an oversize one).
    pub fn finish(&mut self) -> Option<Frame> {
        (self.skipping.is_some() || !self.buf.is_empty()).then(|| self.end_line())
    }

    fn end_line(&mut self) -> Frame {
        match self.skipping.take() {
            Some(len) => Frame::Oversize { len },
            None => {
                let mut line = std::mem::take(&mut self.buf);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                Frame::Line(line)
            }
        }
    }
}

/// Reads [`Frame`]s from an async byte stream (the sidecar's stdin).
#[derive(Debug)]
pub struct LineReader<R> {
    input: R,
    framer: LineFramer,
    ready: VecDeque<Frame>,
    chunk: Vec<u8>,
    eof: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader of lines of at most [`MAX_LINE_BYTES`].
    pub fn new(input: R) -> LineReader<R> {
        LineReader::with_cap(input, MAX_LINE_BYTES)
    }

    /// A reader of lines of at most `cap` bytes.
    pub fn with_cap(input: R, cap: usize) -> LineReader<R> {
        LineReader {
            input,
            framer: LineFramer::new(cap),
            ready: VecDeque::new(),
            chunk: vec![0; READ_CHUNK],
            eof: false,
        }
    }

    /// The next frame, or `None` at the end of input.
    pub async fn next(&mut self) -> io::Result<Option<Frame>> {
        loop {
            if let Some(frame) = self.ready.pop_front() {
                return Ok(Some(frame));
            }
            if self.eof {
                return Ok(None);
            }
            let n = match self.input.read(&mut self.chunk).await {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                self.eof = true;
                self.ready.extend(self.framer.finish());
            } else {
                self.framer.push(&self.chunk[..n], &mut self.ready);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(cap: usize, input: &[u8]) -> Vec<Frame> {
        let mut f = LineFramer::new(cap);
        let mut out = Vec::new();
        f.push(input, &mut out);
        out.extend(f.finish());
        out
    }

    fn line(s: &str) -> Frame {
        Frame::Line(s.as_bytes().to_vec())
    }

    #[test]
    fn lines_are_cut_at_newlines_and_a_crlf_loses_its_cr() {
        assert_eq!(
            frames(16, b"a\r\nbc\n\nd"),
            vec![line("a"), line("bc"), line(""), line("d")]
        );
    }

    #[test]
    fn a_line_of_exactly_the_cap_is_allowed_and_one_more_byte_is_oversize() {
        assert_eq!(frames(4, b"abcd\n"), vec![line("abcd")]);
        assert_eq!(
            frames(4, b"abcde\nok\n"),
            vec![Frame::Oversize { len: 5 }, line("ok")]
        );
    }

    #[test]
    fn an_oversize_line_is_skipped_without_being_held() {
        let mut f = LineFramer::new(8);
        let mut out = Vec::new();
        for _ in 0..1000 {
            f.push(b"0123456789", &mut out);
            assert!(f.buffered() <= 8);
        }
        assert!(out.is_empty());
        f.push(b"\n{}\n", &mut out);
        assert_eq!(out, vec![Frame::Oversize { len: 10_000 }, line("{}")]);
    }

    #[test]
    fn an_unterminated_oversize_tail_is_reported_at_the_end() {
        assert_eq!(frames(2, b"abc"), vec![Frame::Oversize { len: 3 }]);
    }

    #[tokio::test]
    async fn the_reader_yields_the_framers_lines_then_none() {
        let input: &[u8] = b"{\"a\":1}\nxx";
        let mut r = LineReader::with_cap(input, 16);
        assert_eq!(r.next().await.unwrap(), Some(line("{\"a\":1}")));
        assert_eq!(r.next().await.unwrap(), Some(line("xx")));
        assert_eq!(r.next().await.unwrap(), None);
        assert_eq!(r.next().await.unwrap(), None);
    }
}
