//! The baseline: a raw Unix-socket echo server, in its own process, on the same tokio
//! runtime as the embedded DI-API server (`roles::runtime`), accepting as
//! `Server::serve` does: in a task of its own on a worker (so a new connection starts on
//! that worker's run queue, not handed over from the `block_on` thread).
//!
//! Per connection it reads `[u32 request_len][u32 reply_len][request bytes]` and answers
//! with `reply_len` bytes: the DI-API exchange's sizes with no protocol work. It reads the
//! way the DI-API server does (one `read` into a buffer, every complete request in it
//! answered) and writes each answer with one `write`, so the two differ only by the
//! protocol's work.

use std::path::Path;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};

/// Serve at `socket` until killed. Prints `ready` once bound.
pub fn run(socket: &Path) {
    let runtime = super::roles::runtime();
    runtime.block_on(async {
        let listener = UnixListener::bind(socket).expect("bind the echo socket");
        super::roles::say_ready();
        let accepting = tokio::spawn(async move {
            loop {
                if let Ok((stream, _)) = listener.accept().await {
                    tokio::spawn(serve(stream));
                }
            }
        });
        let _ = accepting.await;
    });
}

async fn serve(mut stream: UnixStream) {
    let mut pending: Vec<u8> = Vec::with_capacity(4096);
    let mut chunk = vec![0u8; 4096];
    let mut reply = Vec::new();
    loop {
        let n = match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        pending.extend_from_slice(&chunk[..n]);
        let mut used = 0;
        while let Some((request, reply_len)) = parse(&pending[used..]) {
            used += request;
            reply.resize(reply_len, 7);
            if stream.write_all(&reply).await.is_err() {
                return;
            }
        }
        pending.drain(..used);
    }
}

/// `(bytes taken, reply length)` of the first whole request in `bytes`.
fn parse(bytes: &[u8]) -> Option<(usize, usize)> {
    let header: [u8; 8] = bytes.get(..8)?.try_into().ok()?;
    let request = u32::from_le_bytes(header[..4].try_into().ok()?) as usize;
    let reply = u32::from_le_bytes(header[4..].try_into().ok()?) as usize;
    (bytes.len() >= 8 + request).then_some((8 + request, reply))
}
