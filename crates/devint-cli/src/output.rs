//! How results reach the person or the script: human text (aligned tables, colour only on
//! a TTY and never with `NO_COLOR`) or one JSON document per command.
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
//! place of `result`. It must never print a token secret (only `enrol --print` does, and
//! not through here) and never colour output that is not a terminal.

use std::io::{IsTerminal, Write};

use devint::time::UnixSecs;
use serde::Serialize;
use serde_json::{json, Value};

use crate::exit::CliError;

/// The JSON envelope's schema name; bumped only on an incompatible change.
pub const JSON_SCHEMA: &str = "devint.cli.v1";

/// `--output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputMode {
    /// Text for people.
    Human,
    /// One JSON document on stdout.
    Json,
}

/// Where and how to write.
#[derive(Debug, Clone, Copy)]
pub struct Out {
    /// Human or JSON.
    pub mode: OutputMode,
    /// Whether ANSI colour may be used.
    pub colour: bool,
}

impl Out {
    /// For this process: colour only when stdout is a terminal and `NO_COLOR` is unset or
    /// empty (no-color.org).
    pub fn detect(mode: OutputMode) -> Out {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Out {
            mode,
            colour: mode == OutputMode::Human && !no_color && std::io::stdout().is_terminal(),
        }
    }

    /// Whether the output is JSON.
    pub fn json(&self) -> bool {
        self.mode == OutputMode::Json
    }

    /// The palette.
    pub fn style(&self) -> Style {
        Style {
            colour: self.colour,
        }
    }

    /// Print a command's result: the JSON envelope, or the human text `human` renders.
    pub fn result<T: Serialize>(
        &self,
        command: &str,
        runtime: Option<&Value>,
        result: &T,
        human: impl FnOnce(&Style) -> String,
    ) {
        match self.mode {
            OutputMode::Json => {
                let doc = json!({
                    "schema": JSON_SCHEMA,
                    "command": command,
                    "runtime": runtime,
                    "result": result,
                });
                print_json(&doc);
            }
            OutputMode::Human => {
                let text = human(&self.style());
                let mut stdout = std::io::stdout().lock();
                let _ = stdout.write_all(text.as_bytes());
                if !text.ends_with('\n') {
                    let _ = stdout.write_all(b"\n");
                }
                let _ = stdout.flush();
            }
        }
    }

    /// Print a failure: JSON on stdout in JSON mode, text on stderr otherwise.
    pub fn error(&self, command: &str, runtime: Option<&Value>, error: &CliError) {
        match self.mode {
            OutputMode::Json => print_json(&json!({
                "schema": JSON_SCHEMA,
                "command": command,
                "runtime": runtime,
                "error": {
                    "exit": error.exit.code(),
                    "message": error.message,
                    "remediation": error.remediation,
                },
            })),
            OutputMode::Human => {
                let s = Style {
                    colour: self.colour && std::io::stderr().is_terminal(),
                };
                eprintln!("{} {error}", s.bad("error:"));
            }
        }
    }

    /// A warning on stderr (both modes: JSON stays on stdout, unpolluted).
    pub fn warn(&self, text: &str) {
        let s = Style {
            colour: self.colour && std::io::stderr().is_terminal(),
        };
        eprintln!("{} {text}", s.warn("warning:"));
    }
}

fn print_json(doc: &Value) {
    let text = serde_json::to_string_pretty(doc).unwrap_or_else(|e| {
        format!("{{\"schema\":\"{JSON_SCHEMA}\",\"error\":{{\"exit\":1,\"message\":\"cannot encode JSON: {e}\"}}}}")
    });
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
    let _ = stdout.flush();
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

/// An aligned text table. Cells may hold escape codes; widths count visible characters.
#[derive(Debug, Default)]
pub struct Table {
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with a header row.
    pub fn new(header: &[&str]) -> Table {
        Table {
            rows: vec![header.iter().map(|h| (*h).to_owned()).collect()],
        }
    }

    /// Add a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Render with two spaces between columns, each line indented by `indent`.
    pub fn render(&self, indent: &str) -> String {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut widths = vec![0; cols];
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(visible_len(cell));
            }
        }
        let mut out = String::new();
        for row in &self.rows {
            let mut line = String::from(indent);
            for (i, cell) in row.iter().enumerate() {
                line.push_str(cell);
                if i + 1 < row.len() {
                    line.push_str(&" ".repeat(widths[i] - visible_len(cell) + 2));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// Characters shown, not counting ANSI escape sequences.
pub fn visible_len(text: &str) -> usize {
    let mut n = 0;
    let mut in_escape = false;
    for c in text.chars() {
        match (in_escape, c) {
            (false, '\x1b') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, _) => n += 1,
        }
    }
    n
}

/// A point in time as `YYYY-MM-DD HH:MM:SSZ` (UTC), without a date library.
pub fn utc(time: UnixSecs) -> String {
    let unix_secs = time.get();
    let days = unix_secs / 86_400;
    let rem = unix_secs % 86_400;
    let (h, m, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02}:{s:02}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_on_visible_width_ignoring_colour_codes() {
        let s = Style { colour: true };
        let mut t = Table::new(&["tool", "state"]);
        t.row(vec![s.good("a"), "x".into()]);
        t.row(vec!["longer".into(), "y".into()]);
        let text = t.render("");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "tool    state");
        assert_eq!(visible_len(lines[1]), "a       x".len());
        assert_eq!(lines[2], "longer  y");
    }

    #[test]
    fn no_colour_means_no_escape_codes() {
        let s = Style { colour: false };
        assert_eq!(s.bad("x"), "x");
    }

    #[test]
    fn utc_formats_known_instants() {
        assert_eq!(utc(UnixSecs::EPOCH), "1970-01-01 00:00:00Z");
        assert_eq!(utc(UnixSecs::new(1_700_000_000)), "2023-11-14 22:13:20Z");
        assert_eq!(utc(UnixSecs::new(951_782_400)), "2000-02-29 00:00:00Z");
    }
}
