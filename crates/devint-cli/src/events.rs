//! `devint events TOOL` and `devint approve TOOL ID INPUT`: the v2 verbs.
//!
//! DI-API clients of `scoped_events` (already-redacted verdict records) and
//! `approval_relay` (relays the person's input; the runtime adjudicates, never this
//! command).

use std::time::{SystemTime, UNIX_EPOCH};

use devint::verbs::{ApprovalId, ToolId, UserInput};

use crate::connect::{open, Ctx};
use crate::exit::{CliError, Exit};
use crate::render;
use devint::provenance::is_privileged;
use devint::verbs::Verb;

/// clap parser for `--since`: unix seconds, or an age such as `90m`, `24h`, `7d`.
pub fn parse_since(s: &str) -> Result<u64, String> {
    if let Ok(secs) = s.parse::<u64>() {
        return Ok(secs);
    }
    let age = crate::enrol::parse_duration(s)?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    Ok(now.saturating_sub(age.as_secs()))
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
pub async fn events(ctx: &Ctx, tool: ToolId, limit: u32, since: u64) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "events", is_privileged(Verb::ScopedEvents)).await?;
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
    let mut rs = open(ctx, "approve", is_privileged(Verb::ApprovalRelay)).await?;
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
