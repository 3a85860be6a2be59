//! Tables for people: columns separated by two spaces, no borders, wrapped to fit the
//! terminal (`COLUMNS`, else the terminal's width; unbounded when neither is known).
//!
//! This module owns table layout (through `comfy-table`), wrapping long lines of prose
//! ([`fit`]) and the terminal width. Cells are plain text: colour inside a cell would be
//! counted as width, so it must never be passed one (a debug assertion guards it).

use std::io::IsTerminal;

use comfy_table::{presets::NOTHING, ColumnConstraint, ContentArrangement};

/// The narrowest width a table is squeezed to; below it, wrapping helps nobody.
const MIN_WIDTH: u16 = 40;

/// The width tables must fit: a positive `COLUMNS`, else stdout's terminal width, else
/// none (output to a file or pipe is not wrapped).
pub fn terminal_width() -> Option<u16> {
    let from_env = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<u16>().ok())
        .filter(|w| *w > 0);
    from_env.or_else(|| {
        let stdout = std::io::stdout();
        if !stdout.is_terminal() {
            return None;
        }
        rustix::termios::tcgetwinsize(&stdout)
            .ok()
            .map(|size| size.ws_col)
            .filter(|w| *w > 0)
    })
}

/// `text` with each line longer than `width` wrapped at spaces; a continuation line is
/// indented two spaces more than its line. Escape codes have no width; a word longer than
/// the line stays whole; lines that fit (a table's) are unchanged. No `width`: unchanged.
pub fn fit(text: &str, width: Option<u16>) -> String {
    let Some(width) = width.map(|w| usize::from(w.max(MIN_WIDTH))) else {
        return text.to_owned();
    };
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if visible_width(line) <= width {
            out.push_str(line);
            continue;
        }
        let rest = line.trim_start_matches(' ');
        let indent = &line[..line.len() - rest.len()];
        let hang = format!("{indent}  ");
        out.push_str(indent);
        let mut column = indent.len();
        let mut first = true;
        for word in rest.split(' ').filter(|w| !w.is_empty()) {
            let w = visible_width(word);
            if !first && column + 1 + w > width {
                out.push('\n');
                out.push_str(&hang);
                column = hang.len();
                first = true;
            }
            if !first {
                out.push(' ');
                column += 1;
            }
            out.push_str(word);
            column += w;
            first = false;
        }
    }
    out
}

/// The width `text` takes on a terminal: characters, not counting ANSI escape codes.
fn visible_width(text: &str) -> usize {
    let mut width = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters… final byte (@ to ~).
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) && c != '[' {
                    break;
                }
            }
        } else {
            width += 1;
        }
    }
    width
}

/// A table with a header row.
pub struct Table {
    inner: comfy_table::Table,
    width: Option<u16>,
    whole: Vec<usize>,
}

impl Table {
    /// A table with `header`, to fit `width` columns if given.
    pub fn new(header: &[&str], width: Option<u16>) -> Table {
        let mut inner = comfy_table::Table::new();
        inner.load_style(NOTHING);
        inner.set_header(header.to_vec());
        Table {
            inner,
            width,
            whole: Vec::new(),
        }
    }

    /// Never wrap column `index` (an id a person copies).
    pub fn whole(mut self, index: usize) -> Table {
        self.whole.push(index);
        self
    }

    /// Add a row.
    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        let cells: Vec<String> = cells.into_iter().map(Into::into).collect();
        debug_assert!(
            cells.iter().all(|c| !c.contains('\x1b')),
            "a table cell must not hold escape codes"
        );
        self.inner.add_row(cells);
    }

    /// Render, each line prefixed by `indent`, ending with a newline.
    pub fn render(mut self, indent: &str) -> String {
        let columns = self.inner.column_count();
        for (i, column) in self.inner.column_iter_mut().enumerate() {
            column.set_padding((0, if i + 1 < columns { 2 } else { 0 }));
            if self.whole.contains(&i) {
                column.set_constraint(ColumnConstraint::ContentWidth);
            }
        }
        if let Some(width) = self.width {
            let room = width.saturating_sub(indent.len() as u16).max(MIN_WIDTH);
            self.inner
                .set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(room);
        }
        let mut out = String::new();
        for line in self.inner.lines() {
            let line = line.trim_end();
            out.push_str(indent);
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_two_spaces_apart_without_borders() {
        let mut t = Table::new(&["TOOL", "STATE"], None);
        t.row(["a", "x"]);
        t.row(["longer", "y"]);
        assert_eq!(t.render(""), "TOOL    STATE\na       x\nlonger  y\n");
    }

    #[test]
    fn long_lines_wrap_at_spaces_under_their_indent_and_escapes_have_no_width() {
        let text = "  warning: \x1b[33mthe gateway provider\x1b[0m reads its key from OPENAI_API_KEY\nshort\n";
        let fitted = fit(text, Some(40));
        assert_eq!(
            fitted,
            "  warning: \x1b[33mthe gateway provider\x1b[0m reads\n    its key from OPENAI_API_KEY\nshort\n"
        );
        for line in fitted.lines() {
            assert!(visible_width(line) <= 40, "{line:?}");
        }
        assert_eq!(fit(text, None), text);
    }

    #[test]
    fn a_narrow_width_wraps_the_long_column() {
        let mut t = Table::new(&["STEP", "SUMMARY"], Some(44));
        t.row([
            "gateway",
            "Set env.ANTHROPIC_BASE_URL in ~/.claude/settings.json so model traffic goes to the gateway",
        ]);
        let text = t.render("  ");
        for line in text.lines() {
            assert!(line.chars().count() <= 44, "{line:?} in\n{text}");
        }
        assert!(text.lines().count() > 2, "{text}");
    }
}
