//! Opening a DI-API session for one lifecycle command: connect, negotiate, assess the
//! runtime's standing (spec §8), then hold the token.
//!
//! This module owns [`Ctx`] (where the runtime and the token are, how to print) and
//! [`RuntimeSession`], whose [`RuntimeSession::call`] sends each request and, when a
//! hand-over of the runtime's socket closed the connection under it, sends it once more
//! on a new one where that is safe. Every lifecycle command goes through [`open`]: there
//! is no in-process shortcut to a backend. It must never send a request before the
//! standing of the runtime that will receive it has been decided (a new connection is
//! judged again), never send again a change that may have been made, and never read the
//! token before the runtime answered (so "not running" wins over "not enrolled").

use std::path::Path;

use devint::provenance::Standing;
use devint::verbs::{ToolId, Verb, VerbCall, VerbSet};
use devint::wire::pb;
use devint_net::client::{
    AuthorizedClient, ClientIoError, ClientOptions, DevIntClient, NegotiatedClient, RuntimeReport,
    VerbAnswer,
};
use serde_json::{json, Value};

use crate::denial;
use crate::exit::CliError;
use crate::output::Out;
use crate::socket::SocketChoice;
use crate::standing::{self, Decision};
use crate::token::{self, Holder, TokenSource};

/// The client name sent in `Hello`.
pub const CLIENT_NAME: &str = "devint-cli";

/// Everything a lifecycle command needs to reach a runtime.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The runtime's socket, and how it was chosen.
    pub socket: SocketChoice,
    /// Where the token comes from.
    pub token: TokenSource,
    /// How to print.
    pub out: Out,
    /// `--allow-unverified-runtime`.
    pub allow_unverified: bool,
}

/// A negotiated, authorised connection and what we know about the runtime behind it.
pub struct RuntimeSession {
    /// The client, holding the token.
    pub client: AuthorizedClient,
    /// The `runtime` object of the JSON envelope.
    pub info: Value,
    /// Whose token it holds.
    pub holder: Holder,
    /// Every verb the command sends: a scope that covers one refused call must cover them
    /// all, or following the fix only meets the next refusal.
    needs: VerbSet,
    /// The standing the session was opened with.
    standing: Standing,
    /// What it was opened for: where, by which command, for which verb's standing.
    ctx: Ctx,
    command: String,
    verb: Verb,
}

impl RuntimeSession {
    /// An error that carries what we know about the runtime.
    pub fn fail(&self, e: impl Into<CliError>) -> CliError {
        e.into().with_runtime(&self.info)
    }

    /// The failure of a call of `verb` on `tool`, explained ([`crate::denial`]).
    fn refused(&self, verb: Verb, tool: Option<&ToolId>, e: ClientIoError) -> CliError {
        let call = denial::Call {
            verb,
            tool,
            needs: self.needs.with(verb),
        };
        denial::explain(e, call, &self.holder).with_runtime(&self.info)
    }

    /// Send `call` and read its answer. A call that meets its connection closed by the
    /// runtime (a stop, or a hand-over of the socket to its next executable) is sent once
    /// more on a new connection — negotiated, judged (spec §8) and authorised again — when
    /// that is safe: a request never written, or a read-only verb
    /// ([`ClientIoError::may_send_again`]); never a change that may have been made. A
    /// failure is explained with the call it refused.
    pub async fn call<A: VerbAnswer>(&mut self, call: VerbCall) -> Result<A, CliError> {
        self.send(call).await.map_err(|failed| failed.error)
    }

    /// [`RuntimeSession::call`] for a change whose failure the command words as what did
    /// not happen (`not_done`: "plan … was not applied"): said only when the change was
    /// certainly not made, never when its outcome is unknown (the connection closed after
    /// the request was sent), which the error says instead.
    pub async fn change<A: VerbAnswer>(
        &mut self,
        call: VerbCall,
        not_done: &str,
    ) -> Result<A, CliError> {
        self.send(call)
            .await
            .map_err(|failed| match failed.outcome_unknown {
                true => failed.error,
                false => failed.error.context(not_done),
            })
    }

    async fn send<A: VerbAnswer>(&mut self, call: VerbCall) -> Result<A, Failed> {
        let verb = call.verb();
        let first = match self.client.call_for(call.clone()).await {
            Err(e) if e.may_send_again(verb) => e,
            answered => return answered.map_err(|e| self.failed(&call, e)),
        };
        tracing::debug!(error = %first, %verb, "the connection closed before the answer; asking again on a new one");
        self.reopen().await.map_err(|error| Failed {
            error,
            outcome_unknown: false,
        })?;
        let again = self.client.call_for(call.clone()).await;
        again.map_err(|e| self.failed(&call, e))
    }

    /// What the failure `e` of `call` means for the person.
    fn failed(&self, call: &VerbCall, e: ClientIoError) -> Failed {
        let (verb, tool) = (call.verb(), call.tool());
        if !matches!(e, ClientIoError::ClosedMidCall) || e.may_send_again(verb) {
            return Failed {
                error: self.refused(verb, tool, e),
                outcome_unknown: false,
            };
        }
        let status = match tool {
            Some(t) => format!("devint status {t}"),
            None => "devint status".to_owned(),
        };
        Failed {
            error: self.fail(
                CliError::internal(format!(
                    "the runtime closed the connection after the `{verb}` request was sent \
                     and before it answered: whether it was carried out is unknown"
                ))
                .fix(format!("`{status}` shows what the runtime holds now")),
            ),
            outcome_unknown: true,
        }
    }

    /// Connect, judge and authorise again, as [`open`] did, warning only about a standing
    /// other than the one the session was opened with.
    async fn reopen(&mut self) -> Result<(), CliError> {
        let opened = authorise(&self.ctx, &self.command, self.verb, Some(&self.standing)).await?;
        self.client = opened.client;
        self.info = opened.info;
        self.holder = opened.holder;
        self.standing = opened.standing;
        Ok(())
    }
}

/// A call that failed: the error, and whether what it asked for may have been done.
struct Failed {
    error: CliError,
    outcome_unknown: bool,
}

/// A negotiated connection (no token yet), its standing and the envelope's `runtime`.
pub struct Negotiated {
    /// The connection.
    pub client: NegotiatedClient,
    /// The standing of the runtime behind it.
    pub standing: Standing,
    /// The `runtime` object of the JSON envelope (standing not overridden).
    pub info: Value,
}

/// Connect and negotiate with the runtime at `socket` (through a hand-over of its socket:
/// [`DevIntClient::connect_through_handover`]), and assess its standing. A socket nobody
/// can be reached on is explained in the terms the user chose it by.
pub async fn negotiate(socket: &SocketChoice) -> Result<Negotiated, CliError> {
    let client = DevIntClient::connect_through_handover(
        socket.path(),
        CLIENT_NAME,
        env!("CARGO_PKG_VERSION"),
        ClientOptions::default(),
    )
    .await
    .map_err(|e| socket.unreachable(e))?;
    let socket = socket.path();
    let standing = standing::assess(socket, client.provenance());
    let info = runtime_info(socket, client.ack(), &standing, false);
    Ok(Negotiated {
        client,
        standing,
        info,
    })
}

/// Connect to the runtime for `command`, decide the standing for `verb` (spec §8) and
/// authorise with the token file. `also` lists the other verbs the command sends (`apply
/// --scope` plans first), so that a refusal's fix covers the whole command.
pub async fn open(
    ctx: &Ctx,
    command: &str,
    verb: Verb,
    also: &[Verb],
) -> Result<RuntimeSession, CliError> {
    let opened = authorise(ctx, command, verb, None).await?;
    Ok(RuntimeSession {
        client: opened.client,
        info: opened.info,
        holder: opened.holder,
        standing: opened.standing,
        needs: also
            .iter()
            .fold(VerbSet::EMPTY.with(verb), |set, v| set.with(*v)),
        ctx: ctx.clone(),
        command: command.to_owned(),
        verb,
    })
}

/// An authorised connection, as [`authorise`] makes it.
struct Authorised {
    client: AuthorizedClient,
    info: Value,
    holder: Holder,
    standing: Standing,
}

/// Negotiate, decide the standing for `verb` (warning about a standing that proceeds
/// unverified, unless it is `warned`, already told), then read the token.
async fn authorise(
    ctx: &Ctx,
    command: &str,
    verb: Verb,
    warned: Option<&Standing>,
) -> Result<Authorised, CliError> {
    let Negotiated {
        client,
        standing,
        mut info,
    } = negotiate(&ctx.socket).await?;
    let decision = standing::decide_for_verb(&standing, verb, ctx.allow_unverified);
    if decision == Decision::ProceedOverridden {
        info["standing_overridden"] = json!(true);
    }
    let warn = warned != Some(&standing);
    match decision {
        Decision::Proceed => {}
        Decision::ProceedUnverifiable if warn => ctx.out.warn(&format!(
            "the runtime is unverifiable ({}); read-only commands proceed, privileged ones \
             will be refused",
            standing::explain(&standing)
        )),
        Decision::ProceedOverridden if warn => ctx.out.warn(&format!(
            "the runtime is unverifiable ({}); proceeding with `{command}` only because \
             --allow-unverified-runtime was given",
            standing::explain(&standing)
        )),
        Decision::ProceedUnverifiable | Decision::ProceedOverridden => {}
        Decision::Refuse(refused) => {
            return Err(standing::refusal_naming(
                &standing,
                refused.exit(),
                command,
                ctx.socket.path(),
                client.provenance(),
            )
            .with_runtime(&info));
        }
    }
    let token = ctx.token.read().map_err(|e| e.with_runtime(&info))?;
    let holder = Holder {
        source: ctx.token.clone(),
        record: token::record_of(&token, None),
    };
    Ok(Authorised {
        client: client.authorize(token),
        info,
        holder,
        standing,
    })
}

/// The `runtime` object of the JSON envelope (the client library's [`RuntimeReport`],
/// shared with `devint sidecar`).
pub fn runtime_info(
    socket: &Path,
    ack: &pb::HelloAck,
    standing: &Standing,
    overridden: bool,
) -> Value {
    serde_json::to_value(RuntimeReport::new(socket, ack, standing, overridden))
        .unwrap_or(Value::Null)
}
