//! `devint plan` and `devint apply`: review an integration, then apply exactly what was
//! reviewed.
//!
//! DI-API clients of `plan` and `apply`. `plan` is a dry run that prints the plan id and
//! the command that applies exactly that plan, and keeps the plan ([`crate::plan_stash`])
//! so `apply --plan ID` can show it again and ask each privileged host step. `apply
//! --scope` plans, shows the plan, asks (skipped by `--yes`), and applies that plan by id.
//! Privileged host steps always ask their own consent at a terminal (never skipped by
//! `--yes`: "individually consented"). The runtime decides whether a plan id is still
//! valid (expired, consumed, another token's); this module passes its answer on.

use devint::verbs::{ApplyMutation, ApplyView, PlanId, PlanView, Privilege, StepOutcome, ToolId};
use serde_json::json;

use crate::cli::{ApplyCommand, PlanCommand, PlanShape};
use crate::connect::{open, Ctx, RuntimeSession};
use crate::consent;
use crate::exit::{CliError, Exit};
use crate::plan_stash;
use crate::render;
use devint::verbs::{Verb, VerbCall};

/// Run `plan`: a dry run that changes nothing, then the command that applies it.
pub async fn plan(ctx: &Ctx, cmd: &PlanCommand) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "plan", Verb::Plan, &[]).await?;
    let view: PlanView = rs
        .call(VerbCall::Plan {
            tool: cmd.tool.clone(),
            args: cmd.shape.args(cmd.scope),
        })
        .await
        .map_err(|e| refused_plan(e, &cmd.shape))?;
    if let Err(e) = plan_stash::keep(ctx.socket.path(), rs.client.version().get(), &view) {
        ctx.out.warn(&format!(
            "this plan could not be kept for `devint apply --plan` ({e}); apply it with `devint apply {} --scope {}` instead",
            cmd.tool, cmd.scope
        ));
    }
    ctx.out
        .result("plan", Some(&rs.info), &view, |p| render::plan(p, &view))?;
    Ok(Exit::Ok)
}

/// A refused plan, with the closest policy profile id when `--policy` named none.
fn refused_plan(mut error: CliError, shape: &PlanShape) -> CliError {
    if let Some(id) = &shape.policy {
        error.message.push_str(&crate::profile::suggestion(id));
    }
    error
}

/// The exit code an apply reports: failed 1, unsupported 3, else 0.
pub fn apply_exit(view: &ApplyView) -> Exit {
    let failed_step = view.steps.iter().any(|s| s.outcome == StepOutcome::Failed);
    match view.outcome.as_ref().map(|o| o.mutation) {
        Some(ApplyMutation::Failed) => Exit::Internal,
        Some(ApplyMutation::Unsupported) => Exit::Unsupported,
        _ if failed_step => Exit::Internal,
        _ => Exit::Ok,
    }
}

/// Ask for each privileged host step's own consent.
fn consent_privileged(ctx: &Ctx, plan: &PlanView) -> Result<(), CliError> {
    for step in plan
        .steps
        .iter()
        .filter(|s| s.privilege == Privilege::PrivilegedHost)
    {
        let prompt = step
            .consent_prompt
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_else(|| step.summary.to_string());
        consent::confirm_privileged(&ctx.out, step.id.as_str(), &prompt)?;
    }
    Ok(())
}

/// The plan to apply: the one `devint plan` showed (`--plan`), or a fresh one.
async fn plan_to_apply(
    ctx: &Ctx,
    rs: &mut RuntimeSession,
    cmd: &ApplyCommand,
) -> Result<PlanView, CliError> {
    match (&cmd.plan, cmd.scope) {
        (Some(id), _) => recalled(ctx, &cmd.tool, id).map_err(|e| rs.fail(e)),
        (None, Some(scope)) => rs
            .call(VerbCall::Plan {
                tool: cmd.tool.clone(),
                args: cmd.shape.args(scope),
            })
            .await
            .map_err(|e| refused_plan(e, &cmd.shape)),
        (None, None) => Err(CliError::usage("apply needs --plan ID or --scope SCOPE")),
    }
}

/// The plan `id` as `devint plan` showed it.
fn recalled(ctx: &Ctx, tool: &ToolId, id: &PlanId) -> Result<PlanView, CliError> {
    let plan = plan_stash::recall(ctx.socket.path(), id).ok_or_else(|| {
        CliError::usage(format!(
            "this devint has no record of plan {id}: it shows and asks about a plan only if `devint plan` made it here (with this socket) in the last day"
        ))
        .fix(format!(
            "review a new plan with `devint plan {tool} --scope SCOPE`, then apply the id it prints"
        ))
    })?;
    if &plan.tool_id != tool {
        return Err(
            CliError::usage(format!("plan {id} is for {}, not {tool}", plan.tool_id))
                .fix(format!("devint apply {} --plan {id}", plan.tool_id)),
        );
    }
    Ok(plan)
}

/// Run `apply`: the reviewed plan (or a fresh one, shown), consent, execution.
pub async fn apply(ctx: &Ctx, cmd: &ApplyCommand) -> Result<Exit, CliError> {
    // `apply --scope` plans first; `apply --plan` applies what `devint plan` made.
    let also: &[Verb] = if cmd.plan.is_none() {
        &[Verb::Plan]
    } else {
        &[]
    };
    let mut rs = open(ctx, "apply", Verb::Apply, also).await?;
    let plan = plan_to_apply(ctx, &mut rs, cmd).await?;
    let privileged = plan
        .steps
        .iter()
        .any(|s| s.privilege == Privilege::PrivilegedHost);
    // A plan reviewed with `devint plan` and applied with --yes is not shown again, unless
    // a privileged host step is about to ask its own question.
    if cmd.plan.is_none() || !cmd.yes || privileged {
        ctx.out
            .print(&render::plan_preview(&ctx.out.page(), &plan))?;
    }
    if plan.steps.is_empty() {
        ctx.out
            .note("this plan has no steps; applying it records that nothing needed changing");
    }
    consent::confirm(
        &ctx.out,
        &format!("Apply this plan to {}?", cmd.tool),
        cmd.yes,
        "apply",
    )
    .map_err(|e| rs.fail(e))?;
    consent_privileged(ctx, &plan).map_err(|e| rs.fail(e))?;
    let applied: ApplyView = rs
        .change(
            VerbCall::Apply {
                tool: cmd.tool.clone(),
                plan_id: plan.plan_id.clone(),
            },
            &format!("plan {} was not applied", plan.plan_id),
        )
        .await?;
    ctx.out.result(
        "apply",
        Some(&rs.info),
        &json!({ "plan": plan, "apply": applied }),
        |p| render::apply_result(p, cmd.tool.as_str(), &applied),
    )?;
    Ok(apply_exit(&applied))
}
