//! One connection's task: it reads frames, drives the session core, runs authorised calls
//! and writes the answers in request order — all on this one task, with no writer task and
//! no channel between them.
//!
//! A call the backend declares non-blocking ([`CallKind::NonBlocking`]) runs right here and
//! its answer is written at once: a round trip costs one wake-up of this task. Any other
//! call (and every mutation, whose audit record is made durable before its answer) runs on
//! the blocking pool; it waits in the connection's ordered queue of in-flight answers, so a
//! client may pipeline up to `max_in_flight` requests and answers still leave in the order
//! the requests arrived, even when a later call finishes first. Answers whose turn has come
//! are written together, each frame whole (spec §2).
//!
//! This task makes no protocol decision: every decision is the session core's
//! ([`AnyConnection`]). It must never block: a call that may block never runs here.

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::Instrument;

use devint::backend::CallKind;
use devint::session::{denied, AnyConnection, DenialCause, Dispatch, ServerEnv, Step};
use devint::time::UnixSecs;
use devint::wire::{encode, encode_into, ClientToServer, Decoder, EncodeError, ServerFrame};

use super::clock::unix_now;
use super::runtime::Shared;

// Held by every open connection, idle or not: small enough for the 16 KiB per idle
// connection budget; a large frame just takes more reads.
const READ_CHUNK: usize = 4 * 1024;

// An answer buffer grown past this by a large answer is given back once written, so an
// idle connection does not keep it.
const KEEP_OUT_CAPACITY: usize = 16 * 1024;

/// An entry of the ordered queue of answers not yet written.
enum Queued {
    /// An answer ready (encoded), waiting for the ones before it.
    Ready(Vec<u8>),
    /// A call running on the blocking pool.
    Running(Running),
}

/// A call running on the blocking pool.
struct Running {
    request_id: u64,
    verb: &'static str,
    started: Instant,
    deadline: Instant,
    /// The encoded answer (encoded on the blocking pool too).
    call: JoinHandle<Result<Vec<u8>, EncodeError>>,
}

pub(crate) async fn run_connection(
    shared: Arc<Shared>,
    stream: UnixStream,
    conn: AnyConnection,
    stop: watch::Receiver<bool>,
) {
    let meta = conn.meta();
    let span = tracing::info_span!("connection", id = meta.id, peer_uid = meta.peer_uid);
    let task = Task {
        queue: VecDeque::new(),
        out: Vec::new(),
        decoder: Decoder::new(),
        reading: true,
        shared,
        stream,
        conn,
    };
    task.drive(stop).instrument(span).await
}

struct Task {
    shared: Arc<Shared>,
    stream: UnixStream,
    conn: AnyConnection,
    decoder: Decoder<ClientToServer>,
    /// Answers not yet written, in request order; the head is the next to go.
    queue: VecDeque<Queued>,
    /// Encoded answers whose turn has come, written by the next flush.
    out: Vec<u8>,
    /// False once the peer closed its side, the session closed, or shutdown began.
    reading: bool,
}

impl Task {
    async fn drive(mut self, mut stop: watch::Receiver<bool>) {
        let limits = self.shared.limits;
        // Read into spare capacity: nothing to zero per connection.
        let mut buf = Vec::with_capacity(READ_CHUNK);
        // `buf[start..]` is read but not yet decoded (decoding pauses while the queue is
        // full).
        let mut start = 0usize;
        // spec[S5-R8-HANDSHAKE-TIMEOUT] §5 rule 8: the handshake deadline counts from
        // accept, not from the last byte, so a peer dribbling a partial `Hello` cannot hold
        // the connection open.
        let hello_deadline = Instant::now() + limits.handshake_timeout;
        let mut last_activity = Instant::now();
        // One timer for the connection's life, moved only when it fires early.
        let timer = tokio::time::sleep_until(hello_deadline);
        tokio::pin!(timer);
        let mut stopping = false;
        loop {
            // Decode what is buffered while there is room in flight.
            while start < buf.len()
                && self.reading
                && self.queue.len() < limits.max_in_flight.max(1)
            {
                let mut input = &buf[start..];
                let decoded = self.decoder.decode(&mut input);
                start = buf.len() - input.len();
                let now = unix_now();
                let step = match decoded {
                    Ok(Some(frame)) => {
                        let shared = &*self.shared;
                        let env = ServerEnv {
                            resolver: &*shared.resolver,
                            backend: &*shared.backend,
                            core_version: &shared.core_version,
                            provenance: &*shared.provenance,
                        };
                        self.conn.handle(frame, &env, now)
                    }
                    Ok(None) => break,
                    Err(error) => {
                        tracing::warn!(%error, "frame refused");
                        self.conn.handle_frame_error(&error, now)
                    }
                };
                self.act(step, now);
            }
            if start == buf.len() {
                buf.clear();
                start = 0;
            }
            self.promote_ready();
            if !self.out.is_empty() && !self.flush(limits.write_timeout).await {
                return;
            }
            if !self.reading && self.queue.is_empty() {
                break;
            }
            let negotiated = self.conn.version().is_some();
            let may_read =
                self.reading && buf.is_empty() && self.queue.len() < limits.max_in_flight.max(1);
            // The handshake deadline, or the idle one while nothing is in flight (a client
            // waiting for its answers is not idle).
            let timed = self.reading && (!negotiated || self.queue.is_empty());
            let head = match self.queue.front_mut() {
                Some(Queued::Running(running)) => Some(running),
                _ => None,
            };
            tokio::select! {
                read = self.stream.read_buf(&mut buf), if may_read => match read {
                    Ok(0) | Err(_) => self.reading = false,
                    Ok(_) => last_activity = Instant::now(),
                },
                outcome = next_answer(head) => {
                    self.answer_head(outcome);
                    last_activity = Instant::now();
                }
                () = &mut timer, if timed => {
                    let due = if negotiated {
                        last_activity + limits.idle_timeout
                    } else {
                        hello_deadline
                    };
                    if Instant::now() < due {
                        timer.as_mut().reset(due);
                    } else {
                        // spec §5 rule 8: no Hello within the handshake timeout → dropped,
                        // audited; an idle negotiated connection is closed.
                        let now = unix_now();
                        let step = self.conn.handle_timeout(now);
                        self.act(step, now);
                    }
                }
                _ = stop.changed(), if !stopping => {
                    stopping = true;
                    self.reading = false;
                }
            }
        }
        let _ = self.stream.shutdown().await;
    }

    /// Act on one step of the session core.
    fn act(&mut self, step: Step, now: UnixSecs) {
        match step {
            Step::Reply {
                frame,
                audit,
                close,
            } => {
                for event in &audit {
                    self.shared.record_refusal(event);
                }
                if let Some(frame) = frame {
                    self.answer(&frame);
                }
                if close {
                    self.reading = false;
                }
            }
            Step::Dispatch(dispatch) => self.dispatch(dispatch, now),
        }
    }

    /// Run an authorised call here if it never blocks, else on the blocking pool.
    fn dispatch(&mut self, dispatch: Dispatch, now: UnixSecs) {
        let verb = dispatch.call().verb();
        let inline = verb.rule().mutation.is_none()
            && self.shared.backend.call_kind(verb) == CallKind::NonBlocking;
        if inline {
            let frame = answer_call(&self.shared, dispatch, now);
            self.answer(&frame);
            return;
        }
        let request_id = dispatch.request_id();
        let shared = Arc::clone(&self.shared);
        // spec[S6-PIPELINE] §6: a slow verb never blocks other connections or the runtime's
        // threads; answers still leave in request order (the queue).
        let call =
            tokio::task::spawn_blocking(move || encode(&answer_call(&shared, dispatch, now)));
        let started = Instant::now();
        self.queue.push_back(Queued::Running(Running {
            request_id,
            verb: verb.token(),
            started,
            deadline: started + self.shared.limits.request_deadline,
            call,
        }));
    }

    /// Queue `frame` behind the answers before it, or make it the next to write.
    fn answer(&mut self, frame: &ServerFrame) {
        if self.queue.is_empty() {
            if let Err(error) = encode_into(frame, &mut self.out) {
                self.unencodable(&error);
            }
        } else {
            match encode(frame) {
                Ok(bytes) => self.queue.push_back(Queued::Ready(bytes)),
                Err(error) => self.unencodable(&error),
            }
        }
    }

    fn unencodable(&mut self, error: &EncodeError) {
        tracing::error!(%error, "an answer could not be encoded; closing");
        self.reading = false;
    }

    /// The head call finished or passed its deadline: its answer is next.
    fn answer_head(&mut self, outcome: CallOutcome) {
        let Some(Queued::Running(running)) = self.queue.pop_front() else {
            return;
        };
        let Running {
            request_id,
            verb,
            started,
            ..
        } = running;
        tracing::debug!(
            request_id,
            verb,
            latency_us = started.elapsed().as_micros() as u64,
            "answered off the async threads"
        );
        let cause = match outcome {
            CallOutcome::Answered(Ok(bytes)) => {
                self.out.extend_from_slice(&bytes);
                return;
            }
            CallOutcome::Answered(Err(error)) => return self.unencodable(&error),
            CallOutcome::Failed(join_error) => {
                tracing::error!(%join_error, request_id, verb, "backend call failed");
                DenialCause::Internal
            }
            CallOutcome::PastDeadline => {
                tracing::warn!(request_id, verb, "backend call passed its deadline");
                DenialCause::Deadline
            }
        };
        let frame = ServerFrame::Denied(denied(request_id, &cause));
        if let Err(error) = encode_into(&frame, &mut self.out) {
            self.unencodable(&error);
        }
    }

    /// Move the answers at the head of the queue that are ready into the write buffer.
    fn promote_ready(&mut self) {
        while let Some(Queued::Ready(_)) = self.queue.front() {
            if let Some(Queued::Ready(bytes)) = self.queue.pop_front() {
                self.out.extend_from_slice(&bytes);
            }
        }
    }

    /// Write every answer whose turn has come; false when the peer is gone or stopped
    /// reading.
    async fn flush(&mut self, write_timeout: std::time::Duration) -> bool {
        // spec[S2-SINGLE-WRITE] §2: every frame is written whole with one write (answers
        // whose turn came together share it); a peer that stops reading is dropped after
        // the write timeout.
        let written = tokio::time::timeout(write_timeout, self.stream.write_all(&self.out)).await;
        self.out.clear();
        if self.out.capacity() > KEEP_OUT_CAPACITY {
            self.out = Vec::new();
        }
        match written {
            Ok(Ok(())) => true,
            Ok(Err(error)) => {
                tracing::debug!(%error, "peer went away");
                false
            }
            Err(_) => {
                tracing::warn!("write timed out: the peer stopped reading; closing");
                false
            }
        }
    }
}

/// How the head call ended.
enum CallOutcome {
    Answered(Result<Vec<u8>, EncodeError>),
    Failed(tokio::task::JoinError),
    PastDeadline,
}

/// The head call's outcome, or never when the head is not a running call.
async fn next_answer(head: Option<&mut Running>) -> CallOutcome {
    let Some(running) = head else {
        return std::future::pending().await;
    };
    match tokio::time::timeout_at(running.deadline, &mut running.call).await {
        Ok(Ok(answer)) => CallOutcome::Answered(answer),
        Ok(Err(join_error)) => CallOutcome::Failed(join_error),
        Err(_) => CallOutcome::PastDeadline,
    }
}

/// Run one authorised call and record its audit events (made durable by a durable sink)
/// before the answer is handed back: the record is written whatever becomes of the
/// connection.
fn answer_call(shared: &Shared, dispatch: Dispatch, now: UnixSecs) -> ServerFrame {
    let answer = dispatch.run(&*shared.backend, now);
    for event in &answer.audit {
        shared.record(event);
    }
    answer.frame
}
