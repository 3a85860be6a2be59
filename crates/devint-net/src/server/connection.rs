//! One connection's task: it reads frames, drives the session core, runs authorised calls
//! and writes the answers in request order — all on this one task, with no writer task and
//! no channel between them.
//!
//! A call the backend declares non-blocking ([`CallKind::NonBlocking`]) runs right here and
//! its answer is written at once: a round trip costs one wake-up of this task. A brief call
//! ([`CallKind::Brief`]: a few small local file reads) runs right here too, inside
//! `block_in_place` on a multi-threaded runtime, so this worker's other tasks move to another
//! thread while it reads. Any other call (and every mutation, whose audit record is made
//! durable before its answer) runs on the blocking pool; it waits in the connection's
//! ordered queue of in-flight answers, so a client may pipeline up to `max_in_flight`
//! requests and answers still leave in the order the requests arrived, even when a later
//! call finishes first. Answers whose turn has come
//! are written together, each frame whole (spec §2).
//!
//! Taking a request off the socket frees the client's send buffer, which wakes a client
//! already waiting for its answer. Once negotiated, while other connections are open, a
//! read that starts at a frame boundary therefore peeks (`MSG_PEEK`): the request stays on
//! the socket past its answer, and the bytes of answered requests are taken off together,
//! a few KiB at a time, so that a client woken early cannot push the worker off the
//! connections waiting for it and most answers cost no take-off at all ([`super::intake`]
//! owns those reads and the bytes owed; docs/benchmarks.md measures it: "answered before
//! the request is taken off the socket", "fewer wake-ups and allocations per answer").
//! A connection that is the only one open, or has not negotiated yet, reads and takes off
//! at once: nothing waits for its worker, and the early wake-up overlaps the
//! client's own wake-up with the work on its request — on a host where waking an idle CPU
//! is slow, that is most of a round trip (docs/benchmarks.md, "a connection alone takes its
//! request off at once"). While it
//! owes the socket bytes, the task checks every [`STALL_CHECK`] that its client still
//! sends, and takes them off if not: they may be what fills a small send buffer.
//!
//! A read that took everything there was clears the socket's readiness (as tokio's own
//! reads do), so the next read waits for the driver's word, in turn with the other
//! connections, with no `recv` answered `EAGAIN` first; after a read that filled the
//! buffer, the task yields its worker before reading on, so one client that always has
//! requests waiting cannot keep the other connections on that worker waiting (not after a
//! call in `block_in_place`, whose worker's other tasks have moved on already).
//!
//! When the server stops or hands its socket over, each connection is shut for reading:
//! everything its client wrote until then is still read and answered, and a write after
//! that fails in the client's own kernel, so a client always knows whether a request it
//! sent was received (`ClientIoError::ClosedBeforeSending` says it was not). A connection
//! is never closed with a request it read left unanswered (short of the shutdown grace).
//!
//! This task makes no protocol decision: every decision is the session core's
//! ([`AnyConnection`]). It must never block a worker: a call that may block runs here only
//! inside `block_in_place`, never bare.

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::io::AsyncWriteExt;
use tokio::net::UnixStream;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::Instrument;

use devint::audit::{AuditEvent, AuditKind};
use devint::backend::{CallKind, CancelSignal, LifecycleError};
use devint::session::{denied, AnyConnection, DenialCause, Dispatch, Reply, ServerEnv, Step};
use devint::time::UnixSecs;
use devint::verbs::Sentence;
use devint::wire::{encode, encode_into, ClientToServer, Decoder, EncodeError, Frame, ServerFrame};

use super::clock::unix_now;
use super::intake::{Intake, Read, READ_CHUNK, STALL_CHECK};
use super::refusals::{RefusalBudget, REFUSALS_PER_WINDOW};
use super::runtime::Shared;
use super::slots::Slot;

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

/// A call running on the blocking pool. Dropping it (the connection is gone) raises its
/// cancellation: a mutation not yet past its point of no return stops there.
struct Running {
    request_id: u64,
    verb: &'static str,
    started: Instant,
    deadline: Instant,
    /// A mutation: past its deadline it is cancelled and its real outcome awaited.
    mutating: bool,
    cancel: CancelSignal,
    /// The encoded answer (encoded on the blocking pool too).
    call: JoinHandle<Result<Vec<u8>, EncodeError>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.cancel.raise();
    }
}

pub(crate) async fn run_connection(
    shared: Arc<Shared>,
    stream: UnixStream,
    conn: AnyConnection,
    slot: Slot,
    stop: watch::Receiver<bool>,
) {
    let meta = conn.meta();
    let span = tracing::info_span!("connection", id = meta.id, peer_uid = meta.peer_uid);
    let task = Task {
        intake: Intake::new(),
        queue: VecDeque::new(),
        out: Vec::new(),
        decoder: Decoder::new(),
        reading: true,
        shared,
        stream,
        conn,
        slot,
        busy: false,
        marked_negotiated: false,
        moved: false,
        refusals: RefusalBudget::new(std::time::Instant::now()),
    };
    task.drive(stop).instrument(span).await
}

struct Task {
    shared: Arc<Shared>,
    stream: UnixStream,
    /// Reads from the socket, and the bytes peeked that are still on it.
    intake: Intake,
    conn: AnyConnection,
    decoder: Decoder<ClientToServer>,
    /// Answers not yet written, in request order; the head is the next to go.
    queue: VecDeque<Queued>,
    /// Encoded answers whose turn has come, written by the next flush.
    out: Vec<u8>,
    /// False once the peer closed its side, the session closed, or shutdown began.
    reading: bool,
    /// This connection's slot: marked busy while a call is in flight (never evicted
    /// then), idle again once every answer is written.
    slot: Slot,
    /// Whether the slot is marked busy.
    busy: bool,
    /// Whether the slot knows the connection negotiated.
    marked_negotiated: bool,
    /// Whether a call ran inside `block_in_place` since the last read: the worker's other
    /// tasks have moved on to another thread already.
    moved: bool,
    /// How many of this connection's refusals are recorded one by one.
    refusals: RefusalBudget,
}

impl Drop for Task {
    /// Whatever happened to the connection, refusals counted and not yet summarised are;
    /// and the bytes peeked are taken off before the socket closes, so a client that is
    /// still reading sees the end of the stream, not a reset.
    fn drop(&mut self) {
        if let Some(count) = self.refusals.take_summary() {
            self.summarise_refusals(count);
        }
        let _ = self.intake.take_off(&self.stream);
    }
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
        let mut peer_done_sending = false;
        // While bytes peeked are owed to the socket and the task waits for its client, the
        // intake's stall check runs on this timer (module `intake`).
        let stall_check = tokio::time::sleep(STALL_CHECK);
        tokio::pin!(stall_check);
        let mut stall_armed = false;
        // Whether the last read filled the buffer (more may be waiting).
        let mut read_full = false;
        // Made once and kept: each stays registered with what it waits on (the server's
        // shutdown signal, shared by every connection, and this slot's eviction notice)
        // instead of registering and withdrawing, under their locks, at every turn below.
        let stopped = async move {
            let _ = stop.changed().await;
        };
        tokio::pin!(stopped);
        let evicted = self.slot.eviction();
        tokio::pin!(evicted);
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
            if !self.marked_negotiated && self.conn.version().is_some() {
                self.marked_negotiated = true;
                self.slot.negotiated();
            }
            self.promote_ready();
            if self.busy && self.queue.is_empty() {
                // Every call answered: idle again, so evictable, idle since now (an
                // eviction is acted on only after the flush below, so the answers still
                // go out whole).
                self.busy = false;
                self.slot.set_busy(false);
            }
            if !self.out.is_empty() && !self.flush(limits.write_timeout).await {
                return;
            }
            if self.intake.settle(&self.stream).is_err() {
                return;
            }
            // The last read filled the buffer, so this client has more waiting: a turn for
            // the other connections on this worker first. Reading and answering it at
            // once, read after read, kept the worker from them. (After a short read the
            // readiness is cleared instead, and the next read waits for the driver like
            // every other connection's: see `Intake::read`.) Not after `block_in_place`: those
            // tasks moved on with the worker already, and a yield there would cost one more
            // hand-off per round trip.
            let moved = std::mem::take(&mut self.moved);
            if std::mem::take(&mut read_full) && !moved {
                tokio::task::yield_now().await;
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
            let watch_gone = peer_done_sending && !self.queue.is_empty();
            let head = match self.queue.front_mut() {
                Some(Queued::Running(running)) => Some(running),
                _ => None,
            };
            // At a frame boundary the next bytes may be a whole request: with other
            // connections open, read them without taking them off the socket, and take them
            // off later; alone, or before the handshake (a `Hello` is read once, and most
            // connections that only negotiate never owe the socket a byte), take them off at
            // once (module doc).
            let peek =
                negotiated && self.decoder.at_frame_boundary() && self.shared.slots.open() > 1;
            // Bytes owed while waiting for the client: check, now and then, that it can
            // still send (the timer is set when the check starts and when it fires, never
            // per request).
            let stalls = may_read && self.intake.owes();
            if stalls && !stall_armed {
                stall_armed = true;
                self.intake.watch_stalls();
                stall_check.as_mut().reset(Instant::now() + STALL_CHECK);
            } else if !stalls {
                stall_armed = false;
            }
            tokio::select! {
                event = stream_event(&mut self.intake, &self.stream, &mut buf, may_read, peek, watch_gone) => match event {
                    StreamEvent::Read(Ok(Read { n: 0, .. })) => {
                        // The peer sent its last byte; it may still read its answers
                        // (a half close) unless it is gone altogether (watched below).
                        self.reading = false;
                        peer_done_sending = true;
                    }
                    StreamEvent::Read(Err(_)) => return,
                    StreamEvent::Read(Ok(Read { full, .. })) => {
                        read_full = full;
                        last_activity = Instant::now();
                    }
                    // Nobody will read the answers: stop, which cancels the calls in flight
                    // (a change not past its point of no return stops; its audit record is
                    // written either way).
                    StreamEvent::PeerGone => {
                        tracing::debug!("peer closed with calls in flight; cancelling them");
                        return;
                    }
                },
                outcome = next_answer(head, limits.mutation_grace) => {
                    self.answer_head(outcome);
                    last_activity = Instant::now();
                }
                // A client that sent nothing for a whole check may be unable to: the intake
                // takes the bytes owed off then.
                () = &mut stall_check, if stall_armed => match self.intake.check_stall(&self.stream) {
                    Ok(true) => stall_check.as_mut().reset(Instant::now() + STALL_CHECK),
                    Ok(false) => stall_armed = false,
                    Err(_) => return,
                },
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
                // Evicted (idle, at a limit) to make room for a new
                // connection; the eviction was audited by the accept loop.
                () = &mut evicted, if !self.busy => {
                    tracing::debug!("evicted at the connection limit; closing");
                    break;
                }
                () = &mut stopped, if !stopping => {
                    stopping = true;
                    self.stop_taking_requests();
                }
            }
        }
        // Dropping the stream closes it: the peer reads the end of the stream (a
        // `shutdown` first would only add a system call to every connection).
    }

    /// The server is stopping or handing its socket over: shut the connection for
    /// reading. Whatever the client wrote before is still read and answered (the reads go
    /// on until the end of the stream the shutdown makes); a write after it fails in the
    /// client's own kernel (`EPIPE`), so the client knows that request was never received
    /// and may send it again on a new connection, to the next executable. Without the
    /// shutdown, a request written after the last read would be dropped unanswered, and
    /// the client could not tell whether it had been carried out.
    fn stop_taking_requests(&mut self) {
        if let Err(error) = rustix::net::shutdown(&self.stream, rustix::net::Shutdown::Read) {
            tracing::debug!(%error, "could not shut the connection for reading; closing it");
            self.reading = false;
        }
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
                    self.record_refusal(event);
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

    /// Record a refusal within this connection's budget: past it, counted for one summary
    /// record instead, so a flood of refused frames cannot grow the audit log without bound.
    fn record_refusal(&mut self, event: &AuditEvent) {
        let verdict = self.refusals.refusal(std::time::Instant::now());
        if let Some(count) = verdict.summary {
            self.summarise_refusals(count);
        }
        if verdict.began_counting {
            tracing::warn!(
                per_window = REFUSALS_PER_WINDOW,
                "repeated refusals on this connection: further ones this window are counted, not recorded one by one"
            );
        }
        if verdict.record {
            self.shared.record_refusal(event);
        }
    }

    fn summarise_refusals(&self, count: u32) {
        let meta = self.conn.meta();
        self.shared.record_refusal(
            &AuditEvent::new(unix_now(), AuditKind::RefusalsSummarised { count })
                .with_connection(meta.id)
                .with_peer_uid(meta.peer_uid),
        );
    }

    /// Run an authorised call here if it never blocks, else on the blocking pool.
    fn dispatch(&mut self, dispatch: Dispatch, now: UnixSecs) {
        if !self.busy {
            if !self.slot.set_busy(true) {
                // Evicted while idle, before this call started: it never runs (the
                // client sees a closed connection, and nothing was applied).
                tracing::debug!("evicted before a call started; closing");
                self.reading = false;
                return;
            }
            self.busy = true;
        }
        let verb = dispatch.call().verb();
        let kind = match verb.rule().mutation {
            None => self.shared.backend.call_kind(verb),
            // A mutation's audit record is made durable before its answer: off the workers.
            Some(_) => CallKind::Blocking,
        };
        match kind {
            CallKind::NonBlocking => {
                let frame = answer_call(&self.shared, dispatch, now);
                self.answer(&frame);
                return;
            }
            CallKind::Brief if may_block_in_place() => {
                let shared = &self.shared;
                let frame = tokio::task::block_in_place(|| answer_call(shared, dispatch, now));
                self.moved = true;
                self.answer(&frame);
                return;
            }
            CallKind::Brief | CallKind::Blocking => {}
        }
        let request_id = dispatch.request_id();
        let cancel = dispatch.cancel_signal();
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
            mutating: verb.rule().mutation.is_some(),
            cancel,
            call,
        }));
    }

    /// Queue `frame` behind the answers before it, or make it the next to write.
    fn answer(&mut self, frame: &impl Frame) {
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
        let (request_id, verb, started) = (running.request_id, running.verb, running.started);
        drop(running);
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
            CallOutcome::StillMutating => {
                tracing::warn!(
                    request_id,
                    verb,
                    "a change is still running past its deadline and grace; its outcome will be audited"
                );
                DenialCause::Lifecycle(LifecycleError::refused(
                    Sentence::from_static(
                        "the change is still running past the runtime's deadline; its outcome will be in the audit log",
                    ),
                    Sentence::from_static("call status for the tool to see whether it was applied"),
                ))
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
        // the write timeout. The answer usually fits the socket's buffer at once: that write
        // needs no timer (arming and clearing one per answer is shared timer-wheel work on
        // every round trip); only what does not fit waits, under the timeout.
        let sent = match self.stream.try_write(&self.out) {
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => 0,
            Err(error) => {
                tracing::debug!(%error, "peer went away");
                return false;
            }
        };
        let written = if sent == self.out.len() {
            Ok(Ok(()))
        } else {
            let rest = &self.out[sent..];
            tokio::time::timeout(write_timeout, self.stream.write_all(rest)).await
        };
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
    /// A read passed its deadline: cancelled, answered with a deadline denial (it changed
    /// nothing).
    PastDeadline,
    /// A mutation passed its deadline and the grace after it without finishing.
    StillMutating,
}

// spec[S6-PIPELINE] §6: a slow verb never blocks the runtime; the deadline tells the truth
// (a mutation past it is reported as what it did, never as "not applied" when it applied).
/// The head call's outcome, or never when the head is not a running call. At the deadline
/// the call's cancellation is raised: a read is answered with a deadline denial at once; a
/// mutation stops if it has not reached its point of no return ("not applied") or runs to
/// completion, and its real outcome is awaited for `grace` more.
async fn next_answer(head: Option<&mut Running>, grace: std::time::Duration) -> CallOutcome {
    let Some(running) = head else {
        return std::future::pending().await;
    };
    let finished = |joined: Result<_, tokio::task::JoinError>| match joined {
        Ok(answer) => CallOutcome::Answered(answer),
        Err(join_error) => CallOutcome::Failed(join_error),
    };
    if !running.cancel.is_raised() {
        match tokio::time::timeout_at(running.deadline, &mut running.call).await {
            Ok(joined) => return finished(joined),
            Err(_) => {
                running.cancel.raise();
                if !running.mutating {
                    return CallOutcome::PastDeadline;
                }
                tracing::warn!(
                    request_id = running.request_id,
                    verb = running.verb,
                    "a change passed its deadline: cancelled, waiting for its real outcome"
                );
            }
        }
    }
    match tokio::time::timeout_at(running.deadline + grace, &mut running.call).await {
        Ok(joined) => finished(joined),
        Err(_) => CallOutcome::StillMutating,
    }
}

/// What happened on the socket.
enum StreamEvent {
    Read(std::io::Result<Read>),
    PeerGone,
}

/// The next read (when reading), else the peer's hang-up (when watched), else never.
async fn stream_event(
    intake: &mut Intake,
    stream: &UnixStream,
    buf: &mut Vec<u8>,
    read: bool,
    peek: bool,
    watch_gone: bool,
) -> StreamEvent {
    if read {
        StreamEvent::Read(intake.read(stream, buf, peek).await)
    } else if watch_gone {
        peer_gone(stream).await;
        StreamEvent::PeerGone
    } else {
        std::future::pending().await
    }
}

/// How often a peer that stopped sending, with calls in flight, is checked for having gone.
const GONE_CHECK: std::time::Duration = std::time::Duration::from_millis(250);

/// Resolves once the peer has closed its side for good (not just shut down its writing):
/// the socket reports a hang-up. Only waited for after the peer stopped sending while
/// calls are in flight, so the periodic check (one `poll` of the socket) is rare.
async fn peer_gone(stream: &UnixStream) {
    loop {
        tokio::time::sleep(GONE_CHECK).await;
        let mut fds = [rustix::event::PollFd::new(
            stream,
            rustix::event::PollFlags::empty(),
        )];
        let now = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        match rustix::event::poll(&mut fds, Some(&now)) {
            Ok(_) if !fds[0].revents().contains(rustix::event::PollFlags::HUP) => {}
            _ => return,
        }
    }
}

/// Run one authorised call and record its audit events (made durable by a durable sink)
/// before the answer is handed back: the record is written whatever becomes of the
/// connection.
fn answer_call(shared: &Shared, dispatch: Dispatch, now: UnixSecs) -> Reply {
    let answer = dispatch.run(&*shared.backend, now);
    for event in &answer.audit {
        shared.record(event);
    }
    answer.frame
}

/// Whether this task runs on a multi-threaded runtime, where `block_in_place` hands the
/// worker's other tasks to another thread (on a current-thread runtime it would panic).
fn may_block_in_place() -> bool {
    tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread)
}
