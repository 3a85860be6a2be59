//! `devint whoami`: which token the lifecycle commands would use, whose it is, what it
//! covers, until when, and the runtime it would be sent to.
//!
//! The token is read as a lifecycle command reads it ([`crate::token::TokenSource`]) and
//! looked up in this user's enrolment book by its digest; the runtime is negotiated with
//! (a `Hello` needs no token) but sent no request. It never prints the secret. Exit 8 when
//! there is no usable token — none, unreadable, revoked (the book has no record of it) or
//! expired — with the command that enrols it again; 0 otherwise (a runtime that is not
//! running, or a book this user cannot read, is reported, not a failure).

use devint::auth::EnrolmentRecord;
use devint::time::UnixSecs;
use serde_json::json;

use crate::connect;
use crate::enrol;
use crate::exit::{CliError, Exit};
use crate::output::Out;
use crate::socket::SocketChoice;
use crate::standing;
use crate::state::StateDir;
use crate::token::{self, Lookup, TokenSource};
use crate::words;

/// Run `whoami`.
pub async fn run(
    out: &Out,
    socket: &SocketChoice,
    state: &StateDir,
    source: &TokenSource,
) -> Result<Exit, CliError> {
    let secret = source.read()?;
    let lookup = token::lookup(&secret, Some(state));
    drop(secret);
    let now = words::now_unix_secs();
    let unreadable = match &lookup {
        Lookup::Unreadable(why) => why.clone(),
        Lookup::Enrolled(_) | Lookup::Unknown => String::new(),
    };
    let record = usable(lookup, source, state, now)?;
    let runtime = match connect::negotiate(socket).await {
        Ok(n) => Some((n.info, standing::explain(&n.standing))),
        Err(e) if e.exit == Exit::NotRunning => None,
        Err(e) => return Err(e),
    };
    let doc = json!({
        "token_source": source.json(),
        "token_id": record.as_ref().map(|r| r.token_id().as_str()),
        "client_name": record.as_ref().map(|r| r.client_name().as_str()),
        "scope": record.as_ref().map(|r| {
            let (tools, verbs) = enrol::scope_words(r.scope());
            json!({ "tools": tools, "verbs": verbs })
        }),
        "expires_at_unix_secs": record.as_ref().map(|r| r.expires_at()),
        "expired": record.as_ref().map(|r| r.is_expired(UnixSecs::new(now))),
        "book": state.book().display().to_string(),
        "socket": socket.path().display().to_string(),
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
                    format!(
                        "{} (token {})",
                        r.client_name().as_str(),
                        r.token_id().as_str()
                    ),
                ]);
                t.row(["scope".to_owned(), format!("{tools}; {verbs}")]);
                t.row([
                    "expires".to_owned(),
                    words::expiry(r.expires_at().get(), now),
                ]);
            }
            None => t.row([
                "client".to_owned(),
                format!("unknown: the enrolment book could not be read ({unreadable})"),
            ]),
        }
        t.row(["socket".to_owned(), socket.path().display().to_string()]);
        t.row([
            "runtime".to_owned(),
            match &runtime {
                None => "not running (`devint serve` starts one)".to_owned(),
                Some((info, why)) => format!(
                    "{}{}, DI-API {}",
                    info["standing"].as_str().unwrap_or("?"),
                    if why.is_empty() {
                        String::new()
                    } else {
                        format!(" ({why})")
                    },
                    info["di_api_version"]
                ),
            },
        ]);
        // The header row of an untitled table is empty: drop it.
        t.render("").trim_start_matches('\n').to_owned()
    })?;
    Ok(Exit::Ok)
}

/// The token's record when the token is usable (`None`: the book could not be read, so
/// nothing can be said); a token the book has no record of, or an expired one, is exit 8
/// with the command that enrols the client again.
fn usable(
    lookup: Lookup,
    source: &TokenSource,
    state: &StateDir,
    now: u64,
) -> Result<Option<EnrolmentRecord>, CliError> {
    match lookup {
        Lookup::Enrolled(r) if r.is_expired(UnixSecs::new(now)) => Err(CliError::new(
            Exit::Denied,
            format!(
                "token {} of client {} ({}) expired at {} ({}); the runtime denies it",
                r.token_id().as_str(),
                r.client_name().as_str(),
                source.describe(),
                words::time(r.expires_at().get()),
                words::relative(r.expires_at().get())
            ),
        )
        .fix(format!(
            "enrol the client again (its expired token is revoked): `{}`",
            enrol::command_for(r.client_name(), r.scope(), None)
        ))),
        Lookup::Enrolled(r) => Ok(Some(r)),
        Lookup::Unknown => Err(CliError::new(
            Exit::Denied,
            format!(
                "{} holds a token the enrolment book at {} has no record of: it was revoked, or enrolled with another state directory; the runtime denies it",
                source.describe(),
                state.book().display()
            ),
        )
        .fix(format!(
            "enrol it again: {} (or pass the --state-dir of the runtime that enrolled it)",
            source.enrol_hint()
        ))),
        Lookup::Unreadable(_) => Ok(None),
    }
}
