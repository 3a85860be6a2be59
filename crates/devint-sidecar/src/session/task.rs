//! One session's task: it owns the authorised client and answers its queue strictly in
//! order, one call at a time, and polls its follows while the queue is idle.
//!
//! This module owns the per-call standing decision (spec §8, the `devint` command's own
//! `decide`), the rendering of each answer as the view's JSON (the `devint` command's
//! `--output json` serialisation), follows and their notifications, and what happens when
//! the runtime goes away: the call in flight fails with `connection_lost`, every follow
//! ends with a notification saying so, and every later call on the session fails the same
//! way without touching the dead connection. It must never answer two calls of one session
//! out of order, and never send a verb the standing refuses.

use devint::time::UnixSecs;
use devint::verbs::{ScopedEventList, Verb, VerbCall, VerbResult};
use devint_net::client::{decide_for_verb, ClientIoError, Decision};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::open::Opened;
use super::Job;
use crate::error::{ErrorKind, SidecarError};
use crate::follow::Cursor;
use crate::method::EVENTS_EVENT;
use crate::outbox::Outbox;
use crate::params::{FollowRequest, SessionCall};

/// One followed tool.
struct Follow {
    subscription: String,
    request: FollowRequest,
    cursor: Cursor,
    next_poll: Instant,
    seq: u64,
}

/// A session's state, owned by its task.
pub(super) struct Session {
    pub(super) id: String,
    pub(super) opened: Opened,
    pub(super) out: Outbox,
    pub(super) max_follows: usize,
    follows: Vec<Follow>,
    next_subscription: u64,
    /// Why the connection is unusable, once it is.
    lost: Option<String>,
}

impl Session {
    pub(super) fn new(id: String, opened: Opened, out: Outbox, max_follows: usize) -> Session {
        Session {
            id,
            opened,
            out,
            max_follows,
            follows: Vec::new(),
            next_subscription: 1,
            lost: None,
        }
    }

    /// Answer the queue until it closes (the host closed the session, or stdin ended).
    pub(super) async fn run(mut self, mut jobs: mpsc::Receiver<Job>) {
        loop {
            let next_poll = self.follows.iter().map(|f| f.next_poll).min();
            tokio::select! {
                biased;
                job = jobs.recv() => match job {
                    None => break,
                    Some(Job { id, call: SessionCall::Close }) => {
                        self.end_follows("the session was closed").await;
                        self.out.result(&id, named(&self.id, json!({"closed": true}))).await;
                        return;
                    }
                    Some(Job { id, call }) => {
                        let answer = self.answer(call).await;
                        match answer {
                            Ok(result) => self.out.result(&id, result).await,
                            Err(error) => self.out.error(Some(&id), &error).await,
                        };
                    }
                },
                () = sleep_until(next_poll), if next_poll.is_some() => self.poll_due().await,
            }
        }
        self.end_follows("the sidecar's input ended").await;
    }

    async fn answer(&mut self, call: SessionCall) -> Result<Value, SidecarError> {
        match call {
            SessionCall::Verb(call) => {
                let result = self.call(call).await?;
                view_json(&result)
            }
            SessionCall::Follow(request) => self.follow(request).await,
            SessionCall::Refuse(error) => Err(*error),
            SessionCall::Close => Err(SidecarError::internal("close is answered by run")),
        }
    }

    /// Send one verb, after the standing allows it.
    async fn call(&mut self, call: VerbCall) -> Result<VerbResult, SidecarError> {
        if let Some(why) = &self.lost {
            return Err(lost_error(&self.id, why));
        }
        self.permit(call.verb())?;
        match self.opened.client.call(call).await {
            Ok(result) => Ok(result),
            Err(e) => Err(self.failed(&e).await),
        }
    }

    /// The spec §8 decision for `verb` on this session's runtime.
    fn permit(&self, verb: Verb) -> Result<(), SidecarError> {
        let standing = &self.opened.standing;
        match decide_for_verb(standing, verb, self.opened.allow_unverified) {
            Decision::Proceed => Ok(()),
            Decision::ProceedUnverifiable => {
                tracing::warn!(session = %self.id, %verb, "the runtime is unverifiable; a read-only verb proceeds");
                Ok(())
            }
            Decision::ProceedOverridden => {
                tracing::warn!(session = %self.id, %verb, "the runtime is unverifiable; a privileged verb proceeds only because allow_unverified_runtime was given");
                Ok(())
            }
            Decision::Refuse(refusal) => Err(SidecarError::new(
                ErrorKind::StandingRefused,
                format!(
                    "{verb} refused: the runtime is {} ({})",
                    standing.token(),
                    devint_net::client::standing_reason(standing).unwrap_or_default()
                ),
            )
            .fix(
                "restart the runtime from an identified build matching this sidecar, or open \
                 the session with allow_unverified_runtime: true to proceed anyway",
            )
            .with_exit(refusal.exit())
            .with_runtime(self.opened.report.clone())),
        }
    }

    /// A failed call, reported; a lost connection also ends the follows and poisons the
    /// session.
    async fn failed(&mut self, e: &ClientIoError) -> SidecarError {
        let error = SidecarError::from_client(e);
        if e.is_connection_lost() {
            self.lost = Some(e.to_string());
            self.end_follows(&error.message).await;
        }
        error
    }

    async fn follow(&mut self, request: FollowRequest) -> Result<Value, SidecarError> {
        if request.follow && self.follows.len() >= self.max_follows {
            return Err(SidecarError::new(
                ErrorKind::Limit,
                format!("this session already follows {} tools", self.follows.len()),
            )
            .fix("close the session to end its follows, or open another session"));
        }
        let list = self
            .scoped_events(&request, UnixSecs::new(request.since))
            .await?;
        let mut result = view_json(&VerbResult::ScopedEvents(list.clone()))?;
        let mut subscription = Value::Null;
        if request.follow {
            let mut cursor = Cursor::new(UnixSecs::new(request.since));
            cursor.advance(list.events);
            let name = format!("{}/f-{}", self.id, self.next_subscription);
            self.next_subscription += 1;
            subscription = Value::String(name.clone());
            self.follows.push(Follow {
                subscription: name,
                next_poll: Instant::now() + request.interval,
                request,
                cursor,
                seq: 0,
            });
        }
        result["subscription"] = subscription;
        Ok(result)
    }

    async fn scoped_events(
        &mut self,
        request: &FollowRequest,
        since: UnixSecs,
    ) -> Result<ScopedEventList, SidecarError> {
        let call = VerbCall::ScopedEvents {
            tool: request.tool.clone(),
            limit: request.limit,
            since,
        };
        match self.call(call).await? {
            VerbResult::ScopedEvents(list) => Ok(list),
            other => Err(SidecarError::internal(format!(
                "scoped_events was answered with a {} view",
                other.verb()
            ))),
        }
    }

    /// Poll every follow that is due, in subscription order; deliver what is new.
    async fn poll_due(&mut self) {
        let now = Instant::now();
        let mut i = 0;
        while i < self.follows.len() {
            if self.follows[i].next_poll > now {
                i += 1;
                continue;
            }
            let (request, since) = (
                self.follows[i].request.clone(),
                self.follows[i].cursor.since(),
            );
            match self.scoped_events(&request, since).await {
                Ok(list) => {
                    // `end_follows` may have run inside the call; the index is checked again.
                    let Some(follow) = self.follows.get_mut(i) else {
                        return;
                    };
                    for event in follow.cursor.advance(list.events) {
                        follow.seq += 1;
                        let params = named(
                            &self.id,
                            json!({
                                "subscription": follow.subscription,
                                "seq": follow.seq,
                                "kind": "event",
                                "event": event,
                            }),
                        );
                        self.out.notify(EVENTS_EVENT, params).await;
                    }
                    follow.next_poll = Instant::now() + follow.request.interval;
                    i += 1;
                }
                Err(error) => {
                    if i < self.follows.len() {
                        let follow = self.follows.remove(i);
                        self.notify_end(&follow, &error).await;
                    }
                }
            }
        }
    }

    async fn notify_end(&self, follow: &Follow, error: &SidecarError) {
        let params = named(
            &self.id,
            json!({
                "subscription": follow.subscription,
                "seq": follow.seq + 1,
                "kind": "ended",
                "error": error.to_object(),
            }),
        );
        self.out.notify(EVENTS_EVENT, params).await;
    }

    async fn end_follows(&mut self, why: &str) {
        let ended = SidecarError::new(ErrorKind::ConnectionLost, why.to_owned())
            .fix("follow again on an open session");
        for follow in std::mem::take(&mut self.follows) {
            self.notify_end(&follow, &ended).await;
        }
    }
}

fn lost_error(session: &str, why: &str) -> SidecarError {
    SidecarError::new(
        ErrorKind::ConnectionLost,
        format!("session {session} lost its runtime connection earlier ({why}); nothing was sent"),
    )
    .fix("close this session and open a new one (`session/open`)")
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// A verb's answer as JSON: the view alone, serialised as the `devint` command's
/// `--output json` serialises it (`result` of `devint.cli.v1`).
pub fn view_json(result: &VerbResult) -> Result<Value, SidecarError> {
    let value = match result {
        VerbResult::ListTools(v) => serde_json::to_value(v),
        VerbResult::Plan(v) => serde_json::to_value(v),
        VerbResult::Apply(v) => serde_json::to_value(v),
        VerbResult::Status(v) => serde_json::to_value(v),
        VerbResult::Verify(v) => serde_json::to_value(v),
        VerbResult::Repair(v) => serde_json::to_value(v),
        VerbResult::Remove(v) => serde_json::to_value(v),
        VerbResult::ScopedEvents(v) => serde_json::to_value(v),
        VerbResult::ApprovalRelay(v) => serde_json::to_value(v),
    };
    // Views serialise plain fields only; a failure would be a bug, reported, never guessed.
    value.map_err(|e| SidecarError::internal(format!("cannot render the view as JSON: {e}")))
}

/// `fields` with the session's name added, in both spellings (`params::session_keys`).
fn named(id: &str, mut fields: Value) -> Value {
    if let Value::Object(map) = &mut fields {
        map.extend(crate::params::session_keys(id));
    }
    fields
}
