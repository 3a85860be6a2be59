//! `session/open`: connect, negotiate, decide the standing (spec §8), then read the token —
//! in the order the `devint` command does, so "not running" wins over "not enrolled" and no
//! token is read for a runtime that is refused.
//!
//! This module owns where a session's socket and token file are, and the `session/open`
//! result (the runtime report the CLI's JSON carries, the negotiation, the token file used).
//! It must never read the token before the standing is decided, never open a session on a
//! refuted runtime (every verb would be refused, exit 10), and never put the token anywhere
//! but into the authorised client.

use std::path::PathBuf;

use devint::provenance::Standing;
use devint::verbs::Verb;
use devint_net::client::{
    decide_for_verb, own_token_file, token_file, AuthorizedClient, ClientIoError, ClientOptions,
    Decision, DevIntClient, RuntimeReport,
};
use devint_net::token_file::read_token_file;
use devint_net::transport::{socket_path, SocketDiscovery};
use serde_json::{json, Value};

use crate::config::Options;
use crate::error::{ErrorKind, SidecarError};
use crate::params::{DiscoverParams, OpenParams, TokenSource};

/// The most DI-API versions a host may offer (the window has five).
const MAX_OFFERED_VERSIONS: usize = 16;

/// A negotiated, authorised connection and what the session needs to know about it.
pub struct Opened {
    /// The client, holding the token.
    pub client: AuthorizedClient,
    /// The standing, decided once as the session opened.
    pub standing: Standing,
    /// Whether privileged verbs may proceed on an unverifiable runtime.
    pub allow_unverified: bool,
    /// The runtime report (the `runtime` object of the result and of refusals).
    pub report: Value,
    /// The `session/open` result, without its `session_id`.
    pub result: Value,
}

/// Where the socket is: the params', else the sidecar's default, else the environment's.
fn socket(
    explicit: Option<PathBuf>,
    options: &Options,
) -> Result<(PathBuf, &'static str), SidecarError> {
    if let Some(path) = explicit {
        if !path.is_absolute() {
            return Err(SidecarError::params("socket must be an absolute path")
                .fix("pass the socket's absolute path, or leave `socket` out"));
        }
        return Ok((path, "params"));
    }
    if let Some(path) = &options.default_socket {
        if !path.is_absolute() {
            return Err(SidecarError::new(
                ErrorKind::Socket,
                format!(
                    "the sidecar's --socket {} is not an absolute path",
                    path.display()
                ),
            )
            .fix("start the sidecar with an absolute --socket"));
        }
        return Ok((path.clone(), "option"));
    }
    let env = &options.environment;
    let source = if env.socket.as_deref().is_some_and(|s| !s.is_empty()) {
        "environment"
    } else {
        "default"
    };
    socket_path(env.socket.as_deref(), env.home.as_deref())
        .map(|p| (p, source))
        .map_err(|e| SidecarError::from_client(&ClientIoError::Discovery(e)))
}

/// `runtime/discover`: the socket path, where it came from, and whether a socket is there.
pub fn discover(params: DiscoverParams, options: &Options) -> Result<Value, SidecarError> {
    let (path, source) = socket(params.socket, options)?;
    let found = SocketDiscovery::at(path)
        .map_err(|e| SidecarError::from_client(&ClientIoError::Discovery(e)))?;
    let present = matches!(found, SocketDiscovery::Present(_));
    Ok(json!({
        "socket": found.path().display().to_string(),
        "source": source,
        "present": present,
        "remediation": if present { None } else {
            Some("no runtime is running there: start one with `devint serve`")
        },
    }))
}

/// Open a session as `params` say.
pub async fn open(params: OpenParams, options: &Options) -> Result<Opened, SidecarError> {
    let source = params.token_source()?;
    let (socket, _) = socket(params.socket.clone(), options)?;
    let versions = match params.di_api_versions.clone() {
        Some(v) if v.len() > MAX_OFFERED_VERSIONS => {
            return Err(SidecarError::params(format!(
                "di_api_versions lists {} versions; at most {MAX_OFFERED_VERSIONS}",
                v.len()
            ))
            .fix("offer the versions you speak (the window is 1 to 5), or leave it out"))
        }
        Some(v) => v,
        None => ClientOptions::default().versions,
    };
    let client_options = ClientOptions {
        versions,
        ..options.client.clone()
    };
    // Through a hand-over of the runtime's socket, as the `devint` command connects: a
    // runtime being upgraded to this binary is asked again, never judged mid-upgrade.
    let negotiated = DevIntClient::connect_through_handover(
        &socket,
        &params.client_name,
        &params.client_version,
        client_options,
    )
    .await
    .map_err(|e| SidecarError::from_client(&e))?;

    // spec §8: the multiplicity scan runs once, as the session opens (up to 500 ms of
    // non-blocking probes: off the async threads).
    let (scan_socket, provenance) = (socket.clone(), negotiated.provenance().cloned());
    let standing = tokio::task::spawn_blocking(move || {
        devint_net::client::assess_standing(&scan_socket, provenance.as_ref())
    })
    .await
    .map_err(|e| SidecarError::internal(format!("the standing check failed: {e}")))?;
    let allow_unverified = params.allow_unverified_runtime || options.allow_unverified_runtime;
    let overridden = allow_unverified && matches!(standing, Standing::Unverifiable(_));
    let report = serde_json::to_value(RuntimeReport::new(
        &socket,
        negotiated.ack(),
        &standing,
        overridden,
    ))
    .map_err(|e| SidecarError::internal(e.to_string()))?;
    // A refuted runtime refuses every verb (exit 10), read-only ones too: there is no
    // session to open. `list_tools` is the least privileged verb.
    if let Decision::Refuse(refusal) = decide_for_verb(&standing, Verb::ListTools, allow_unverified)
    {
        return Err(SidecarError::new(
            ErrorKind::StandingRefused,
            format!(
                "session/open refused: the runtime is {} ({})",
                standing.token(),
                devint_net::client::standing_reason(&standing).unwrap_or_default()
            ),
        )
        .fix(
            "stop the other runtime, or restart the runtime from the build this sidecar is \
             (`devint serve`)",
        )
        .with_exit(refusal.exit())
        .with_runtime(report));
    }

    let token_file = match source {
        TokenSource::File(path) => path,
        TokenSource::Client(name) => own_token_file(&socket, &name),
        TokenSource::Default(name) => token_file(
            &socket,
            name.as_ref(),
            options.environment.token_file.as_deref(),
        )
        .map(|choice| choice.path().to_path_buf())
        .ok_or_else(|| {
            SidecarError::params(
                "session/open names no token file: client_name is not an enrolled client's name \
                 (1 to 64 characters from A-Z a-z 0-9 - _ . @), so there is no \
                 <client_name>.token beside the socket, and AA_DEVINT_TOKEN_FILE is unset",
            )
            .fix("pass `client` (the name given to `devint enrol --client`) or `token_file`")
        })?,
    };
    let read_from = token_file.clone();
    let token = tokio::task::spawn_blocking(move || read_token_file(&read_from))
        .await
        .map_err(|e| SidecarError::internal(format!("reading the token file failed: {e}")))?
        .map_err(|e| SidecarError::from_client(&ClientIoError::TokenFile(e)))?;

    let ack = negotiated.ack();
    let text = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    let result = json!({
        "runtime": report,
        "negotiation": {
            "outcome": if negotiated.is_degraded() { "degraded" } else { "supported" },
            "di_api_version": ack.di_api_version,
            "lifecycle_schema_version": ack.lifecycle_schema_version,
            "min_supported": ack.min_supported,
            "max_supported": ack.max_supported,
            "unavailable_verbs": ack.unavailable_verbs,
            "degraded_reason": text(&ack.degraded_reason),
            "remediation": text(&ack.remediation),
        },
        "token_file": token_file.display().to_string(),
    });
    Ok(Opened {
        client: negotiated.authorize(token),
        standing,
        allow_unverified,
        report,
        result,
    })
}
