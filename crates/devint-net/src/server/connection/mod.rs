//! One connection's task: it reads frames, drives the session core, runs authorised calls
//! and writes the answers in request order — all on this one task, with no writer task and
//! no channel between them.
//!
//! A call the backend declares non-blocking ([`CallKind::NonBlocking`]) runs right here and
//! its answer is written at once: a round trip costs one wake-up of this task. A brief call
//! ([`CallKind::Brief`]: a few small local file reads) runs right here too, inside
//! `block_in_place` on a multi-threaded runtime, so this worker's other tasks move to another
//! thread while it reads. Before either, a `status` is offered to the backend to answer at
//! once ([`Lifecycle::status_at_once`](devint::backend::Lifecycle::status_at_once): a kept
//! answer it can prove current without blocking), here with no hand-off. Any other call
//! (and every mutation, whose audit record is made durable before its answer) runs on the
//! blocking pool; it waits in the connection's ordered queue of in-flight answers, so a
//! client may pipeline up to `max_in_flight` requests and answers still leave in the order
//! the requests arrived, even when a later call finishes first. Answers whose turn has come
//! are written together, each frame whole (spec §2).
//!
//! Taking a request off the socket frees the client's send buffer, which wakes a client
//! already waiting for its answer. Once negotiated, while other connections are open, a
//! read that starts at a frame boundary therefore peeks (`MSG_PEEK`): the request stays on
//! the socket past its answer, and the bytes of answered requests are taken off together,
//! a few KiB at a time, so that a client woken early cannot push the worker off the
//! connections waiting for it and most answers cost no take-off at all ([`super::intake`]
//! owns those reads and the bytes owed; docs/benchmarks.md measures it: "answered before
//! the request is taken off the socket").
//! A connection that is the only one open, or has not negotiated yet, reads and takes off
//! at once: nothing waits for its worker, and the early wake-up overlaps the
//! client's own wake-up with the work on its request — on a host where waking an idle CPU
//! is slow, that is most of a round trip (docs/benchmarks.md, "a connection alone takes its
//! request off at once"). While it
//! owes the socket bytes, the task checks every [`STALL_CHECK`](super::intake::STALL_CHECK) that its client still
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
//! This task decides nothing: every protocol decision is the session core's
//! ([`AnyConnection`]), and every decision about this connection — what to decode, which
//! answer goes next, which deadline passed, when to check for a stall, whether it may be
//! evicted — is the sans-IO [`machine::Machine`]'s, tested with a virtual clock. The task
//! carries them out: it reads, writes, runs calls and waits. It must never block a worker:
//! a call that may block runs here only inside `block_in_place`, never bare.

mod machine;

use std::sync::Arc;

use tokio::io::AsyncWriteExt;
use tokio::net::UnixStream;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::Instrument;

use devint::backend::CallKind;
use devint::session::{AnyConnection, AtOnce, Dispatch, Reply, ServerEnv};
use devint::time::UnixSecs;
use devint::verbs::Verb;
use devint::wire::{encode, EncodeError};

use super::clock::unix_now;
use super::intake::{Intake, Read, READ_CHUNK};
use super::runtime::Shared;
use super::slots::Slot;
use machine::{CallInfo, Event, Finished, InFlight, Machine};

/// The driver's handle on a call running on the blocking pool: its encoded answer.
type Call = JoinHandle<Result<Vec<u8>, EncodeError>>;

impl InFlight for Call {
    fn is_finished(&self) -> bool {
        JoinHandle::is_finished(self)
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
    let limits = shared.limits;
    let task = Task {
        machine: Machine::new(conn, limits, Instant::now().into_std()),
        intake: Intake::new(),
        shared,
        stream,
        slot,
        moved: false,
    };
    task.drive(stop).instrument(span).await
}

struct Task {
    shared: Arc<Shared>,
    stream: UnixStream,
    /// Every decision about this connection.
    machine: Machine<Call>,
    /// Reads from the socket, and the bytes peeked that are still on it.
    intake: Intake,
    /// This connection's slot: marked busy while a call is in flight (never evicted
    /// then), idle again once every answer is written.
    slot: Slot,
    /// Whether a call ran inside `block_in_place` since the last read: the worker's other
    /// tasks have moved on to another thread already.
    moved: bool,
}

impl Drop for Task {
    /// Whatever happened to the connection, refusals counted and not yet summarised are;
    /// and the bytes peeked are taken off before the socket closes, so a client that is
    /// still reading sees the end of the stream, not a reset.
    fn drop(&mut self) {
        if let Some(summary) = self.machine.take_refusal_summary(unix_now()) {
            self.shared.record_refusal(&summary);
        }
        let _ = self.intake.take_off(&self.stream);
    }
}

impl Task {
    async fn drive(mut self, mut stop: watch::Receiver<bool>) {
        let write_timeout = self.shared.limits.write_timeout;
        // Read into spare capacity: nothing to zero per connection.
        self.machine.input().reserve_exact(READ_CHUNK);
        // One timer for the connection's life, set to the machine's next deadline only when
        // that is earlier than where it stands (a deadline that moved later is found when
        // the timer fires early): no timer work per round trip.
        let timer = tokio::time::sleep(self.shared.limits.handshake_timeout);
        tokio::pin!(timer);
        let mut timer_at: Option<Instant> = None;
        let mut stopping = false;
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
            if !self.carry_out_events() {
                return;
            }
            if self.machine.poll_transmit().is_some() && !self.flush(write_timeout).await {
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
            if self.machine.take_read_full() && !moved {
                tokio::task::yield_now().await;
            }
            if self.machine.is_finished() {
                break;
            }
            let wait =
                self.machine
                    .plan_wait(self.shared.slots.open() > 1, self.intake.owes(), || {
                        Instant::now().into_std()
                    });
            if wait.start_stall_watch {
                self.intake.watch_stalls();
            }
            if let Some(due) = self.machine.poll_timeout().map(Instant::from_std) {
                if timer_at.is_none_or(|at| due < at) {
                    timer.as_mut().reset(due);
                    timer_at = Some(due);
                }
            }
            let evictable = self.machine.evictable();
            let (input, head) = self.machine.input_and_head_call();
            tokio::select! {
                event = stream_event(&mut self.intake, &self.stream, input, wait.read, wait.watch_gone) => match event {
                    StreamEvent::Read(Ok(Read { n, full })) => {
                        self.machine.handle_read(n, full, Instant::now().into_std());
                    }
                    StreamEvent::Read(Err(_)) => return,
                    // Nobody will read the answers: stop, which cancels the calls in flight
                    // (a change not past its point of no return stops; its audit record is
                    // written either way).
                    StreamEvent::PeerGone => {
                        tracing::debug!("peer closed with calls in flight; cancelling them");
                        return;
                    }
                },
                finished = head_finished(head) => {
                    self.machine.head_finished(finished, Instant::now().into_std());
                }
                () = &mut timer, if timer_at.is_some() => {
                    timer_at = None;
                    self.machine.handle_timeout(Instant::now().into_std(), unix_now());
                }
                // Evicted (idle, at a limit) to make room for a new connection; the
                // eviction was audited by the accept loop.
                () = &mut evicted, if evictable => {
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

    /// Do what the machine asks until it asks nothing more; false when the connection must
    /// end (a stall check found the socket broken).
    fn carry_out_events(&mut self) -> bool {
        // The clocks are read once for everything done here (the requests of one read
        // arrived together), and only if a frame is decoded.
        let mut time = None;
        let mut clock = || *time.get_or_insert_with(|| (unix_now(), Instant::now().into_std()));
        loop {
            let shared = &*self.shared;
            let env = ServerEnv {
                resolver: &*shared.resolver,
                backend: &*shared.backend,
                core_version: &shared.core_version,
                provenance: &*shared.provenance,
            };
            let Some(event) = self.machine.poll_event(&env, &mut clock) else {
                return true;
            };
            match event {
                Event::Refusal(event) => self.shared.record_refusal(&event),
                Event::Negotiated => self.slot.negotiated(),
                Event::Idle => {
                    self.slot.set_busy(false);
                }
                Event::Run {
                    dispatch,
                    kind,
                    claim_slot,
                } => {
                    if claim_slot && !self.slot.set_busy(true) {
                        self.machine.slot_refused();
                    } else {
                        let (wall, now) = clock();
                        self.run(dispatch, kind, wall, now);
                    }
                }
                Event::CheckStall => match self.intake.check_stall(&self.stream) {
                    Ok(still) => self.machine.stall_checked(still, clock().1),
                    Err(_) => return false,
                },
            }
        }
    }

    /// Run an authorised call here if it never blocks, else on the blocking pool (`wall`:
    /// the call's time; `started`: when it was handed over, for its deadline).
    fn run(
        &mut self,
        dispatch: Dispatch,
        kind: CallKind,
        wall: UnixSecs,
        started: std::time::Instant,
    ) {
        let now = wall;
        // A `status` the backend can prove current without blocking is answered here, with
        // no hand-off to another thread (`Lifecycle::status_at_once`; docs/benchmarks.md,
        // "A status answered at once while a watch holds").
        let dispatch = if kind != CallKind::NonBlocking && dispatch.call().verb() == Verb::Status {
            match dispatch.run_at_once(&*self.shared.backend, now) {
                AtOnce::Answered(answer) => {
                    // A status is audited only for a sentence it refused: a refusal's
                    // record, which the worker does not wait on the disk for.
                    for event in &answer.audit {
                        self.shared.record_refusal(event);
                    }
                    self.machine.answered(&answer.frame);
                    return;
                }
                AtOnce::ToRun(dispatch) => dispatch,
            }
        } else {
            dispatch
        };
        match kind {
            CallKind::NonBlocking => {
                let frame = answer_call(&self.shared, dispatch, now);
                self.machine.answered(&frame);
                return;
            }
            CallKind::Brief if may_block_in_place() => {
                let shared = &self.shared;
                let frame = tokio::task::block_in_place(|| answer_call(shared, dispatch, now));
                self.moved = true;
                self.machine.answered(&frame);
                return;
            }
            CallKind::Brief | CallKind::Blocking => {}
        }
        let info = CallInfo::of(&dispatch);
        let shared = Arc::clone(&self.shared);
        let call =
            tokio::task::spawn_blocking(move || encode(&answer_call(&shared, dispatch, now)));
        self.machine.started(call, info, started);
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
            self.machine.stop_reading();
        }
    }

    /// Write every answer whose turn has come; false when the peer is gone or stopped
    /// reading.
    async fn flush(&mut self, write_timeout: std::time::Duration) -> bool {
        let Some(out) = self.machine.poll_transmit() else {
            return true;
        };
        // spec[S2-SINGLE-WRITE] §2: every frame is written whole with one write (answers
        // whose turn came together share it); a peer that stops reading is dropped after
        // the write timeout. The answer usually fits the socket's buffer at once: that write
        // needs no timer (arming and clearing one per answer is shared timer-wheel work on
        // every round trip); only what does not fit waits, under the timeout.
        let sent = match self.stream.try_write(out) {
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => 0,
            Err(error) => {
                tracing::debug!(%error, "peer went away");
                return false;
            }
        };
        let written = if sent == out.len() {
            Ok(Ok(()))
        } else {
            let rest = &out[sent..];
            tokio::time::timeout(write_timeout, self.stream.write_all(rest)).await
        };
        self.machine.transmitted();
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

/// How the head call ended, or never when the head is not a running call. Its deadline is
/// the machine's (the timer), not awaited here.
async fn head_finished(head: Option<&mut Call>) -> Finished {
    let Some(call) = head else {
        return std::future::pending().await;
    };
    match call.await {
        Ok(answer) => Finished::Answered(answer),
        Err(join_error) => Finished::Failed(join_error.to_string()),
    }
}

/// What happened on the socket.
enum StreamEvent {
    Read(std::io::Result<Read>),
    PeerGone,
}

/// The next read (when `read` says so, peeking or not), else the peer's hang-up (when
/// watched), else never.
async fn stream_event(
    intake: &mut Intake,
    stream: &UnixStream,
    input: &mut Vec<u8>,
    read: Option<bool>,
    watch_gone: bool,
) -> StreamEvent {
    if let Some(peek) = read {
        StreamEvent::Read(intake.read(stream, input, peek).await)
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
