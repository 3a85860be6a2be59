//! Opening a DI-API session for one lifecycle command: connect, negotiate, assess the
//! runtime's standing (spec §8), then hold the token.
//!
//! This module owns [`Ctx`] (where the runtime and the token are, how to print) and
//! [`RuntimeSession`]. Every lifecycle command goes through [`open`]: there is no
//! in-process shortcut to a backend. It must never send a request before the standing has
//! been decided, and never read the token before the runtime answered (so "not running"
//! wins over "not enrolled").

use std::path::{Path, PathBuf};

use devint::provenance::Standing;
use devint::wire::pb;
use devint_net::client::{AuthorizedClient, ClientOptions, DevIntClient, RuntimeReport};
use serde_json::Value;

use crate::exit::CliError;
use crate::output::Out;
use crate::standing::{self, Decision};

/// The client name sent in `Hello`.
pub const CLIENT_NAME: &str = "devint-cli";

/// Everything a lifecycle command needs to reach a runtime.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The runtime's socket.
    pub socket: PathBuf,
    /// The client's token file.
    pub token_file: PathBuf,
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
}

/// Connect to the runtime for `command`, decide the standing (`privileged` per spec §8:
/// apply, verify, repair, remove) and authorise with the token file.
pub async fn open(ctx: &Ctx, command: &str, privileged: bool) -> Result<RuntimeSession, CliError> {
    let negotiated = DevIntClient::connect_with(
        &ctx.socket,
        CLIENT_NAME,
        env!("CARGO_PKG_VERSION"),
        ClientOptions::default(),
    )
    .await?;
    let provenance = negotiated.provenance().cloned();
    let standing = standing::assess(&ctx.socket, provenance.as_ref());
    let decision = standing::decide(&standing, privileged, ctx.allow_unverified);
    let info = runtime_info(
        &ctx.socket,
        negotiated.ack(),
        &standing,
        decision == Decision::ProceedOverridden,
    );
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
            return Err(standing::refusal(&standing, refused.exit(), command).with_runtime(&info));
        }
    }
    let token = devint_net::token_file::read_token_file(&ctx.token_file)
        .map_err(devint_net::client::ClientIoError::from)?;
    Ok(RuntimeSession {
        client: negotiated.authorize(token),
        info,
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
