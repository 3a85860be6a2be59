//! `devint status [TOOL]` and `devint verify TOOL`: the read side of the lifecycle.
//!
//! DI-API clients of `status`, `list_tools` and `verify`. `status` is read-only; `verify`
//! is privileged in the standing table (spec §8). Exit 5 when a tool is drifted, 4 when
//! incompatible, 6 when verification failed. They never derive a state themselves.

use std::io::IsTerminal;
use std::time::Duration;

use devint::verbs::{
    Evidence, ReadBackOutcome, StatusState, StatusView, ToolId, ToolSummary, VerificationOutcome,
    VerificationView,
};
use serde_json::json;

use crate::connect::{open, Ctx, RuntimeSession};
use crate::exit::{CliError, Exit};
use crate::render;
use devint::verbs::Verb;

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
    rs.client
        .list_tools()
        .await
        .map(|l| l.tools)
        .unwrap_or_default()
}

/// Run `status` for one tool, or for every detected tool.
pub async fn status(ctx: &Ctx, tool: Option<ToolId>) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "status", Verb::Status.is_privileged()).await?;
    let tools = summaries(&mut rs).await;
    let err = |e| CliError::from(e).with_runtime(&rs.info);
    match tool {
        Some(tool) => {
            let view = rs
                .client
                .status(tool.clone())
                .await
                .map_err(|e| CliError::from(e).with_runtime(&rs.info))?;
            let summary = tools.iter().find(|t| t.tool_id == tool);
            ctx.out.result("status", Some(&rs.info), &view, |s| {
                render::status(s, &view, summary)
            });
            Ok(status_exit(std::slice::from_ref(&view)))
        }
        None => {
            let detected: Vec<&ToolSummary> = tools.iter().filter(|t| t.detected).collect();
            let mut views = Vec::new();
            for t in &detected {
                views.push(rs.client.status(t.tool_id.clone()).await.map_err(err)?);
            }
            ctx.out.result("status", Some(&rs.info), &json!({ "tools": views }), |s| {
                if views.is_empty() {
                    return "no tool is detected on this host; `devint tools` lists what devint knows".into();
                }
                views
                    .iter()
                    .map(|v| render::status(s, v, tools.iter().find(|t| t.tool_id == v.tool_id)))
                    .collect::<Vec<_>>()
                    .join("\n")
            });
            Ok(status_exit(&views))
        }
    }
}

/// Run `verify`, with a progress indicator on a terminal while the runtime works.
pub async fn verify(ctx: &Ctx, tool: ToolId) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "verify", Verb::Verify.is_privileged()).await?;
    let show_progress = !ctx.out.json() && std::io::stderr().is_terminal();
    let call = rs.client.verify(tool.clone());
    let view = if show_progress {
        with_progress(&format!("verifying {tool}"), call).await
    } else {
        call.await
    }
    .map_err(|e| CliError::from(e).with_runtime(&rs.info))?;
    ctx.out.result("verify", Some(&rs.info), &view, |s| {
        render::verification(s, tool.as_str(), &view)
    });
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
                eprint!("\r\x1b[2K");
                return out;
            }
            _ = tick.tick() => {
                eprint!("\r{} {label}…", FRAMES[frame % FRAMES.len()]);
                frame += 1;
            }
        }
    }
}
