//! What a person reads when the runtime says no: which verb on which tool was refused,
//! why, and the command that would fix it.
//!
//! This module owns the explanation of a `Denied` (spec §6) for one call of a lifecycle
//! command: the runtime's code becomes an exit code ([`crate::exit::exit_for_denial`]) and
//! a sentence naming the verb and the tool; an unknown tool gets the closest known id. The
//! JSON error carries the same facts as `error.denial` (wire tokens). It must never print a
//! token's secret: a token is named by its id only.

use devint::session::ClientError;
use devint::verbs::{ToolId, Verb};
use devint::wire::pb::DenyCode;
use devint_net::client::ClientIoError;
use serde_json::json;

use crate::args;
use crate::exit::{deny_token, CliError, Exit};
use crate::suggest;

/// The call that was refused.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The verb sent.
    pub verb: Verb,
    /// The tool it was about, if any.
    pub tool: Option<&'a ToolId>,
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

/// Explain `e`, the failure of `call`.
pub fn explain(e: ClientIoError, call: Call<'_>) -> CliError {
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
    let (text, fix) = match code {
        DenyCode::Unauthenticated => (
            format!(
                "the runtime does not know this client's token (never enrolled with it, or revoked), so it would not {}",
                call.words()
            ),
            "enrol this client: `devint enrol --client cli --all-tools --verbs full` (or point AA_DEVINT_TOKEN_FILE at your token file)".to_owned(),
        ),
        DenyCode::TokenExpired => (
            format!("this client's token has expired, so the runtime would not {}", call.words()),
            "enrol the client again (`devint enrol --client NAME …`), which replaces the expired token".to_owned(),
        ),
        DenyCode::OutOfScope => (
            format!("this client's token does not allow it to {}", call.words()),
            "enrol the client again with that verb and tool in its scope (`devint enrol --client NAME --tool TOOL --verbs …`)".to_owned(),
        ),
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
        DenyCode::LifecycleError => (
            format!("the runtime refused to {}: {message}", call.words()),
            remediation,
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
        "token_id": null,
    }));
    error
}
