//! `devint manpages DIR`: the manual pages, generated from the same clap definition as
//! `--help` (so they never drift): `devint.1` and one `devint-COMMAND.1` per command.
//!
//! `clap_mangen` renders the title, name, description, options, subcommands and version;
//! this module writes the rest as a manual page's reader expects: the SYNOPSIS is clap's own
//! usage line (`devint plan [OPTIONS] --scope <SCOPE> <TOOL>`, what `--help` shows), and a
//! command's examples (its `after_help`) go under EXAMPLES, an exit-code table under EXIT
//! STATUS and any other paragraph under NOTES.

use std::io::Write;
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
    let mut cmd = crate::cli::cli_command().disable_help_subcommand(true);
    cmd.build();
    write_pages(&cmd, dir).map_err(|e| {
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

/// Write the page of `cmd` (built) and of each of its visible subcommands into `dir`.
fn write_pages(cmd: &clap::Command, dir: &Path) -> std::io::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub, dir)?;
    }
    let man = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    page.write_all(synopsis(cmd).as_bytes())?;
    man.render_description_section(&mut page)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut page)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut page)?;
    }
    if let Some(after) = cmd.get_after_help() {
        page.write_all(after_help_sections(&after.to_string()).as_bytes())?;
    }
    man.render_version_section(&mut page)?;
    std::fs::write(dir.join(man.get_filename()), page)
}

/// Text for roff: backslashes and hyphens escaped, a line never starting with a control
/// character.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// The SYNOPSIS: clap's usage (one line per form), the command's name in bold.
fn synopsis(cmd: &clap::Command) -> String {
    let usage = cmd.clone().render_usage().to_string();
    let name = cmd.get_bin_name().unwrap_or_else(|| cmd.get_name());
    let mut text = String::from(".SH SYNOPSIS\n");
    let forms: Vec<&str> = usage
        .lines()
        .map(|l| l.trim().trim_start_matches("Usage:").trim())
        .filter(|l| !l.is_empty())
        .collect();
    for (i, form) in forms.iter().enumerate() {
        if i > 0 {
            text.push_str(".br\n");
        }
        match form.strip_prefix(name) {
            Some(rest) => text.push_str(&format!("\\fB{}\\fR{}\n", roff(name), roff(rest))),
            None => text.push_str(&format!("{}\n", roff(form))),
        }
    }
    text
}

/// A command's `after_help` as sections: a paragraph headed "Example:", "Examples:" or
/// naming a walk-through ("The journey:") under EXAMPLES, verbatim; "Exit codes:" under EXIT
/// STATUS; anything else under NOTES.
fn after_help_sections(after: &str) -> String {
    let mut examples = String::new();
    let mut exit_status = String::new();
    let mut notes = String::new();
    for paragraph in after
        .split("\n\n")
        .map(str::trim_end)
        .filter(|p| !p.trim().is_empty())
    {
        let (head, body) = paragraph.split_once('\n').unwrap_or((paragraph, ""));
        let is_example = matches!(head, "Example:" | "Examples:")
            || (head.ends_with(':') && body.lines().all(|l| l.starts_with("  ")));
        if is_example {
            if !matches!(head, "Example:" | "Examples:") {
                examples.push_str(&format!("{}\n", roff(head)));
            }
            examples.push_str(".PP\n.nf\n.RS 4\n");
            for line in body.lines() {
                examples.push_str(&format!("{}\n", roff(line.trim_start())));
            }
            examples.push_str(".RE\n.fi\n");
        } else if let Some(rest) = paragraph.strip_prefix("Exit codes:") {
            exit_status.push_str(&format!(".PP\n{}\n", roff(rest.trim())));
        } else {
            notes.push_str(&format!(".PP\n{}\n", roff(paragraph)));
        }
    }
    let mut text = String::new();
    for (title, body) in [
        ("EXAMPLES", examples),
        ("EXIT STATUS", exit_status),
        ("NOTES", notes),
    ] {
        if !body.is_empty() {
            text.push_str(&format!(".SH \"{title}\"\n{body}"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_go_under_examples_and_exit_codes_under_exit_status() {
        let text = after_help_sections(
            "Examples:\n  devint plan claude-code --scope user\n\nExit codes: 0 ok, 1 internal.\n\nSee docs/cli.md.",
        );
        assert_eq!(
            text,
            ".SH \"EXAMPLES\"\n.PP\n.nf\n.RS 4\ndevint plan claude\\-code \\-\\-scope user\n.RE\n.fi\n\
             .SH \"EXIT STATUS\"\n.PP\n0 ok, 1 internal.\n\
             .SH \"NOTES\"\n.PP\nSee docs/cli.md.\n"
        );
    }

    #[test]
    fn the_synopsis_is_the_usage_help_shows() {
        let mut cmd = crate::cli::cli_command();
        cmd.build();
        let plan = cmd.find_subcommand("plan").unwrap();
        assert_eq!(
            synopsis(plan),
            ".SH SYNOPSIS\n\\fBdevint plan\\fR [OPTIONS] \\-\\-scope <SCOPE> <TOOL>\n"
        );
    }
}
