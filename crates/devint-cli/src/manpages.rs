//! `devint manpages DIR`: the manual pages, generated from the same clap definition as
//! `--help` (so they never drift): `devint.1` and one `devint-COMMAND.1` per command.

use std::path::Path;

use serde_json::json;

use crate::exit::{CliError, Exit};
use crate::output::Out;

/// Write every page into `dir` (created if missing) and list them.
pub fn write(out: &Out, dir: &Path) -> Result<Exit, CliError> {
    std::fs::create_dir_all(dir).map_err(|e| {
        CliError::internal(format!("cannot create {}: {e}", dir.display()))
            .fix("choose a directory you can write to")
    })?;
    clap_mangen::generate_to(crate::cli::cli_command(), dir).map_err(|e| {
        CliError::internal(format!(
            "cannot write the manual pages into {}: {e}",
            dir.display()
        ))
    })?;
    let mut pages: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| CliError::internal(format!("cannot list {}: {e}", dir.display())))?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n == "devint.1" || (n.starts_with("devint-") && n.ends_with(".1")))
        .collect();
    pages.sort();
    out.result(
        "manpages",
        None,
        &json!({ "dir": dir.display().to_string(), "pages": pages }),
        |_| {
            format!(
                "Wrote {} manual pages into {}; `man devint` reads them once it is on MANPATH.\n",
                pages.len(),
                dir.display()
            )
        },
    )?;
    Ok(Exit::Ok)
}
