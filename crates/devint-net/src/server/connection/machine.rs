//! [`Machine`]: one connection's logic with no I/O, no clock and no task — the decisions
//! the connection's tokio task ([`super`]) only carries out, as quinn-proto's `Connection`
//! is to quinn's endpoint driver.
//!
//! The machine owns the bytes read and not yet decoded, the session core
//! ([`AnyConnection`]), the ordered queue of answers not yet written, the answers whose turn
//! has come, the handshake, idle and per-call deadlines, when the intake's stall check is
//! due, the per-connection budget of refusal records, and whether the connection may be
//! evicted. Time comes in as arguments (`now`), so every rule is tested with a virtual
//! clock.
//!
//! Its driver, in a loop:
//!
//! 1. reads into [`Machine::input`] when [`Machine::plan_wait`] says so (peeking or not) and
//!    reports it with [`Machine::handle_read`];
//! 2. takes [`Machine::poll_event`] until `None`: refusals to record, the slot's changes,
//!    calls to run (each resolved with [`Machine::answered`], [`Machine::started`] or
//!    [`Machine::slot_refused`] before the next event), a stall check to make;
//! 3. writes [`Machine::poll_transmit`] whole, then calls [`Machine::transmitted`];
//! 4. waits for the socket, the head call ([`Machine::input_and_head_call`], reported with
//!    [`Machine::head_finished`]) and the one timer at [`Machine::poll_timeout`] (reported
//!    with [`Machine::handle_timeout`]), until [`Machine::is_finished`].
//!
//! What the machine keeps, whatever the driver does: answers leave in the order the
//! requests arrived, each exactly once; at most `max_in_flight` requests are decoded and
//! not yet answered (the rest wait, undecoded); a call that passes its deadline is answered
//! (a read at once with a deadline denial, a mutation with its real outcome or, past the
//! grace, a "still running" denial), so a stalled call cannot hold the answers behind it;
//! a connection with a call in flight is never evictable; a peer silent past the handshake
//! or idle deadline is closed by the session core's own timeout rule.
//!
//! It must never touch a socket, read a clock, spawn or block: every such act is its
//! driver's, told by an [`Event`] or a [`Wait`].

use std::collections::VecDeque;
use std::time::Instant;

use devint::audit::{AuditEvent, AuditKind};
use devint::backend::{CallKind, CancelSignal, LifecycleError};
use devint::session::{denied, AnyConnection, DenialCause, Dispatch, ServerEnv, Step};
use devint::time::UnixSecs;
use devint::verbs::Sentence;
use devint::wire::{encode, encode_into, ClientToServer, Decoder, EncodeError, Frame, ServerFrame};

use super::super::config::Limits;
use super::super::intake::STALL_CHECK;
use super::super::refusals::{RefusalBudget, REFUSALS_PER_WINDOW};

// An answer buffer grown past this by a large answer is given back once written, so an
// idle connection does not keep it.
const KEEP_OUT_CAPACITY: usize = 16 * 1024;

/// What the driver must do next (from [`Machine::poll_event`]).
#[derive(Debug)]
pub(in crate::server) enum Event {
    /// Record this refusal (already within the connection's budget).
    Refusal(AuditEvent),
    /// Tell the slot the connection negotiated.
    Negotiated,
    /// Tell the slot the connection is idle again (every call answered): evictable.
    Idle,
    /// Run this authorised call: inline when `kind` allows it (then
    /// [`Machine::answered`]), else off the async workers (then [`Machine::started`]).
    /// With `claim_slot`, first mark the slot busy; if the slot refuses (the connection was
    /// evicted while idle), the call never runs: [`Machine::slot_refused`].
    Run {
        /// The call.
        dispatch: Dispatch,
        /// How the backend says it runs (a mutation always blocks: its audit record is
        /// made durable before its answer).
        kind: CallKind,
        /// The first call in flight: the slot must be marked busy first.
        claim_slot: bool,
    },
    /// The stall check is due: ask the intake, then [`Machine::stall_checked`].
    CheckStall,
}

/// How the driver waits next (from [`Machine::plan_wait`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::server) struct Wait {
    /// Read into [`Machine::input`]; `Some(true)`: with `MSG_PEEK`, leaving the bytes on the
    /// socket (the connection is negotiated, at a frame boundary, and not alone).
    pub(in crate::server) read: Option<bool>,
    /// The peer stopped sending with calls in flight: watch for it hanging up altogether.
    pub(in crate::server) watch_gone: bool,
    /// Bytes are owed to the socket while waiting for the client: start the intake's
    /// stall watch (the machine times the checks).
    pub(in crate::server) start_stall_watch: bool,
}

/// How a call run off the async workers ended (for [`Machine::head_finished`]).
#[derive(Debug)]
pub(in crate::server) enum Finished {
    /// The encoded answer, or why it could not be encoded.
    Answered(Result<Vec<u8>, EncodeError>),
    /// The call panicked or was aborted.
    Failed(String),
}

/// What the machine keeps of a call it hands to the driver to run off the async workers.
#[derive(Debug, Clone)]
pub(in crate::server) struct CallInfo {
    request_id: u64,
    verb: &'static str,
    mutating: bool,
    cancel: CancelSignal,
}

impl CallInfo {
    /// Taken before `dispatch` is moved to where it runs.
    pub(in crate::server) fn of(dispatch: &Dispatch) -> CallInfo {
        let verb = dispatch.call().verb();
        CallInfo {
            request_id: dispatch.request_id(),
            verb: verb.token(),
            mutating: verb.rule().mutation.is_some(),
            cancel: dispatch.cancel_signal(),
        }
    }
}

/// The driver's handle on a call running off the async workers, as the machine sees it.
pub(in crate::server) trait InFlight {
    /// The call has ended and its answer waits to be collected: past its deadline it is
    /// still answered with that answer, never denied.
    fn is_finished(&self) -> bool;
}

/// An entry of the ordered queue of answers not yet written.
enum Queued<C> {
    /// An answer ready (encoded), waiting for the ones before it.
    Ready(Vec<u8>),
    /// A call running off the async workers.
    Running(Running<C>),
}

/// A call running off the async workers. Dropping it (answered past its deadline, or the
/// connection gone) raises its cancellation: a mutation not yet past its point of no
/// return stops there.
struct Running<C> {
    /// The driver's handle on the call (what it awaits).
    call: C,
    info: CallInfo,
    started: Instant,
    deadline: Instant,
    /// The deadline passed (a mutation: cancelled, its real outcome awaited for the grace).
    past_deadline: bool,
}

impl<C> Drop for Running<C> {
    fn drop(&mut self) {
        self.info.cancel.raise();
    }
}

/// One connection's logic (module doc). `C` is the driver's handle on a call running off
/// the async workers; the machine only keeps it in order.
pub(in crate::server) struct Machine<C> {
    conn: AnyConnection,
    limits: Limits,
    decoder: Decoder<ClientToServer>,
    /// Bytes read; `input[start..]` is not decoded yet (decoding pauses while the queue of
    /// answers is full).
    input: Vec<u8>,
    start: usize,
    /// Answers not yet written, in request order; the head is the next to go.
    queue: VecDeque<Queued<C>>,
    /// Encoded answers whose turn has come, for the next write.
    out: Vec<u8>,
    /// What the driver must do, oldest first.
    events: VecDeque<Event>,
    /// A call handed to the driver and not yet resolved: nothing more is decoded until it is.
    resolving: bool,
    /// False once the peer closed its side, the session closed, or shutdown began.
    reading: bool,
    /// The peer sent its last byte (it may still read its answers).
    peer_done_sending: bool,
    /// The slot is marked busy (a call in flight): never evicted then.
    busy: bool,
    /// The slot knows the connection negotiated.
    marked_negotiated: bool,
    /// The last read filled the buffer: more may be waiting.
    read_full: bool,
    /// spec §5 rule 8: counted from accept, not from the last byte.
    hello_deadline: Instant,
    last_activity: Instant,
    /// Bytes are owed while waiting for the client, and the stall check is being timed.
    stall_watched: bool,
    /// When the next stall check is due.
    stall_at: Option<Instant>,
    refusals: RefusalBudget,
}

impl<C> Machine<C> {
    /// A connection accepted at `now`.
    pub(in crate::server) fn new(conn: AnyConnection, limits: Limits, now: Instant) -> Machine<C> {
        Machine {
            conn,
            limits,
            decoder: Decoder::new(),
            input: Vec::new(),
            start: 0,
            queue: VecDeque::new(),
            out: Vec::new(),
            events: VecDeque::new(),
            resolving: false,
            reading: true,
            peer_done_sending: false,
            busy: false,
            marked_negotiated: false,
            read_full: false,
            // spec[S5-R8-HANDSHAKE-TIMEOUT] §5 rule 8: the handshake deadline counts from
            // accept, so a peer dribbling a partial `Hello` cannot hold the connection open.
            hello_deadline: now + limits.handshake_timeout,
            last_activity: now,
            stall_watched: false,
            stall_at: None,
            refusals: RefusalBudget::new(now),
        }
    }

    fn max_in_flight(&self) -> usize {
        self.limits.max_in_flight.max(1)
    }

    fn negotiated(&self) -> bool {
        self.conn.version().is_some()
    }

    /// Where the driver reads to: bytes appended here are reported with
    /// [`Machine::handle_read`]. Read into only when [`Wait::read`] says so.
    pub(in crate::server) fn input(&mut self) -> &mut Vec<u8> {
        &mut self.input
    }

    /// `n` bytes were appended to [`Machine::input`] at `now` (0: the peer closed its side);
    /// `full`: the read filled the space it had, so more may be waiting.
    pub(in crate::server) fn handle_read(&mut self, n: usize, full: bool, now: Instant) {
        if n == 0 {
            // The peer sent its last byte; it may still read its answers (a half close).
            self.reading = false;
            self.peer_done_sending = true;
        } else {
            self.read_full = full;
            self.last_activity = now;
        }
    }

    /// The next thing the driver must do, decoding and handing requests to the session core
    /// while there is room in flight; `None` when there is nothing until the next read,
    /// answer or timeout. `clock` gives the time (Unix, for the session core and audit
    /// records; monotonic, for the refusal budget), asked only when a frame is decoded.
    pub(in crate::server) fn poll_event(
        &mut self,
        env: &ServerEnv<'_>,
        clock: &mut impl FnMut() -> (UnixSecs, Instant),
    ) -> Option<Event> {
        loop {
            if let Some(event) = self.events.pop_front() {
                return Some(event);
            }
            if self.resolving {
                return None;
            }
            if !(self.start < self.input.len()
                && self.reading
                && self.queue.len() < self.max_in_flight())
            {
                break;
            }
            let mut rest = &self.input[self.start..];
            let decoded = self.decoder.decode(&mut rest);
            self.start = self.input.len() - rest.len();
            let step = match decoded {
                Ok(None) => break,
                Ok(Some(frame)) => self.conn.handle(frame, env, clock().0),
                Err(error) => {
                    tracing::warn!(%error, "frame refused");
                    self.conn.handle_frame_error(&error, clock().0)
                }
            };
            let now = clock().1;
            if let Some(run) = self.act(step, env, now) {
                // Straight to the driver: a call is never queued behind anything.
                return Some(run);
            }
        }
        if self.start == self.input.len() {
            self.input.clear();
            self.start = 0;
        }
        if !self.marked_negotiated && self.negotiated() {
            self.marked_negotiated = true;
            return Some(Event::Negotiated);
        }
        self.promote_ready();
        if self.busy && self.queue.is_empty() {
            // Every call answered: idle again, so evictable (an eviction is acted on only
            // after the answers are written, so they still go out whole).
            self.busy = false;
            return Some(Event::Idle);
        }
        None
    }

    /// Act on one step of the session core: a reply is queued, a call is handed back to be
    /// run.
    fn act(&mut self, step: Step, env: &ServerEnv<'_>, now: Instant) -> Option<Event> {
        match step {
            Step::Reply {
                frame,
                audit,
                close,
            } => {
                self.reply(frame, audit, close, now);
                None
            }
            Step::Dispatch(dispatch) => {
                let verb = dispatch.call().verb();
                let kind = match verb.rule().mutation {
                    None => env.backend.call_kind(verb),
                    Some(_) => CallKind::Blocking,
                };
                let claim_slot = !self.busy;
                self.busy = true;
                self.resolving = true;
                Some(Event::Run {
                    dispatch,
                    kind,
                    claim_slot,
                })
            }
        }
    }

    /// The session core's reply: its audit records (refusals), its frame, and whether the
    /// connection closes.
    fn reply(
        &mut self,
        frame: Option<ServerFrame>,
        audit: Vec<AuditEvent>,
        close: bool,
        now: Instant,
    ) {
        for event in audit {
            self.refusal(event, now);
        }
        if let Some(frame) = frame {
            self.answer(&frame);
        }
        if close {
            self.reading = false;
        }
    }

    /// A refusal within this connection's budget is recorded; past it, counted for one
    /// summary record instead, so a flood of refused frames cannot grow the audit log
    /// without bound.
    fn refusal(&mut self, event: AuditEvent, now: Instant) {
        let verdict = self.refusals.refusal(now);
        if let Some(count) = verdict.summary {
            let summary = self.summary(count, event.at_unix_secs);
            self.events.push_back(Event::Refusal(summary));
        }
        if verdict.began_counting {
            tracing::warn!(
                per_window = REFUSALS_PER_WINDOW,
                "repeated refusals on this connection: further ones this window are counted, not recorded one by one"
            );
        }
        if verdict.record {
            self.events.push_back(Event::Refusal(event));
        }
    }

    fn summary(&self, count: u32, wall: UnixSecs) -> AuditEvent {
        let meta = self.conn.meta();
        AuditEvent::new(wall, AuditKind::RefusalsSummarised { count })
            .with_connection(meta.id)
            .with_peer_uid(meta.peer_uid)
    }

    /// The refusals counted and not yet summarised, as their summary record: the driver
    /// records it when the connection ends, whatever ended it.
    pub(in crate::server) fn take_refusal_summary(&mut self, wall: UnixSecs) -> Option<AuditEvent> {
        let count = self.refusals.take_summary()?;
        Some(self.summary(count, wall))
    }

    /// The call of the last [`Event::Run`] was run inline: this is its answer.
    pub(in crate::server) fn answered(&mut self, frame: &impl Frame) {
        self.resolving = false;
        self.answer(frame);
    }

    /// The call of the last [`Event::Run`] runs off the async workers since `now`; the
    /// driver awaits `call` when it reaches the head of the queue ([`Machine::input_and_head_call`]).
    pub(in crate::server) fn started(&mut self, call: C, info: CallInfo, now: Instant) {
        self.resolving = false;
        // spec[S6-PIPELINE] §6: a slow verb never blocks other connections or the runtime's
        // threads; answers still leave in request order (the queue).
        self.queue.push_back(Queued::Running(Running {
            call,
            info,
            started: now,
            deadline: now + self.limits.request_deadline,
            past_deadline: false,
        }));
    }

    /// The slot refused to be marked busy for the last [`Event::Run`]: the connection was
    /// evicted while idle, before this call started. It never runs (the client sees a
    /// closed connection, and nothing was applied).
    pub(in crate::server) fn slot_refused(&mut self) {
        tracing::debug!("evicted before a call started; closing");
        self.resolving = false;
        self.busy = false;
        self.reading = false;
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

    /// Move the answers at the head of the queue that are ready into the write buffer.
    fn promote_ready(&mut self) {
        while let Some(Queued::Ready(_)) = self.queue.front() {
            if let Some(Queued::Ready(bytes)) = self.queue.pop_front() {
                self.out.extend_from_slice(&bytes);
            }
        }
    }

    /// [`Machine::input`] and the driver's handle on the call at the head of the queue (when
    /// the head is a running call: its end is the next answer), together, for a driver that
    /// waits for a read and for the head call at once.
    pub(in crate::server) fn input_and_head_call(&mut self) -> (&mut Vec<u8>, Option<&mut C>) {
        let head = match self.queue.front_mut() {
            Some(Queued::Running(running)) => Some(&mut running.call),
            _ => None,
        };
        (&mut self.input, head)
    }

    /// The call at the head of the queue ended at `now`: its answer is next.
    pub(in crate::server) fn head_finished(&mut self, finished: Finished, now: Instant) {
        let Some(Queued::Running(running)) = self.queue.pop_front() else {
            return;
        };
        self.last_activity = now;
        let info = running.info.clone();
        tracing::debug!(
            request_id = info.request_id,
            verb = info.verb,
            latency_us = now.saturating_duration_since(running.started).as_micros() as u64,
            "answered off the async threads"
        );
        drop(running);
        match finished {
            Finished::Answered(Ok(bytes)) => self.out.extend_from_slice(&bytes),
            Finished::Answered(Err(error)) => self.unencodable(&error),
            Finished::Failed(error) => {
                tracing::error!(%error, request_id = info.request_id, verb = info.verb, "backend call failed");
                self.deny_head(info.request_id, &DenialCause::Internal);
            }
        }
    }

    /// The head call's answer is a denial.
    fn deny_head(&mut self, request_id: u64, cause: &DenialCause) {
        let frame = ServerFrame::Denied(denied(request_id, cause));
        if let Err(error) = encode_into(&frame, &mut self.out) {
            self.unencodable(&error);
        }
    }

    /// The handshake deadline, or the idle one while nothing is in flight (a client
    /// waiting for its answers is not idle); `None` when neither runs.
    fn session_deadline(&self) -> Option<Instant> {
        if !self.reading {
            return None;
        }
        if !self.negotiated() {
            Some(self.hello_deadline)
        } else if self.queue.is_empty() {
            Some(self.last_activity + self.limits.idle_timeout)
        } else {
            None
        }
    }

    /// When [`Machine::handle_timeout`] is next due, if ever.
    pub(in crate::server) fn poll_timeout(&self) -> Option<Instant> {
        let head = match self.queue.front() {
            Some(Queued::Running(running)) if running.past_deadline => {
                Some(running.deadline + self.limits.mutation_grace)
            }
            Some(Queued::Running(running)) => Some(running.deadline),
            _ => None,
        };
        [self.session_deadline(), self.stall_at, head]
            .into_iter()
            .flatten()
            .min()
    }

    /// Time passed to `now` (`wall`, the same instant as Unix time for audit records): act
    /// on every deadline passed. Early or repeated calls do nothing.
    pub(in crate::server) fn handle_timeout(&mut self, now: Instant, wall: UnixSecs)
    where
        C: InFlight,
    {
        if self.session_deadline().is_some_and(|due| now >= due) {
            // spec §5 rule 8: no Hello within the handshake timeout → dropped, audited; an
            // idle negotiated connection is closed.
            // The core's timeout rule only ever closes (it runs no call).
            if let Step::Reply {
                frame,
                audit,
                close,
            } = self.conn.handle_timeout(wall)
            {
                self.reply(frame, audit, close, now);
            }
        }
        if self.stall_at.is_some_and(|due| now >= due) {
            self.stall_at = None;
            self.events.push_back(Event::CheckStall);
        }
        self.head_deadlines(now);
    }

    // spec[S6-PIPELINE] §6: a slow verb never blocks the runtime; the deadline tells the
    // truth (a mutation past it is reported as what it did, never as "not applied" when it
    // applied).
    /// At the head call's deadline its cancellation is raised: a read is answered with a
    /// deadline denial at once; a mutation stops if it has not reached its point of no
    /// return ("not applied") or runs to completion, and its real outcome is awaited for the
    /// grace more; past that it is answered "still running". Every call whose time is up is
    /// dealt with, in order, so the answers behind them go out with them.
    fn head_deadlines(&mut self, now: Instant)
    where
        C: InFlight,
    {
        let grace = self.limits.mutation_grace;
        loop {
            let Some(Queued::Running(running)) = self.queue.front_mut() else {
                return;
            };
            if running.call.is_finished() {
                // Its answer is there: the driver collects it next, whatever the time.
                return;
            }
            let (request_id, verb) = (running.info.request_id, running.info.verb);
            let cause = if !running.past_deadline {
                if now < running.deadline {
                    return;
                }
                running.past_deadline = true;
                running.info.cancel.raise();
                if running.info.mutating {
                    tracing::warn!(
                        request_id,
                        verb,
                        "a change passed its deadline: cancelled, waiting for its real outcome"
                    );
                    continue;
                }
                tracing::warn!(request_id, verb, "backend call passed its deadline");
                DenialCause::Deadline
            } else if now >= running.deadline + grace {
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
            } else {
                return;
            };
            self.queue.pop_front();
            self.last_activity = now;
            self.deny_head(request_id, &cause);
            self.promote_ready();
        }
    }

    /// How the driver waits next: `others_open` when other connections are open (a request
    /// is then peeked), `owes` when the intake owes the socket bytes; `now` is asked only
    /// when a stall watch starts.
    pub(in crate::server) fn plan_wait(
        &mut self,
        others_open: bool,
        owes: bool,
        now: impl FnOnce() -> Instant,
    ) -> Wait {
        let may_read =
            self.reading && self.input.is_empty() && self.queue.len() < self.max_in_flight();
        // Bytes owed while waiting for the client: check, now and then, that it can still
        // send (timed when the check starts and after each check, never per request).
        let stalls = may_read && owes;
        let start_stall_watch = stalls && !self.stall_watched;
        if start_stall_watch {
            self.stall_watched = true;
            self.stall_at = Some(now() + STALL_CHECK);
        } else if !stalls {
            self.stall_watched = false;
            self.stall_at = None;
        }
        // At a frame boundary the next bytes may be a whole request: with other connections
        // open, read them without taking them off the socket; alone, or before the
        // handshake (a `Hello` is read once, and most connections that only negotiate never
        // owe the socket a byte), take them off at once (module `intake`).
        let peek = self.negotiated() && self.decoder.at_frame_boundary() && others_open;
        Wait {
            read: may_read.then_some(peek),
            watch_gone: self.peer_done_sending && !self.queue.is_empty(),
            start_stall_watch,
        }
    }

    /// The stall check made at `now` found the client still sending (`true`: check again
    /// later) or took the bytes owed off (`false`).
    pub(in crate::server) fn stall_checked(&mut self, still_watched: bool, now: Instant) {
        if still_watched && self.stall_watched {
            self.stall_at = Some(now + STALL_CHECK);
        } else {
            self.stall_watched = false;
        }
    }

    /// The answers whose turn has come, to be written whole (spec §2), if any.
    pub(in crate::server) fn poll_transmit(&self) -> Option<&[u8]> {
        (!self.out.is_empty()).then_some(self.out.as_slice())
    }

    /// What [`Machine::poll_transmit`] gave was written (or the connection is ending).
    pub(in crate::server) fn transmitted(&mut self) {
        self.out.clear();
        if self.out.capacity() > KEEP_OUT_CAPACITY {
            self.out = Vec::new();
        }
    }

    /// Whether the last read filled its buffer (cleared by asking): the driver gives the
    /// other connections on its worker a turn before reading on.
    pub(in crate::server) fn take_read_full(&mut self) -> bool {
        std::mem::take(&mut self.read_full)
    }

    /// Shutdown began and the connection could not be shut for reading: read no more.
    pub(in crate::server) fn stop_reading(&mut self) {
        self.reading = false;
    }

    /// Nothing more to read and every answer given: the connection is done.
    pub(in crate::server) fn is_finished(&self) -> bool {
        !self.reading && self.queue.is_empty() && self.out.is_empty() && self.events.is_empty()
    }

    /// Whether the connection may be evicted now (no call in flight).
    pub(in crate::server) fn evictable(&self) -> bool {
        !self.busy
    }
}

#[cfg(test)]
mod harness;
#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;
