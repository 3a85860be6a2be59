//! `devint events TOOL` and `devint approve TOOL ID INPUT`: the v2 verbs.
//!
//! DI-API clients of `scoped_events` (already-redacted verdict records) and
//! `approval_relay` (relays the person's input, after consent: `--yes`, or `y` at a
//! terminal; the runtime adjudicates, never this command). The approval id is checked by
//! the core's type before anything is sent, and the runtime's acknowledgement must echo it.

use devint::time::UnixSecs;
use devint::verbs::{ApprovalRelayAck, ScopedEventList, Verb, VerbCall};

use crate::cli::{ApproveCommand, EventsCommand};
use crate::connect::{open, Ctx};
use crate::consent;
use crate::exit::{CliError, Exit};
use crate::render;

/// Run `events`.
pub async fn events(ctx: &Ctx, cmd: &EventsCommand) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "events", Verb::ScopedEvents, &[]).await?;
    let list: ScopedEventList = rs
        .call(VerbCall::ScopedEvents {
            tool: cmd.tool.clone(),
            limit: cmd.limit,
            since: UnixSecs::new(cmd.since),
        })
        .await?;
    ctx.out.result("events", Some(&rs.info), &list, |p| {
        render::events(p, cmd.tool.as_str(), cmd.since, &list)
    })?;
    Ok(Exit::Ok)
}

/// Run `approve`.
pub async fn approve(ctx: &Ctx, cmd: &ApproveCommand) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "approve", Verb::ApprovalRelay, &[]).await?;
    consent::confirm(
        &ctx.out,
        &format!(
            "Relay your answer \"{}\" for approval {} of {}?",
            crate::words::user_input(cmd.input),
            cmd.id,
            cmd.tool
        ),
        cmd.yes,
        "approve",
    )
    .map_err(|e| rs.fail(e))?;
    let ack: ApprovalRelayAck = rs
        .call(VerbCall::ApprovalRelay {
            tool: cmd.tool.clone(),
            approval_id: cmd.id.clone(),
            input: cmd.input,
        })
        .await
        // An approval the runtime does not hold open (unknown, another tool's, already
        // answered) is its refusal, never a success.
        .map_err(|e| e.context(&format!("approval {}", cmd.id)))?;
    if ack.approval_id != cmd.id || ack.relayed_input != cmd.input {
        return Err(rs.fail(CliError::internal(format!(
            "the runtime acknowledged approval {} ({}), not the {} ({}) that was sent",
            ack.approval_id, ack.relayed_input, cmd.id, cmd.input
        ))));
    }
    ctx.out.result("approve", Some(&rs.info), &ack, |_| {
        render::approval(cmd.tool.as_str(), &ack)
    })?;
    Ok(Exit::Ok)
}
