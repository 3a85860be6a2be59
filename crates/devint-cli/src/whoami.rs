//! `devint whoami`: which token the lifecycle commands would use, whose it is, what it
//! covers, until when, and the runtime it would be sent to.
//!
//! The token is read as a lifecycle command reads it ([`crate::token::TokenSource`]) and
//! looked up in this user's enrolment book by its digest; the runtime is negotiated with
//! (a `Hello` needs no token) but sent no request. It never prints the secret. Exit 8 when
//! there is no usable token, 0 otherwise (a runtime that is not running is reported, not a
//! failure).

use std::path::Path;

use serde_json::json;

use crate::connect;
use crate::enrol;
use crate::exit::{CliError, Exit};
use crate::output::Out;
use crate::standing;
use crate::state::StateDir;
use crate::token::{self, TokenSource};
use crate::words;

/// Run `whoami`.
pub async fn run(
    out: &Out,
    socket: &Path,
    state: &StateDir,
    source: &TokenSource,
) -> Result<Exit, CliError> {
    let secret = source.read()?;
    let record = token::record_of(&secret, Some(state));
    drop(secret);
    let runtime = match connect::negotiate(socket).await {
        Ok(n) => Some((n.info, standing::explain(&n.standing))),
        Err(e) if e.exit == Exit::NotRunning => None,
        Err(e) => return Err(e),
    };
    let now = words::now_unix_secs();
    let doc = json!({
        "token_source": source.json(),
        "token_id": record.as_ref().map(|r| r.token_id().as_str()),
        "client_name": record.as_ref().map(|r| r.client_name().as_str()),
        "scope": record.as_ref().map(|r| {
            let (tools, verbs) = enrol::scope_words(r.scope());
            json!({ "tools": tools, "verbs": verbs })
        }),
        "expires_at_unix_secs": record.as_ref().map(|r| r.expires_at()),
        "expired": record.as_ref().map(|r| r.is_expired(devint::time::UnixSecs::new(now))),
        "book": state.book().display().to_string(),
        "socket": socket.display().to_string(),
        "runtime_reachable": runtime.is_some(),
    });
    let info = runtime.as_ref().map(|(info, _)| info);
    out.result("whoami", info, &doc, |p| {
        let mut t = p.table(&["", ""]);
        t.row(["token".to_owned(), source.describe()]);
        match &record {
            Some(r) => {
                let (tools, verbs) = enrol::scope_words(r.scope());
                t.row([
                    "client".to_owned(),
                    format!("{} (token {})", r.client_name().as_str(), r.token_id().as_str()),
                ]);
                t.row(["scope".to_owned(), format!("{tools}; {verbs}")]);
                t.row([
                    "expires".to_owned(),
                    words::expiry(r.expires_at().get(), now),
                ]);
            }
            None => t.row([
                "client".to_owned(),
                format!(
                    "not in the enrolment book at {} (revoked, or enrolled with another state directory)",
                    state.book().display()
                ),
            ]),
        }
        t.row(["socket".to_owned(), socket.display().to_string()]);
        t.row([
            "runtime".to_owned(),
            match &runtime {
                None => "not running (`devint serve` starts one)".to_owned(),
                Some((info, why)) => format!(
                    "{}{}, DI-API {}",
                    info["standing"].as_str().unwrap_or("?"),
                    if why.is_empty() { String::new() } else { format!(" ({why})") },
                    info["di_api_version"]
                ),
            },
        ]);
        // The header row of an untitled table is empty: drop it.
        t.render("").trim_start_matches('\n').to_owned()
    })?;
    Ok(Exit::Ok)
}
