//! Opening a DI-API session for one lifecycle command: connect, negotiate, assess the
//! runtime's standing (spec §8), then hold the token.
//!
//! This module owns [`Ctx`] (where the runtime and the token are, how to print) and
//! [`RuntimeSession`]. Every lifecycle command goes through [`open`]: there is no
//! in-process shortcut to a backend. It must never send a request before the standing has
//! been decided, and never read the token before the runtime answered (so "not running"
//! wins over "not enrolled").

use std::path::Path;

use devint::provenance::Standing;
use devint::verbs::{ToolId, Verb, VerbSet};
use devint::wire::pb;
use devint_net::client::{
    AuthorizedClient, ClientIoError, ClientOptions, DevIntClient, NegotiatedClient, RuntimeReport,
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
}

impl RuntimeSession {
    /// An error that carries what we know about the runtime.
    pub fn fail(&self, e: impl Into<CliError>) -> CliError {
        e.into().with_runtime(&self.info)
    }

    /// The failure of a call of `verb` on `tool`, explained ([`crate::denial`]).
    pub fn refused(&self, verb: Verb, tool: Option<&ToolId>, e: ClientIoError) -> CliError {
        let call = denial::Call {
            verb,
            tool,
            needs: self.needs.with(verb),
        };
        denial::explain(e, call, &self.holder).with_runtime(&self.info)
    }
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

/// Connect and negotiate with the runtime at `socket`, and assess its standing. A socket
/// nobody can be reached on is explained in the terms the user chose it by.
pub async fn negotiate(socket: &SocketChoice) -> Result<Negotiated, CliError> {
    let client = DevIntClient::connect_with(
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
    let Negotiated {
        client,
        standing,
        mut info,
    } = negotiate(&ctx.socket).await?;
    let decision = standing::decide_for_verb(&standing, verb, ctx.allow_unverified);
    if decision == Decision::ProceedOverridden {
        info["standing_overridden"] = json!(true);
    }
    match decision {
        Decision::Proceed => {}
        Decision::ProceedUnverifiable => ctx.out.warn(&format!(
            "the runtime is unverifiable ({}); read-only commands proceed, privileged ones \
             will be refused",
            standing::explain(&standing)
        )),
        Decision::ProceedOverridden => ctx.out.warn(&format!(
            "the runtime is unverifiable ({}); proceeding with `{command}` only because \
             --allow-unverified-runtime was given",
            standing::explain(&standing)
        )),
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
    Ok(RuntimeSession {
        client: client.authorize(token),
        info,
        holder,
        needs: also
            .iter()
            .fold(VerbSet::EMPTY.with(verb), |set, v| set.with(*v)),
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
