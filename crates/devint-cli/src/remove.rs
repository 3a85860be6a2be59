//! `devint remove TOOL` and `devint repair TOOL`: undo or restore what devint installed.
//!
//! DI-API clients of `remove` (preview first: what will be restored and what will remain,
//! then execution of the previewed plan by id after consent; nothing to remove needs no
//! consent) and `repair` (the status's drift first, then consent, then the repair). Both
//! are privileged in the standing table (spec §8).

use devint::verbs::{RemovalView, RepairView, StatusState, StatusView, Verb, VerbCall};
use serde_json::json;

use crate::cli::MutatingCommand;
use crate::connect::{open, Ctx};
use crate::consent;
use crate::exit::{CliError, Exit};
use crate::render;

/// Run `remove`: preview, confirm (unless `--yes`, or nothing to remove), execute the
/// previewed plan.
pub async fn remove(ctx: &Ctx, cmd: &MutatingCommand) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "remove", Verb::Remove, &[]).await?;
    let tool = &cmd.tool;
    let preview: RemovalView = rs
        .call(VerbCall::Remove {
            tool: tool.clone(),
            plan_id: None,
        })
        .await?;
    if render::removal_has_work(&preview) {
        ctx.out
            .print(&render::removal_preview(&ctx.out.page(), &preview))?;
        consent::confirm(
            &ctx.out,
            &format!("Remove devint's integration of {tool}?"),
            cmd.yes,
            "remove",
        )
        .map_err(|e| rs.fail(e))?;
    }
    let removal: RemovalView = rs
        .change(
            VerbCall::Remove {
                tool: tool.clone(),
                plan_id: Some(preview.plan_id.clone()),
            },
            "nothing was removed",
        )
        .await?;
    ctx.out.result(
        "remove",
        Some(&rs.info),
        &json!({ "preview": preview, "removal": removal }),
        |p| render::removal_result(p, &removal),
    )?;
    Ok(Exit::Ok)
}

/// Run `repair`: show what drifted, confirm (unless `--yes`), restore. Exit 5 if still
/// drifted.
pub async fn repair(ctx: &Ctx, cmd: &MutatingCommand) -> Result<Exit, CliError> {
    // Without --yes, the preview reads the status.
    let also: &[Verb] = if cmd.yes { &[] } else { &[Verb::Status] };
    let mut rs = open(ctx, "repair", Verb::Repair, also).await?;
    let tool = &cmd.tool;
    if !cmd.yes || !ctx.out.json() {
        // The preview needs the status; a token without `status` repairs unasked only
        // with --yes.
        match rs
            .call::<StatusView>(VerbCall::Status { tool: tool.clone() })
            .await
        {
            Ok(status) => ctx
                .out
                .print(&render::repair_preview(&ctx.out.page(), &status))?,
            Err(e) if !cmd.yes => {
                return Err(e
                    .context("repair shows what drifted before it asks, from the tool's status")
                    .fix(format!(
                        "enrol with `status` in the verbs, or pass --yes to repair {tool} without the preview"
                    )))
            }
            Err(_) => {}
        }
    }
    consent::confirm(
        &ctx.out,
        &format!("Repair devint's integration of {tool}?"),
        cmd.yes,
        "repair",
    )
    .map_err(|e| rs.fail(e))?;
    let view: RepairView = rs.call(VerbCall::Repair { tool: tool.clone() }).await?;
    ctx.out.result("repair", Some(&rs.info), &view, |p| {
        render::repair_result(p, &view)
    })?;
    Ok(if view.status.state == StatusState::Drifted {
        Exit::Drifted
    } else {
        Exit::Ok
    })
}
