//! `devint plan` and `devint apply`: preview an integration, then execute it with consent.
//!
//! DI-API clients of `plan` and `apply`. `apply` always plans first, shows the plan, asks
//! for confirmation (skipped by `--yes`), asks separately for each privileged host step
//! (never skipped by `--yes`: spec "each still individually consented"), and only then
//! sends `apply` with the plan's id.

use devint::verbs::{
    ApplyMutation, ApplyView, Level, PlanArgs, PlanView, PolicyProfileId, Privilege, Profile,
    SettingsScope, StepOutcome, ToolId,
};
use serde_json::json;

use crate::connect::{open, Ctx};
use crate::consent;
use crate::exit::{CliError, Exit};
use crate::render;
use devint::verbs::Verb;

/// The arguments shared by `plan` and `apply`.
#[derive(Debug, Clone, clap::Args)]
pub struct PlanOptions {
    /// The settings scope to integrate at (never inferred from the working directory).
    #[arg(long, value_parser = parse_scope)]
    pub scope: SettingsScope,
    /// The integration profile.
    #[arg(long, value_parser = parse_profile, default_value = "recommended")]
    pub profile: Profile,
    /// The rung to aim for (default gateway_protected).
    #[arg(long, value_parser = parse_level)]
    pub level: Option<Level>,
    /// A policy profile id to reference.
    #[arg(long, value_parser = parse_policy)]
    pub policy: Option<PolicyProfileId>,
    /// Allow privileged host steps in the plan (each still asks for its own consent).
    #[arg(long)]
    pub allow_privileged: bool,
}

impl PlanOptions {
    fn args(&self) -> PlanArgs {
        PlanArgs {
            profile: self.profile,
            requested_level: self.level.unwrap_or(Level::GatewayProtected),
            scope: self.scope,
            allow_privileged_host_steps: self.allow_privileged,
            policy_profile_id: self.policy.clone(),
        }
    }
}

fn tokens(accepted: &[&str]) -> String {
    accepted.join(", ")
}

/// clap parser for `--scope`.
pub fn parse_scope(s: &str) -> Result<SettingsScope, String> {
    SettingsScope::parse(s).map_err(|_| format!("use one of: {}", tokens(SettingsScope::TOKENS)))
}

/// clap parser for `--profile`.
pub fn parse_profile(s: &str) -> Result<Profile, String> {
    Profile::parse(s).map_err(|_| format!("use one of: {}", tokens(Profile::TOKENS)))
}

/// clap parser for `--level`.
pub fn parse_level(s: &str) -> Result<Level, String> {
    Level::parse(s).map_err(|_| format!("use one of: {}", tokens(Level::TOKENS)))
}

/// clap parser for `--policy`.
pub fn parse_policy(s: &str) -> Result<PolicyProfileId, String> {
    PolicyProfileId::parse(s).map_err(|e| e.to_string())
}

/// clap parser for a tool id.
pub fn parse_tool(s: &str) -> Result<ToolId, String> {
    ToolId::parse(s).map_err(|_| {
        "a tool id is kebab-case (claude-code, codex, …); `devint tools` lists them".to_owned()
    })
}

/// Run `plan`: a dry run that changes nothing.
pub async fn plan(ctx: &Ctx, tool: ToolId, options: &PlanOptions) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "plan", Verb::Plan.is_privileged()).await?;
    let view = rs
        .client
        .plan(tool, options.args())
        .await
        .map_err(|e| CliError::from(e).with_runtime(&rs.info))?;
    ctx.out
        .result("plan", Some(&rs.info), &view, |s| render::plan(s, &view));
    Ok(Exit::Ok)
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
fn consent_privileged(plan: &PlanView) -> Result<(), CliError> {
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
        if !consent::ask(&format!(
            "privileged host step {}: {prompt}. Allow it?",
            step.id
        )) {
            return Err(consent::aborted(&format!("privileged step {}", step.id)));
        }
    }
    Ok(())
}

/// Run `apply`: plan, show, confirm, execute.
pub async fn apply(
    ctx: &Ctx,
    tool: ToolId,
    options: &PlanOptions,
    yes: bool,
) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "apply", Verb::Apply.is_privileged()).await?;
    let info = rs.info.clone();
    let with = |e| CliError::from(e).with_runtime(&info);
    let plan = rs
        .client
        .plan(tool.clone(), options.args())
        .await
        .map_err(with)?;
    if !ctx.out.json() {
        println!("{}", render::plan(&ctx.out.style(), &plan));
    }
    if !yes && !consent::ask(&format!("Apply this plan to {tool}?")) {
        return Err(consent::aborted("apply").with_runtime(&info));
    }
    consent_privileged(&plan).map_err(|e| e.with_runtime(&info))?;
    let applied = rs
        .client
        .apply(tool, plan.plan_id.clone())
        .await
        .map_err(|e| CliError::from(e).with_runtime(&info))?;
    ctx.out.result(
        "apply",
        Some(&info),
        &json!({ "plan": plan, "apply": applied }),
        |s| render::apply(s, &applied),
    );
    Ok(apply_exit(&applied))
}
