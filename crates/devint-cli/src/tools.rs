//! `devint tools`: every tool the runtime has an adapter for, and whether it is detected.
//!
//! A DI-API client of `list_tools`; it never detects anything itself.

use crate::connect::{open, Ctx};
use crate::exit::{CliError, Exit};
use crate::render;
use devint::verbs::Verb;

/// Run `tools`.
pub async fn run(ctx: &Ctx) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "tools", Verb::ListTools.is_privileged()).await?;
    let list = rs
        .client
        .list_tools()
        .await
        .map_err(|e| CliError::from(e).with_runtime(&rs.info))?;
    ctx.out.result("tools", Some(&rs.info), &list, |s| {
        render::tools(s, &list.tools)
    });
    Ok(Exit::Ok)
}
