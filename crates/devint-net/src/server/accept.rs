//! The accept loop: peer check before any byte is read, connection limits (an idle
//! connection evicted to make room, audited), back-off on accept errors, graceful shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::UnixListener;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinSet;

use crate::transport::BoundSocket;
use devint::audit::{AuditEvent, AuditKind, ConnectionLimit, EvictedStage};
use devint::peer::verify_peer;
use devint::session::{AnyConnection, Connection};

use super::clock::unix_now;
use super::connection::run_connection;
use super::runtime::{Server, Shared};
use super::slots::{SlotRefusal, Stage};

/// Why `serve` could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The bound socket could not be handed to tokio.
    #[error("could not register the socket with the async runtime: {0}")]
    Register(#[source] std::io::Error),
}

/// How a serve ends: close the socket, or keep it listening for the next executable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Stop listening and remove the socket path if its inode is still ours.
    Close,
    /// Finish in-flight requests, then give the still-listening socket back to the caller
    /// (to hand over to a new executable, `transport::activation::exec_with_socket`).
    HandOver,
}

impl Server {
    /// Serve on `socket` until `shutdown` resolves; then stop accepting, give in-flight
    /// requests the grace period, close every connection and remove the socket if its
    /// inode is still ours.
    pub async fn serve(
        &self,
        socket: BoundSocket,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), ServeError> {
        self.serve_until(socket, async {
            shutdown.await;
            Ending::Close
        })
        .await
        .map(|_| ())
    }

    /// Serve on `socket` until `stop` resolves, then end as it says: [`Ending::Close`] as
    /// [`Server::serve`] does (`Ok(None)`), or [`Ending::HandOver`]: the same drain of
    /// in-flight requests, but the socket stays bound and listening (new connections wait
    /// in its backlog) and is returned.
    pub async fn serve_until(
        &self,
        socket: BoundSocket,
        stop: impl Future<Output = Ending>,
    ) -> Result<Option<BoundSocket>, ServeError> {
        let (listener, guard) = socket.into_tokio().map_err(ServeError::Register)?;
        match self.serve_listener(listener, stop).await {
            Some(listener) => {
                let listener = listener
                    .into_std()
                    .and_then(|l| l.set_nonblocking(false).map(|()| l))
                    .map_err(ServeError::Register)?;
                Ok(Some(BoundSocket::from_parts(listener, guard)))
            }
            None => {
                match guard.close() {
                    Ok(removal) => tracing::info!(?removal, "socket closed"),
                    Err(error) => tracing::warn!(%error, "could not remove the socket"),
                }
                Ok(None)
            }
        }
    }

    /// Accept until `stop`, then stop accepting and drain. The listener is closed first at
    /// [`Ending::Close`], and kept (returned) at [`Ending::HandOver`].
    ///
    /// The accept loop runs as a task of its own ([`accept_until`]), on a worker thread:
    /// the connection task it spawns starts on that worker's own run queue and usually runs
    /// there at once, where an accept loop polled by the caller's thread (a `block_on`, no
    /// worker) hands every new connection to a worker it must wake. Dropping this future
    /// aborts that task and, with it, every connection.
    async fn serve_listener(
        &self,
        listener: UnixListener,
        stop: impl Future<Output = Ending>,
    ) -> Option<UnixListener> {
        let (stop_tx, stop_rx) = watch::channel(false);
        let (halt, halted) = oneshot::channel();
        // A set of one, so that dropping `serve` aborts the loop (a bare handle would not).
        let mut acceptor = JoinSet::new();
        acceptor.spawn(accept_until(
            Arc::clone(&self.shared),
            listener,
            stop_rx,
            halted,
        ));
        // The loop ends only when told to, unless it panicked: that panic is this call's.
        let ending = tokio::select! {
            ending = stop => ending,
            ended = acceptor.join_next() => return ended_early(ended),
        };
        let _ = halt.send(());
        let (listener, mut tasks) = match acceptor.join_next().await {
            Some(Ok(ended)) => ended,
            ended => return ended_early(ended),
        };
        let kept = match ending {
            Ending::HandOver => Some(listener),
            Ending::Close => {
                drop(listener);
                None
            }
        };
        let _ = stop_tx.send(true);
        let grace = self.shared.limits.shutdown_grace;
        let drained =
            tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await;
        if drained.is_err() {
            tracing::warn!(
                remaining = tasks.len(),
                "shutdown grace elapsed; closing connections"
            );
            tasks.shutdown().await;
        }
        kept
    }
}

/// The accept loop's task ended other than by returning: re-raise its panic; cancelled,
/// the runtime is shutting down (and every connection with it), so there is nothing left.
fn ended_early<T>(ended: Option<Result<T, tokio::task::JoinError>>) -> Option<UnixListener> {
    match ended {
        Some(Err(error)) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        _ => None,
    }
}

/// Accept on `listener` until `halted` resolves (or its sender is gone), admitting each
/// connection; then give back the listener, still open, and the connections' tasks.
async fn accept_until(
    shared: Arc<Shared>,
    listener: UnixListener,
    stop: watch::Receiver<bool>,
    mut halted: oneshot::Receiver<()>,
) -> (UnixListener, JoinSet<()>) {
    let mut tasks = JoinSet::new();
    let mut next_id = 1u64;
    let mut backoff = Duration::from_millis(10);
    loop {
        tokio::select! {
            _ = &mut halted => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    backoff = Duration::from_millis(10);
                    let id = next_id;
                    next_id = next_id.wrapping_add(1);
                    admit(&shared, stream, id, &stop, &mut tasks);
                    // Connections that ended since the last accept are reaped here, not
                    // awaited: a loop waiting on the set would be woken (often from the
                    // other worker, which must then be unparked) by every connection's end.
                    // Unreaped, an ended connection's task keeps only its small cell, and
                    // there are never more of them than connections allowed at once.
                    while tasks.try_join_next().is_some() {}
                }
                Err(error) => {
                    // EMFILE and friends: back off instead of spinning.
                    tracing::warn!(%error, ?backoff, "accept failed; backing off");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(1));
                }
            },
        }
    }
    (listener, tasks)
}

fn admit(
    shared: &Arc<Shared>,
    stream: tokio::net::UnixStream,
    id: u64,
    stop: &watch::Receiver<bool>,
    tasks: &mut JoinSet<()>,
) {
    let now = unix_now();
    // spec[S1-PEER-UID] §1: the peer's uid is checked at accept, before any byte is read.
    let peer = match verify_peer(&stream) {
        Ok(p) => p,
        Err(rejected) => {
            tracing::warn!(connection = id, %rejected, "peer rejected");
            // spec[S10-AUTH-FAILURES] §10: rejected peers are audited.
            let mut event = AuditEvent::new(now, AuditKind::PeerRejected).with_connection(id);
            if let devint::peer::PeerRejected::OtherUid { peer, .. } = rejected {
                event = event.with_peer_uid(peer);
            }
            shared.record_refusal(&event);
            return;
        }
    };
    let uid = peer.uid();
    let admission = match shared.slots.acquire(uid, id) {
        Ok(admission) => admission,
        Err(refusal) => {
            let limit = connection_limit(refusal);
            tracing::warn!(
                connection = id,
                uid,
                ?limit,
                "connection refused at a limit: every connection is busy"
            );
            // spec[S10-AUTH-FAILURES] §10: connections refused at a limit are audited.
            shared.record_refusal(
                &AuditEvent::new(now, AuditKind::ConnectionRefusedAtLimit { limit })
                    .with_connection(id)
                    .with_peer_uid(uid),
            );
            // The refused client gets a closed socket, not a hang.
            drop(stream);
            return;
        }
    };
    if let Some(evicted) = admission.evicted {
        // A flood of idle connections cannot lock the user out; the
        // longest-idle connection made room, and that is audited.
        let limit = connection_limit(evicted.limit);
        let stage = match evicted.stage {
            Stage::Handshake => EvictedStage::Handshake,
            Stage::Negotiated => EvictedStage::Negotiated,
            Stage::Authorised => EvictedStage::Authorised,
        };
        tracing::warn!(
            connection = evicted.connection,
            for_connection = id,
            ?limit,
            ?stage,
            "idle connection closed at a limit to make room"
        );
        shared.record_refusal(
            &AuditEvent::new(now, AuditKind::ConnectionEvicted { limit, stage })
                .with_connection(evicted.connection)
                .with_peer_uid(evicted.uid),
        );
    }
    let conn = AnyConnection::new(Connection::new(peer, id));
    let shared = Arc::clone(shared);
    let stop = stop.clone();
    tasks.spawn(run_connection(shared, stream, conn, admission.slot, stop));
}

fn connection_limit(refusal: SlotRefusal) -> ConnectionLimit {
    match refusal {
        SlotRefusal::Total => ConnectionLimit::Total,
        SlotRefusal::PerUid => ConnectionLimit::PerUid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::{BookFile, SharedBook};
    use devint::audit::MemoryAuditSink;
    use devint::testing::CountingBackend;

    /// The accept loop does not wait on its set of connections (which would wake it at
    /// every connection's end); it reaps the ended ones at the next accept, so they do not
    /// pile up. Counted: without the reaping, the set would hold every connection below.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn ended_connections_are_reaped_at_the_next_accept() {
        const CONNECTIONS: usize = 50;
        let dir = tempfile::Builder::new()
            .prefix("dacc")
            .tempdir_in("/tmp")
            .unwrap();
        let private = std::os::unix::fs::PermissionsExt::from_mode(0o700);
        std::fs::set_permissions(dir.path(), private).unwrap();
        let book = SharedBook::open(BookFile::new(dir.path().join("book.json"))).unwrap();
        let server = Server::builder(
            Arc::new(book),
            Arc::new(CountingBackend::default()),
            Arc::new(MemoryAuditSink::new()),
        )
        .build();
        let path = dir.path().join("s.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let (_stop_tx, stop_rx) = watch::channel(false);
        let (halt, halted) = oneshot::channel();
        let shared = Arc::clone(&server.shared);
        let accepting = tokio::spawn(accept_until(shared, listener, stop_rx, halted));
        // Waits for the slot count; a hang guard only, no assertion on time.
        let slots_open = |want: usize| {
            let slots = &server.shared.slots;
            tokio::time::timeout(Duration::from_secs(30), async move {
                while slots.open() != want {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            })
        };
        for n in 0..CONNECTIONS {
            let client = tokio::net::UnixStream::connect(&path).await.unwrap();
            // Accepted (its slot taken), then ended: it reads the end of its stream and its
            // task gives the slot back.
            slots_open(1)
                .await
                .unwrap_or_else(|_| panic!("connection {n} never accepted"));
            drop(client);
            slots_open(0)
                .await
                .unwrap_or_else(|_| panic!("connection {n} never ended"));
        }
        let _ = halt.send(());
        let (_listener, tasks) = accepting.await.unwrap();
        assert!(
            tasks.len() < 5,
            "{} of {CONNECTIONS} ended connections were still held by the accept loop",
            tasks.len()
        );
    }
}
