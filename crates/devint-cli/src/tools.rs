//! `devint tools`: every tool the runtime has an adapter for, and whether it is detected.
//!
//! A DI-API client of `list_tools`; it never detects anything itself.

use devint::verbs::{ToolList, Verb, VerbCall};

use crate::connect::{open, Ctx};
use crate::exit::{CliError, Exit};
use crate::render;

/// Run `tools`.
pub async fn run(ctx: &Ctx) -> Result<Exit, CliError> {
    let mut rs = open(ctx, "tools", Verb::ListTools, &[]).await?;
    let list: ToolList = rs.call(VerbCall::ListTools).await?;
    ctx.out.result("tools", Some(&rs.info), &list, |p| {
        render::tools(p, &list.tools)
    })?;
    Ok(Exit::Ok)
}
