//! `devint events TOOL` and `devint approve TOOL ID INPUT`: the v2 verbs.
//!
//! DI-API clients of `scoped_events` (already-redacted verdict records) and
//! `approval_relay` (relays the person's input; the runtime adjudicates, never this
//! command).

use std::time::SystemTime;

use devint::verbs::{ApprovalId, ToolId, UserInput};

use crate::connect::{open, Ctx};
use crate::exit::{CliError, Exit};
use crate::render;
use devint::time::UnixSecs;
use devint::verbs::Verb;

/// clap parser for `--since`: unix seconds, or an age such as `90m`, `24h`, `7d`.
pub fn parse_since(s: &str) -> Result<UnixSecs, String> {
    if let Ok(secs) = s.parse::<u64>() {
        return Ok(UnixSecs::new(secs));
    }
    let age = crate::enrol::parse_duration(s)?;
    Ok(UnixSecs::from_system_time(SystemTime::now()).saturating_sub(age))
}

/// clap parser for an approval id.
pub fn parse_approval(s: &str) -> Result<ApprovalId, String> {
    ApprovalId::parse(s).map_err(|e| e.to_string())
}

/// clap parser for approve|deny|defer.
pub fn parse_input(s: &str) -> Result<UserInput, String> {
    UserInput::parse(s).map_err(|_| format!("use one of: {}", UserInput::TOKENS.join(", ")))
}

/// Run `events`.
pub async fn events(
    ctx: &Ctx,
    tool: ToolId,
    limit: u32,
    since: UnixSecs,
) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "events", Verb::ScopedEvents.is_privileged()).await?;
    let list = rs
        .client
        .scoped_events(tool.clone(), limit, since)
        .await
        .map_err(|e| CliError::from(e).with_runtime(&rs.info))?;
    ctx.out.result("events", Some(&rs.info), &list, |s| {
        render::events(s, tool.as_str(), &list)
    });
    Ok(Exit::Ok)
}

/// Run `approve`.
pub async fn approve(
    ctx: &Ctx,
    tool: ToolId,
    id: ApprovalId,
    input: UserInput,
) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "approve", Verb::ApprovalRelay.is_privileged()).await?;
    let ack = rs
        .client
        .approval_relay(tool, id, input)
        .await
        .map_err(|e| CliError::from(e).with_runtime(&rs.info))?;
    ctx.out.result("approve", Some(&rs.info), &ack, |_| {
        format!(
            "relayed `{}` for approval {} at {}; the runtime decides",
            ack.relayed_input,
            ack.approval_id,
            crate::output::utc(ack.accepted_at_unix_secs)
        )
    });
    Ok(Exit::Ok)
}
