//! `devint tools`: one line per tool the runtime has an adapter for.

use devint::verbs::{Compatibility, ToolSummary};

use crate::output::Page;
use crate::words;

/// The `tools` table and a count of the detected.
pub fn tools(p: &Page, tools: &[ToolSummary]) -> String {
    let mut t = p.table(&[
        "TOOL",
        "NAME",
        "DETECTED",
        "VERSION",
        "COMPATIBLE",
        "ADAPTER",
    ]);
    for tool in tools {
        t.row([
            tool.tool_id.to_string(),
            tool.display_name.to_string(),
            if tool.detected { "yes" } else { "no" }.to_owned(),
            tool.detected_version
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_else(|| "-".into()),
            match (tool.detected, tool.compatibility) {
                (false, _) => "-".to_owned(),
                (true, Compatibility::Compatible) => "yes".to_owned(),
                (true, c) => words::compatibility(c).to_owned(),
            },
            words::ceiling(tool.adapter_ceiling).to_owned(),
        ]);
    }
    let detected = tools.iter().filter(|t| t.detected).count();
    format!(
        "{}\n{detected} of {} tools detected on this host. `devint status` shows their protection.\n",
        t.render(""),
        tools.len()
    )
}
