//! Keeps `docs/threat-model.md` honest: every hostile case names the test that fails
//! without its protection, and that test must exist as `fn <name>` somewhere under `src/`
//! or `tests/` of any crate of the workspace. The table must list at least 40 cases. Rows may be added anywhere; the
//! parser reads any table row whose first cell is a number and takes the backticked names
//! in its last cell.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const MIN_ROWS: usize = 40;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace's other crates (`crates/*`).
fn workspace_members() -> Vec<PathBuf> {
    let mut members: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .expect("the workspace has a crates/ directory")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    members.sort();
    members
}

/// One catalogue row: its number and the test names in its last cell.
#[derive(Debug)]
struct Row {
    number: String,
    tests: Vec<String>,
}

fn is_ident(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Every backticked span in `cell`.
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.trim().to_owned())
        .collect()
}

fn parse_rows(markdown: &str) -> Vec<Row> {
    markdown
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let inner = line.strip_prefix('|')?.strip_suffix('|')?;
            let cells: Vec<&str> = inner.split('|').map(str::trim).collect();
            let number = cells.first()?;
            if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            Some(Row {
                number: (*number).to_owned(),
                tests: backticked(cells.last()?),
            })
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every name that follows `fn ` (as a whole word) in `text`.
fn fn_names(text: &str, out: &mut BTreeSet<String>) {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find("fn ") {
        let start = from + at;
        from = start + 3;
        let word_boundary =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        if !word_boundary {
            continue;
        }
        let name: String = text[from..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
}

fn functions_in_tree() -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    rust_files(&root().join("tests"), &mut files);
    for member in workspace_members() {
        rust_files(&member.join("src"), &mut files);
        let tests = member.join("tests");
        if tests.is_dir() {
            rust_files(&tests, &mut files);
        }
    }
    let mut names = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable source file");
        fn_names(&text, &mut names);
    }
    names
}

fn catalogue() -> Vec<Row> {
    let path = root().join("docs/threat-model.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse_rows(&text)
}

#[test]
fn the_threat_model_lists_at_least_forty_hostile_cases() {
    let rows = catalogue();
    assert!(
        rows.len() >= MIN_ROWS,
        "docs/threat-model.md lists {} hostile cases; at least {MIN_ROWS} are required",
        rows.len()
    );
}

#[test]
fn every_hostile_case_names_a_test_that_exists_in_the_tree() {
    let known = functions_in_tree();
    let mut missing = Vec::new();
    for row in catalogue() {
        if row.tests.is_empty() {
            missing.push(format!("row {}: names no test", row.number));
        }
        for name in &row.tests {
            if !is_ident(name) {
                missing.push(format!(
                    "row {}: `{name}` is not a test function name",
                    row.number
                ));
            } else if !known.contains(name) {
                missing.push(format!("row {}: `{name}`", row.number));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/threat-model.md names tests that do not exist as `fn <name>` under src/ or tests/:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn the_parser_reads_rows_and_ignores_headers_and_prose() {
    let doc = "intro | not a row\n\
               | # | case | test |\n\
               |---|---|---|\n\
               | 1 | a | `first_test` |\n\
               | 7 | b | `second_test`, `third_test` |\n\
               | x | c | `not_counted` |\n";
    let rows = parse_rows(doc);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].number, "7");
    assert_eq!(rows[1].tests, ["second_test", "third_test"]);
}

#[test]
fn the_function_scanner_finds_whole_word_fn_names_only() {
    let mut names = BTreeSet::new();
    fn_names(
        "fn alpha() {}\n    async fn beta_2(x: u8)\n let defn gamma = 1; pub(crate) fn delta<T>()",
        &mut names,
    );
    let found: Vec<&str> = names.iter().map(String::as_str).collect();
    assert_eq!(found, ["alpha", "beta_2", "delta"]);
}
