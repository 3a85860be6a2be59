//! How results reach the person or the script: human text or one JSON document per command,
//! and everything this process writes to stdout and stderr.
//!
//! This module owns the stable JSON envelope (`docs/cli.md` documents it):
//!
//! ```json
//! { "schema": "devint.cli.v1", "command": "status",
//!   "runtime": { "socket": "...", "di_api_version": 5, "core_version": "0.1.0",
//!                "provenance": { ... } | null, "standing": "verified",
//!                "standing_reason": null, "standing_overridden": false } | null,
//!   "result": <view> }
//! ```
//!
//! and, on failure, `"error": { "exit": 7, "message": "...", "remediation": "..." }` in
//! place of `result`. It is the only module that writes to stdout or stderr (the crate
//! denies `print!`-style macros elsewhere): a closed stdout (`devint tools | head -1`)
//! becomes [`Exit::ClosedPipe`] instead of a panic, and a failed write to stderr is
//! dropped. It must never print a token secret (only `enrol --print` does, through
//! [`Out::print`]) and never colour a stream that is not a terminal unless asked to.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{IsTerminal, Write};

use serde::Serialize;
use serde_json::{json, Value};

use crate::exit::{CliError, CutShort, Status};

/// The JSON envelope's schema name; bumped only on an incompatible change.
pub const JSON_SCHEMA: &str = "devint.cli.v1";

/// `--output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputMode {
    /// Text for people.
    Human,
    /// One JSON document on stdout (schema devint.cli.v1).
    Json,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal, unless NO_COLOR is set (CLICOLOR_FORCE forces it).
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    /// Whether a stream that is (or is not) a terminal gets colour. `auto` follows
    /// no-color.org and bixense.com/clicolors, in anstream's order: `NO_COLOR` (non-empty)
    /// disables, then `CLICOLOR_FORCE` (non-empty, not `0`) enables, then `CLICOLOR=0`
    /// disables, then a terminal whose `TERM` is set and not `dumb` enables.
    pub fn resolve(self, is_terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                if anstyle_query::no_color() {
                    false
                } else if anstyle_query::clicolor_force() {
                    true
                } else if anstyle_query::clicolor() == Some(false) {
                    false
                } else {
                    is_terminal && anstyle_query::term_supports_color()
                }
            }
        }
    }
}

/// Where and how to write.
#[derive(Debug, Clone, Copy)]
pub struct Out {
    /// Human or JSON.
    pub mode: OutputMode,
    /// Whether stdout gets ANSI colour.
    pub colour: bool,
    /// Whether stderr gets ANSI colour.
    pub colour_err: bool,
    /// `-q`: no warnings or notes on stderr (errors still print).
    pub quiet: bool,
    /// The width tables must fit (`COLUMNS`, else the terminal's), if any.
    pub width: Option<u16>,
}

impl Out {
    /// For this process: colour per `choice` for each stream, the width from `COLUMNS` or
    /// the terminal.
    pub fn detect(mode: OutputMode, choice: ColorChoice, quiet: bool) -> Out {
        Out {
            mode,
            colour: mode == OutputMode::Human && choice.resolve(std::io::stdout().is_terminal()),
            colour_err: choice.resolve(std::io::stderr().is_terminal()),
            quiet,
            width: crate::table::terminal_width(),
        }
    }

    /// Whether the output is JSON.
    pub fn json(&self) -> bool {
        self.mode == OutputMode::Json
    }

    /// The palette for stdout.
    pub fn style(&self) -> Style {
        Style {
            colour: self.colour,
        }
    }

    /// What a human rendering needs: the palette and the width.
    pub fn page(&self) -> Page {
        Page {
            s: self.style(),
            width: self.width,
        }
    }

    /// The palette for stderr.
    pub fn err_style(&self) -> Style {
        Style {
            colour: self.colour_err,
        }
    }

    /// Write human text to stdout (a newline is added if missing). Nothing in JSON mode.
    pub fn print(&self, text: &str) -> Result<(), CliError> {
        if self.json() {
            return Ok(());
        }
        write_stdout(text)
    }

    /// Print a command's result: the JSON envelope, or the human text `human` renders.
    pub fn result<T: Serialize>(
        &self,
        command: &str,
        runtime: Option<&Value>,
        result: &T,
        human: impl FnOnce(&Page) -> String,
    ) -> Result<(), CliError> {
        match self.mode {
            OutputMode::Json => print_json(&json!({
                "schema": JSON_SCHEMA,
                "command": command,
                "runtime": runtime,
                "result": result,
            })),
            OutputMode::Human => write_stdout(&human(&self.page())),
        }
    }

    /// Print a failure: JSON on stdout in JSON mode, text on stderr otherwise. A closed
    /// stdout is reported by its exit status alone.
    pub fn error(&self, command: &str, runtime: Option<&Value>, error: &CliError) {
        if error.exit == Status::CutShort(CutShort::ClosedPipe) {
            return;
        }
        match self.mode {
            OutputMode::Json => {
                // If stdout is gone too there is nobody left to tell.
                let _ = print_json(&json!({
                    "schema": JSON_SCHEMA,
                    "command": command,
                    "runtime": runtime,
                    "error": {
                        "exit": error.exit.code(),
                        "message": error.message,
                        "remediation": error.remediation,
                        "denial": error.denial,
                    },
                }));
            }
            OutputMode::Human => {
                let s = self.err_style();
                let mut text = format!("{} {}", s.bad("error:"), error.message);
                if let Some(r) = &error.remediation {
                    text.push_str(&format!("\n  {} {r}", s.bold("to fix:")));
                }
                write_stderr(&text);
            }
        }
    }

    /// A warning on stderr (both modes: JSON stays on stdout, unpolluted), unless `-q`.
    pub fn warn(&self, text: &str) {
        if !self.quiet {
            write_stderr(&format!("{} {text}", self.err_style().warn("warning:")));
        }
    }

    /// A note on stderr (a prompt's context, a hint), unless `-q`.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            write_stderr(text);
        }
    }
}

/// Write `text` to stdout and flush; a newline is added if missing. A closed pipe is
/// [`Exit::ClosedPipe`]; any other failure (a full disk behind a redirect) is an internal
/// error naming it.
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_all(text.as_bytes())
        .and_then(|()| {
            if text.ends_with('\n') {
                Ok(())
            } else {
                stdout.write_all(b"\n")
            }
        })
        .and_then(|()| stdout.flush());
    written.map_err(|e| {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError::closed_pipe()
        } else {
            CliError::internal(format!("cannot write to standard output: {e}"))
        }
    })
}

/// Write `text` and a newline to stderr; a failure is dropped (there is nowhere left to
/// report it).
pub fn write_stderr(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{text}");
    let _ = stderr.flush();
}

/// Write `text` to stderr without a newline (a prompt, a progress frame).
pub fn write_stderr_raw(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "{text}");
    let _ = stderr.flush();
}

fn print_json(doc: &Value) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(doc).unwrap_or_else(|e| {
        format!("{{\"schema\":\"{JSON_SCHEMA}\",\"error\":{{\"exit\":1,\"message\":\"cannot encode JSON: {e}\"}}}}")
    });
    write_stdout(&text)
}

/// What a human rendering needs: the palette and the width tables must fit.
#[derive(Debug, Clone, Copy)]
pub struct Page {
    /// The palette.
    pub s: Style,
    /// The width, if known.
    pub width: Option<u16>,
}

impl Page {
    /// A table to fit this page.
    pub fn table(&self, header: &[&str]) -> crate::table::Table {
        crate::table::Table::new(header, self.width)
    }

    /// `text` with its long lines wrapped to fit this page ([`crate::table::fit`]).
    pub fn fit(&self, text: &str) -> String {
        crate::table::fit(text, self.width)
    }
}

/// ANSI colour, or nothing.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// Whether to emit escape codes.
    pub colour: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
    /// Good news (green).
    pub fn good(&self, text: &str) -> String {
        self.paint("32", text)
    }
    /// Bad news (red).
    pub fn bad(&self, text: &str) -> String {
        self.paint("31", text)
    }
    /// Caution (yellow).
    pub fn warn(&self, text: &str) -> String {
        self.paint("33", text)
    }
    /// Less important (dim).
    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }
    /// Headings (bold).
    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_colour_means_no_escape_codes() {
        let s = Style { colour: false };
        assert_eq!(s.bad("x"), "x");
        assert_eq!(Style { colour: true }.bad("x"), "\x1b[31mx\x1b[0m");
    }

    #[test]
    fn explicit_colour_choices_ignore_the_terminal() {
        assert!(ColorChoice::Always.resolve(false));
        assert!(!ColorChoice::Never.resolve(true));
    }
}
