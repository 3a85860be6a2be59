//! The driver's client: pre-encoded exchanges over `std` Unix sockets (blocking, or
//! non-blocking under `poll(2)`), so the figures are the servers' cost plus the kernel's,
//! not a client runtime's.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;

use devint::wire::{encode, pb, ClientFrame, Decoder, ServerFrame, ServerToClient};

/// The server-to-client tag of a `Response` frame (spec §2).
pub const TAG_RESPONSE: u8 = 3;
/// The server-to-client tag of a `Denied` frame.
pub const TAG_DENIED: u8 = 4;
/// The server-to-client tag of a `HelloAck` frame.
pub const TAG_HELLO_ACK: u8 = 1;

/// Bytes one reply may take (the protocol's 1 MiB bound plus its header).
const REPLY_BUFFER: usize = (1 << 20) + 16;

/// One exchange: the bytes a client writes and how it reads the answer.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// What the client writes (one write).
    pub request: Vec<u8>,
    /// How the answer is read.
    pub reply: Reply,
}

/// How an answer is read.
#[derive(Clone, Copy, Debug)]
pub enum Reply {
    /// A DI-API frame; its tag must be this one (a `Response` that turned into a `Denied`
    /// would measure the wrong path).
    Frame { tag: u8 },
    /// Exactly this many bytes (the echo server).
    Exact(usize),
}

/// A per-thread reply buffer.
pub struct Buffer(Vec<u8>);

impl Buffer {
    pub fn new() -> Buffer {
        Buffer(vec![0; REPLY_BUFFER])
    }
}

impl Exchange {
    /// Write the request, read the whole answer.
    pub fn run(&self, stream: &mut UnixStream, buf: &mut Buffer) -> io::Result<()> {
        stream.write_all(&self.request)?;
        let mut have = 0;
        loop {
            let n = stream.read(&mut buf.0[have..])?;
            if n == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            have += n;
            if let Some(answer) = self.answered(&buf.0[..have]) {
                return answer;
            }
        }
    }

    /// Whether `bytes`, read since the request was written, are the whole answer: `None`
    /// while more is owed; else whether it is the answer the measurement expects (the
    /// frame's tag; exactly one answer, nothing after it).
    pub fn answered(&self, bytes: &[u8]) -> Option<io::Result<()>> {
        let (total, tag) = match self.reply {
            Reply::Exact(n) => (n, None),
            Reply::Frame { tag } => (frame_len(bytes)?, Some(tag)),
        };
        if bytes.len() < total {
            return None;
        }
        Some(if bytes.len() > total {
            Err(io::Error::other(format!(
                "{} bytes past the answer's {total}",
                bytes.len() - total
            )))
        } else {
            match tag {
                Some(tag) if bytes[0] != tag => Err(io::Error::other(format!(
                    "expected a frame with tag {tag}, got tag {}",
                    bytes[0]
                ))),
                _ => Ok(()),
            }
        })
    }

    /// The same sizes for the echo server: `[u32 request_len][u32 reply_len][request]`,
    /// answered with `reply_len` bytes.
    pub fn echo_form(&self, reply_len: usize) -> Exchange {
        let mut bytes = Vec::with_capacity(8 + self.request.len());
        bytes.extend((self.request.len() as u32).to_le_bytes());
        bytes.extend((reply_len as u32).to_le_bytes());
        bytes.extend(&self.request);
        Exchange {
            request: bytes,
            reply: Reply::Exact(reply_len),
        }
    }
}

/// The whole frame's length once its header is in `bytes`.
fn frame_len(bytes: &[u8]) -> Option<usize> {
    let mut len = 0usize;
    for (i, byte) in bytes.iter().enumerate().skip(1).take(10) {
        len |= usize::from(byte & 0x7f) << (7 * (i - 1));
        if byte & 0x80 == 0 {
            return Some(i + 1 + len);
        }
    }
    None
}

/// The encoded `Hello` offering versions 1–5 (so the answer carries provenance).
pub fn hello() -> Vec<u8> {
    encode(&ClientFrame::Hello(pb::Hello {
        client_name: "side-by-side".into(),
        client_version: "1".into(),
        di_api_versions: vec![1, 2, 3, 4, 5],
        lifecycle_schema_versions: vec![1],
    }))
    .expect("a Hello encodes")
}

/// An encoded `Request`.
pub fn request(verb: pb::Verb, token: &str, tool: &str, plan: Option<pb::PlanArgs>) -> Vec<u8> {
    encode(&ClientFrame::Request(pb::Request {
        request_id: 1,
        verb: verb as i32,
        capability_token: token.to_owned(),
        tool_id: tool.to_owned(),
        plan,
        ..pb::Request::default()
    }))
    .expect("a Request encodes")
}

/// Send `request` on `stream` and decode the answer fully (set-up only: learns the answer's
/// size and checks it is the frame the measurement expects).
pub fn probe(stream: &mut UnixStream, request: &[u8]) -> io::Result<(ServerFrame, usize)> {
    stream.write_all(request)?;
    let mut decoder = Decoder::<ServerToClient>::new();
    let mut pending = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        pending.extend_from_slice(&chunk[..n]);
        let mut input = &pending[..];
        if let Some(frame) = decoder.decode(&mut input).map_err(io::Error::other)? {
            return Ok((frame, pending.len() - input.len()));
        }
    }
}

/// Connect to `path`.
pub fn connect(path: &Path) -> io::Result<UnixStream> {
    UnixStream::connect(path)
}
