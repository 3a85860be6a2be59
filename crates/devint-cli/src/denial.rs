//! What a person reads when the runtime says no: which verb on which tool was refused,
//! why, and the command that would fix it.
//!
//! This module owns the explanation of a `Denied` (spec §6) for one call of a lifecycle
//! command: the runtime's code becomes an exit code ([`crate::exit::exit_for_denial`]) and
//! a sentence naming the verb and the tool; an unknown tool gets the closest known id. The
//! JSON error carries the same facts as `error.denial` (wire tokens). A token is named by
//! its id, client and scope from this user's enrolment book (looked up by the secret's
//! digest, [`crate::token::record_of`]), with the `devint enrol` command that would cover
//! the refused call. It must never print a token's secret.

use devint::session::client::ClientError;
use devint::verbs::{ToolId, Verb, VerbSet};
use devint::wire::pb::DenyCode;
use devint_net::client::ClientIoError;
use serde_json::json;

use crate::args;
use crate::enrol;
use crate::exit::{deny_token, CliError, Exit};
use crate::suggest;
use crate::token::Holder;

/// The call that was refused.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The verb sent.
    pub verb: Verb,
    /// The tool it was about, if any.
    pub tool: Option<&'a ToolId>,
    /// Every verb the command sends (`verb` among them): what a fix must cover.
    pub needs: VerbSet,
}

impl Call<'_> {
    /// "verify claude-code", "list the tools".
    fn words(&self) -> String {
        let verb = verb_words(self.verb);
        match self.tool {
            Some(t) => format!("{verb} {t}"),
            None => verb.to_owned(),
        }
    }
}

/// A verb as the action a person asked for.
pub fn verb_words(verb: Verb) -> &'static str {
    match verb {
        Verb::ListTools => "list the tools",
        Verb::Plan => "plan",
        Verb::Apply => "apply",
        Verb::Status => "read the status of",
        Verb::Verify => "verify",
        Verb::Repair => "repair",
        Verb::Remove => "remove",
        Verb::ScopedEvents => "read the events of",
        Verb::ApprovalRelay => "relay approvals for",
    }
}

/// Explain `e`, the failure of `call` made with `holder`'s token.
pub fn explain(e: ClientIoError, call: Call<'_>, holder: &Holder) -> CliError {
    let ClientIoError::Session(ClientError::Denied {
        code,
        message,
        remediation,
        ..
    }) = e
    else {
        return CliError::from(e);
    };
    let tool_words = call.tool.map(ToString::to_string);
    let record = holder.record.as_ref();
    let who = match record {
        Some(r) => format!(
            "token {} (client {})",
            r.token_id().as_str(),
            r.client_name().as_str()
        ),
        None => format!("the token from {}", holder.source.describe()),
    };
    let (text, fix) = match code {
        DenyCode::Unauthenticated => match record {
            Some(_) => (
                format!(
                    "the runtime does not know {who}, though this user's enrolment book does: the runtime reads another state directory"
                ),
                "run the command against the runtime of that state directory (--socket), or enrol with the runtime's own (--state-dir)".to_owned(),
            ),
            None => (
                format!(
                    "the runtime does not know {who} (never enrolled with it, or revoked), so it would not {}",
                    call.words()
                ),
                format!("enrol the client: {}", holder.source.enrol_hint()),
            ),
        },
        DenyCode::TokenExpired => (
            format!("{who} has expired, so the runtime would not {}", call.words()),
            match record {
                Some(r) => format!(
                    "enrol the client again (the old token is revoked): `{}`",
                    enrol::command_for(r.client_name(), r.scope(), None)
                ),
                None => format!("enrol the client again: {}", holder.source.enrol_hint()),
            },
        ),
        DenyCode::OutOfScope => match record {
            Some(r) => {
                let (tools, verbs) = enrol::scope_words(r.scope());
                (
                    format!(
                        "{who} may not {}: its scope is {tools}, {verbs}",
                        call.words()
                    ),
                    format!(
                        "enrol the client again with a scope that covers it (the old token is revoked): `{}`",
                        enrol::command_for(
                            r.client_name(),
                            r.scope(),
                            Some((call.needs, call.tool))
                        )
                    ),
                )
            }
            None => (
                format!("{who} does not allow it to {}", call.words()),
                "enrol the client again with that verb and tool in its scope (`devint enrol --client NAME --tool TOOL --verbs …`)".to_owned(),
            ),
        },
        DenyCode::UnknownTool => (
            format!(
                "the runtime has no adapter for {}{}",
                tool_words.as_deref().unwrap_or("this tool"),
                call.tool
                    .map(|t| suggest::did_you_mean(t.as_str(), args::known_tools()))
                    .unwrap_or_default()
            ),
            "`devint tools` lists the tools it knows".to_owned(),
        ),
        _ => (
            format!("the runtime refused to {}: {message}", call.words()),
            remediation,
        ),
    };
    let mut error = CliError::new(Exit::for_denial(code), text).fix(fix);
    error.denial = Some(json!({
        "code": deny_token(code),
        "verb": call.verb.token(),
        "tool": tool_words,
        "token_id": record.map(|r| r.token_id().as_str()),
    }));
    error
}
