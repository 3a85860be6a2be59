//! One connection's task: read frames, drive the session core, run authorised calls off
//! the async worker threads, and write answers in request order.
//!
//! The reader and the writer are joined by a bounded FIFO of outgoing answers, so a client
//! may pipeline up to `max_in_flight` requests; answers leave in the order the requests
//! arrived even when a later call finishes first. This task makes no protocol decision:
//! every decision is the session core's ([`AnyConnection`]).

use std::sync::Arc;
use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::UnixStream;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tracing::Instrument;

use devint::session::{denied, Answer, AnyConnection, DenialCause, ServerEnv, Step};
use devint::wire::{encode, ClientToServer, Decoder, ServerFrame};

use super::clock::unix_now;
use super::runtime::Shared;

/// What the writer sends next, in request order.
enum Outgoing {
    /// A frame ready now (`HelloAck`, `Denied`, `Incompatible`). Boxed: the queue's slots
    /// are sized by the largest variant, and a `ServerFrame` holds every view inline.
    Ready(Box<ServerFrame>),
    /// An authorised call running on the blocking pool.
    Running {
        request_id: u64,
        verb: &'static str,
        started: Instant,
        call: JoinHandle<Answer>,
    },
}

// Held by every open connection, idle or not: small enough for the 16 KiB per idle
// connection budget; a large frame just takes more reads.
const READ_CHUNK: usize = 4 * 1024;

pub(crate) async fn run_connection(
    shared: Arc<Shared>,
    stream: UnixStream,
    conn: AnyConnection,
    stop: watch::Receiver<bool>,
) {
    let meta = conn.meta();
    let span = tracing::info_span!("connection", id = meta.id, peer_uid = meta.peer_uid);
    drive(shared, stream, conn, stop).instrument(span).await
}

async fn drive(
    shared: Arc<Shared>,
    stream: UnixStream,
    mut conn: AnyConnection,
    mut stop: watch::Receiver<bool>,
) {
    let (mut reader, writer) = stream.into_split();
    let (tx, rx) = mpsc::channel::<Outgoing>(shared.limits.max_in_flight.max(1));
    // Aborted if this task is (at the end of the shutdown grace), so no writer outlives it
    // holding the socket open.
    let mut writer = AbortOnDrop(tokio::spawn(write_in_order(
        Arc::clone(&shared),
        writer,
        rx,
    )));
    let mut decoder = Decoder::<ClientToServer>::new();
    let mut buf = vec![0u8; READ_CHUNK];
    // spec[S5-R8-HANDSHAKE-TIMEOUT] §5 rule 8: the handshake deadline counts from accept, not from the last byte, so
    // a peer dribbling a partial `Hello` cannot hold the connection open.
    let hello_deadline = tokio::time::Instant::now() + shared.limits.handshake_timeout;
    'read: loop {
        let deadline = if conn.version().is_some() {
            tokio::time::Instant::now() + shared.limits.idle_timeout
        } else {
            // spec §5 rule 8: no Hello within the handshake timeout → dropped, audited.
            hello_deadline
        };
        let read = tokio::select! {
            r = tokio::time::timeout_at(deadline, reader.read(&mut buf)) => r,
            _ = stop.changed() => break 'read,
            () = tx.closed() => break 'read,
        };
        let n = match read {
            Err(_elapsed) => {
                let step = conn.handle_timeout(unix_now());
                process(&shared, step, &tx).await;
                break 'read;
            }
            Ok(Ok(0)) | Ok(Err(_)) => break 'read,
            Ok(Ok(n)) => n,
        };
        let mut input = &buf[..n];
        loop {
            let now = unix_now();
            let step = match decoder.decode(&mut input) {
                Ok(Some(frame)) => {
                    let env = ServerEnv {
                        resolver: &*shared.resolver,
                        backend: &*shared.backend,
                        core_version: &shared.core_version,
                        provenance: &*shared.provenance,
                    };
                    conn.handle(frame, &env, now)
                }
                Ok(None) => break,
                Err(error) => {
                    tracing::warn!(%error, "frame refused");
                    conn.handle_frame_error(&error, now)
                }
            };
            if !process(&shared, step, &tx).await {
                break 'read;
            }
        }
    }
    drop(tx);
    let _ = (&mut writer.0).await;
}

struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Act on one step of the session core; false when the connection must close.
async fn process(shared: &Arc<Shared>, step: Step, tx: &mpsc::Sender<Outgoing>) -> bool {
    match step {
        Step::Reply {
            frame,
            audit,
            close,
        } => {
            for event in &audit {
                shared.record(event);
            }
            if let Some(frame) = frame {
                if tx.send(Outgoing::Ready(Box::new(frame))).await.is_err() {
                    return false;
                }
            }
            !close
        }
        Step::Dispatch(dispatch) => {
            let request_id = dispatch.request_id();
            let verb = dispatch.call().verb().token();
            let backend = Arc::clone(&shared.backend);
            let now = unix_now();
            // spec[S6-PIPELINE] §6: a slow verb never blocks other connections or the
            // runtime's threads; answers still leave in request order (the FIFO above).
            let call = tokio::task::spawn_blocking(move || dispatch.run(&*backend, now));
            let outgoing = Outgoing::Running {
                request_id,
                verb,
                started: Instant::now(),
                call,
            };
            tx.send(outgoing).await.is_ok()
        }
    }
}

async fn write_in_order(
    shared: Arc<Shared>,
    mut writer: OwnedWriteHalf,
    mut rx: mpsc::Receiver<Outgoing>,
) {
    while let Some(outgoing) = rx.recv().await {
        let frame = match outgoing {
            Outgoing::Ready(frame) => *frame,
            Outgoing::Running {
                request_id,
                verb,
                started,
                call,
            } => {
                // The deadline counts from dispatch, not from when this answer's turn came.
                let deadline =
                    tokio::time::Instant::from_std(started + shared.limits.request_deadline);
                let answer = tokio::time::timeout_at(deadline, call).await;
                let frame = match answer {
                    Ok(Ok(answer)) => {
                        for event in &answer.audit {
                            shared.record(event);
                        }
                        answer.frame
                    }
                    Ok(Err(join_error)) => {
                        tracing::error!(%join_error, request_id, verb, "backend call failed");
                        ServerFrame::Denied(denied(request_id, &DenialCause::Internal))
                    }
                    Err(_elapsed) => {
                        tracing::warn!(request_id, verb, "backend call passed its deadline");
                        ServerFrame::Denied(denied(request_id, &DenialCause::Deadline))
                    }
                };
                let outcome = match &frame {
                    ServerFrame::Response(_) => "response",
                    _ => "denied",
                };
                tracing::info!(
                    request_id,
                    verb,
                    outcome,
                    latency_us = started.elapsed().as_micros() as u64,
                    "request answered"
                );
                frame
            }
        };
        let bytes = match encode(&frame) {
            Ok(b) => b,
            Err(error) => {
                tracing::error!(%error, "an answer could not be encoded; closing");
                break;
            }
        };
        // spec[S2-SINGLE-WRITE] §2: a frame is written with a single write of the whole frame; a peer that
        // stops reading is dropped after the write timeout.
        match tokio::time::timeout(shared.limits.write_timeout, writer.write_all(&bytes)).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                tracing::debug!(%error, "peer went away");
                break;
            }
            Err(_) => {
                tracing::warn!("write timed out: the peer stopped reading; closing");
                break;
            }
        }
    }
    let _ = writer.shutdown().await;
}
