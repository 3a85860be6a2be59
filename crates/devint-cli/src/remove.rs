//! `devint remove TOOL` and `devint repair TOOL`: undo or restore what devint installed.
//!
//! DI-API clients of `remove` (preview first: what will be restored and what will remain,
//! then execution with the preview's plan id after consent) and `repair`. Both are
//! privileged in the standing table (spec §8).

use devint::verbs::{StatusState, ToolId};
use serde_json::json;

use crate::connect::{open, Ctx};
use crate::consent;
use crate::exit::{CliError, Exit};
use crate::render;
use devint::verbs::Verb;

/// Run `remove`: preview, confirm (unless `--yes`), execute the previewed plan.
pub async fn remove(ctx: &Ctx, tool: ToolId, yes: bool) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "remove", Verb::Remove.is_privileged()).await?;
    let info = rs.info.clone();
    let preview = rs
        .client
        .remove(tool.clone(), None)
        .await
        .map_err(|e| CliError::from(e).with_runtime(&info))?;
    if !ctx.out.json() {
        println!("{}", render::removal(&ctx.out.style(), &preview, false));
    }
    if !yes && !consent::ask(&format!("Remove devint's integration of {tool}?")) {
        return Err(consent::aborted("remove").with_runtime(&info));
    }
    let removal = rs
        .client
        .remove(tool, Some(preview.plan_id.clone()))
        .await
        .map_err(|e| CliError::from(e).with_runtime(&info))?;
    ctx.out.result(
        "remove",
        Some(&info),
        &json!({ "preview": preview, "removal": removal }),
        |s| render::removal(s, &removal, true),
    );
    Ok(Exit::Ok)
}

/// Run `repair`: restore drifted keys and artifacts of ours. Exit 5 if still drifted.
pub async fn repair(ctx: &Ctx, tool: ToolId) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "repair", Verb::Repair.is_privileged()).await?;
    let info = rs.info.clone();
    let summary = rs
        .client
        .list_tools()
        .await
        .ok()
        .and_then(|l| l.tools.into_iter().find(|t| t.tool_id == tool));
    let view = rs
        .client
        .repair(tool)
        .await
        .map_err(|e| CliError::from(e).with_runtime(&info))?;
    ctx.out.result("repair", Some(&info), &view, |s| {
        render::repair(s, &view, summary.as_ref())
    });
    Ok(if view.status.state == StatusState::Drifted {
        Exit::Drifted
    } else {
        Exit::Ok
    })
}
