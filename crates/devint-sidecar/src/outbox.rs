//! The one way out to the host: complete lines, in the order they were queued, written by a
//! single writer task (so two lines never interleave and each session's answers keep their
//! order).
//!
//! This module owns the bounded queue between the sidecar's tasks and its stdout and the
//! writer that drains it. When the host stops reading, the queue fills and every producer
//! waits (backpressure reaches the line reader, which stops reading stdin): nothing grows
//! without bound. It must never write a partial line, and never write after the host
//! closed its end.

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;

use crate::error::SidecarError;
use crate::rpc::{error_line, notification_line, response_line, RequestId};

/// Lines queued for the host at most before producers wait.
const QUEUE: usize = 256;

/// A producer's handle on the way out.
#[derive(Debug, Clone)]
pub struct Outbox {
    tx: mpsc::Sender<String>,
}

impl Outbox {
    /// A queue and the task body that writes it to `output`; the writer ends when every
    /// [`Outbox`] is dropped (after writing everything queued) or the host closed `output`.
    pub fn new<W>(
        output: W,
    ) -> (
        Outbox,
        impl std::future::Future<Output = std::io::Result<()>>,
    )
    where
        W: AsyncWrite + Unpin,
    {
        let (tx, rx) = mpsc::channel(QUEUE);
        (Outbox { tx }, write_lines(rx, output))
    }

    /// Queue one line (without its `\n`). False when the writer is gone (the host closed its
    /// end): there is nobody left to tell.
    pub async fn line(&self, line: String) -> bool {
        self.tx.send(line).await.is_ok()
    }

    /// Queue a successful response.
    pub async fn result(&self, id: &RequestId, result: serde_json::Value) -> bool {
        self.line(response_line(id, result)).await
    }

    /// Queue an error response.
    pub async fn error(&self, id: Option<&RequestId>, error: &SidecarError) -> bool {
        self.line(error_line(id, error)).await
    }

    /// Queue a notification.
    pub async fn notify(&self, method: &str, params: serde_json::Value) -> bool {
        self.line(notification_line(method, params)).await
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut rx: mpsc::Receiver<String>,
    output: W,
) -> std::io::Result<()> {
    let mut out = BufWriter::new(output);
    while let Some(line) = rx.recv().await {
        out.write_all(line.as_bytes()).await?;
        out.write_all(b"\n").await?;
        // Flush once the queue is momentarily empty: lines reach the host promptly, and a
        // burst is one write.
        while let Ok(line) = rx.try_recv() {
            out.write_all(line.as_bytes()).await?;
            out.write_all(b"\n").await?;
        }
        out.flush().await?;
    }
    out.flush().await?;
    out.shutdown().await
}
