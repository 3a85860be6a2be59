//! `devint status [TOOL]` and `devint verify TOOL`: the read side of the lifecycle.
//!
//! DI-API clients of `status`, `list_tools` and `verify`. `status` is read-only; `verify`
//! is privileged in the standing table (spec §8). Exit 5 when a tool is drifted, 4 when
//! incompatible, 6 when verification failed. They never derive a state themselves.
//! `status` warns when the runtime serving from this state directory has no gateway URL.

use std::io::IsTerminal;
use std::time::Duration;

use devint::verbs::{
    Evidence, Phase, ReadBackOutcome, StatusState, StatusView, ToolId, ToolList, ToolSummary, Verb,
    VerbCall, VerificationOutcome, VerificationView,
};
use serde_json::json;

use crate::cli::{StatusCommand, ToolCommand};
use crate::connect::{open, Ctx, RuntimeSession};
use crate::exit::{CliError, Exit};
use crate::output::write_stderr_raw;
use crate::render::{self, OverviewRow};
use crate::state::StateDir;

/// The exit code a status reports (spec §9): drifted 5, incompatible 4, else 0.
pub fn status_exit(views: &[StatusView]) -> Exit {
    if views.iter().any(|v| v.state == StatusState::Drifted) {
        Exit::Drifted
    } else if views.iter().any(|v| v.state == StatusState::Incompatible) {
        Exit::Incompatible
    } else {
        Exit::Ok
    }
}

/// The exit code a verification reports: read-back mismatch 5 (drifted), failed 6, else 0.
pub fn verify_exit(v: &VerificationView) -> Exit {
    let mismatched = v
        .evidence
        .iter()
        .any(|e| e.evidence == Evidence::ReadBack(ReadBackOutcome::Mismatched));
    if mismatched {
        Exit::Drifted
    } else if v.outcome == VerificationOutcome::Failed {
        Exit::VerificationFailed
    } else {
        Exit::Ok
    }
}

/// The tool summaries, best effort (a token without `list_tools` still gets a status).
async fn summaries(rs: &mut RuntimeSession) -> Vec<ToolSummary> {
    rs.call::<ToolList>(VerbCall::ListTools)
        .await
        .map(|l| l.tools)
        .unwrap_or_default()
}

/// Run `status` for one tool, or the overview.
pub async fn status(ctx: &Ctx, cmd: &StatusCommand) -> Result<Exit, CliError> {
    // The overview lists the tools first; one tool's page reads them only if it may.
    let also: &[Verb] = if cmd.tool.is_none() {
        &[Verb::ListTools]
    } else {
        &[]
    };
    let mut rs = open(ctx, "status", Verb::Status, also).await?;
    let exit = match &cmd.tool {
        Some(tool) => one(ctx, &mut rs, tool).await,
        None => overview(ctx, &mut rs, cmd.all).await,
    }?;
    if served_without_gateway() {
        ctx.out.warn(&crate::config::no_gateway());
    }
    Ok(exit)
}

/// Whether the runtime that last served from this command's state directory
/// (`AA_DEVINT_STATE_DIR`, else `~/.aa`) recorded that it has no gateway URL. Another state
/// directory, or none recorded, says nothing.
fn served_without_gateway() -> bool {
    StateDir::resolve(None)
        .ok()
        .and_then(|state| crate::backend::served_gateway(&state.backend()))
        .is_some_and(|gateway| gateway.is_none())
}

async fn one(ctx: &Ctx, rs: &mut RuntimeSession, tool: &ToolId) -> Result<Exit, CliError> {
    let tools = summaries(rs).await;
    let view: StatusView = rs.call(VerbCall::Status { tool: tool.clone() }).await?;
    let summary = tools.iter().find(|t| &t.tool_id == tool);
    ctx.out.result("status", Some(&rs.info), &view, |p| {
        render::status(p, &view, summary)
    })?;
    Ok(status_exit(std::slice::from_ref(&view)))
}

/// Whether the overview shows a tool without `--all`: detected, or with something of
/// devint's installed.
fn worth_a_line(tool: &ToolSummary, status: &StatusView) -> bool {
    tool.detected
        || !matches!(
            status.phase,
            Phase::NotInstalled | Phase::DetectedNotIntegrated
        )
}

async fn overview(ctx: &Ctx, rs: &mut RuntimeSession, all: bool) -> Result<Exit, CliError> {
    let tools: ToolList = rs
        .call(VerbCall::ListTools)
        .await
        .map_err(|e| e.context("the overview needs the runtime's tool list"))?;
    let mut shown: Vec<(&ToolSummary, StatusView)> = Vec::new();
    for tool in &tools.tools {
        let view: StatusView = rs
            .call(VerbCall::Status {
                tool: tool.tool_id.clone(),
            })
            .await?;
        if all || worth_a_line(tool, &view) {
            shown.push((tool, view));
        }
    }
    // Detected tools first, each group in the runtime's order.
    shown.sort_by_key(|(tool, _)| !tool.detected);
    let hidden = tools.tools.len() - shown.len();
    let views: Vec<&StatusView> = shown.iter().map(|(_, v)| v).collect();
    let rows: Vec<OverviewRow<'_>> = shown
        .iter()
        .map(|(tool, status)| OverviewRow { tool, status })
        .collect();
    ctx.out
        .result("status", Some(&rs.info), &json!({ "tools": views }), |p| {
            render::overview(p, &rows, hidden)
        })?;
    let owned: Vec<StatusView> = shown.into_iter().map(|(_, v)| v).collect();
    Ok(status_exit(&owned))
}

/// Run `verify`, with a progress indicator on a terminal while the runtime works.
pub async fn verify(ctx: &Ctx, cmd: &ToolCommand) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "verify", Verb::Verify, &[]).await?;
    let show_progress = !ctx.out.json() && !ctx.out.quiet && std::io::stderr().is_terminal();
    let call = rs.call::<VerificationView>(VerbCall::Verify {
        tool: cmd.tool.clone(),
    });
    let view = if show_progress {
        with_progress(&format!("verifying {}", cmd.tool), call).await
    } else {
        call.await
    }?;
    ctx.out.result("verify", Some(&rs.info), &view, |p| {
        render::verification(p, cmd.tool.as_str(), &view, verify_exit(&view))
    })?;
    Ok(verify_exit(&view))
}

/// Await `work` while drawing a spinner on stderr; the line is cleared afterwards.
async fn with_progress<T>(label: &str, work: impl std::future::Future<Output = T>) -> T {
    const FRAMES: [&str; 4] = ["|", "/", "-", "\\"];
    tokio::pin!(work);
    let mut tick = tokio::time::interval(Duration::from_millis(120));
    let mut frame = 0;
    loop {
        tokio::select! {
            out = &mut work => {
                write_stderr_raw("\r\x1b[2K");
                return out;
            }
            _ = tick.tick() => {
                write_stderr_raw(&format!("\r{} {label}…", FRAMES[frame % FRAMES.len()]));
                frame += 1;
            }
        }
    }
}
