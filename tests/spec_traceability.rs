//! Spec traceability: every rule of `docs/spec-rules.md` is annotated `spec[ID]` in the code
//! that keeps it, every annotation names a rule of the table, and the table's **where**
//! column names exactly the files that carry each annotation.
//!
//! Rules enforced only in files others were editing (the server, the client and
//! the command) are listed in [`PENDING`] and marked `(pending)` in the table until the
//! lead annotates them; a pending entry whose file now carries the annotation fails as
//! stale, so the list only ever shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Rules known to be enforced in a file not yet annotated: `(id, "pending: <file>")`.
const PENDING: &[(&str, &str)] = &[];

/// The fewest rules the table may have; fewer means the extraction was cut short.
const MIN_RULES: usize = 30;

/// The directories a pending entry may name: the ones others were editing.
const PENDING_DIRS: &[&str] = &[
    "crates/devint-net/src/server/",
    "crates/devint-net/src/client/",
    "crates/devint-cli/src/",
];

/// One file of the **where** column.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Place {
    path: String,
    pending: bool,
}

/// One row of the table.
#[derive(Debug, Clone)]
struct Rule {
    id: String,
    places: Vec<Place>,
}

/// One `spec[ID]` found in a source file.
#[derive(Debug, Clone)]
struct Annotation {
    id: String,
    path: String,
    line: usize,
}

/// Whether `id` has the shape `S<section>-<NAME>` with `NAME` of `[A-Z0-9-]`; returns the
/// section number.
fn id_section(id: &str) -> Option<u32> {
    let rest = id.strip_prefix('S')?;
    let (digits, name) = rest.split_once('-')?;
    let section = digits.parse().ok()?;
    let name_ok = !name.is_empty()
        && !name.ends_with('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-');
    name_ok.then_some(section)
}

/// Parse the rule table; each malformed row is a problem.
fn parse_rules(doc: &str, problems: &mut Vec<String>) -> Vec<Rule> {
    let mut rules = Vec::new();
    for (n, line) in doc.lines().enumerate() {
        let line = line.trim();
        if !line.starts_with("| S") {
            continue;
        }
        let at = format!("docs/spec-rules.md:{}", n + 1);
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [id, section, _rule, place_cell] = cells[..] else {
            problems.push(format!(
                "{at}: a rule row needs exactly 4 cells, not {}",
                cells.len()
            ));
            continue;
        };
        let Some(number) = id_section(id) else {
            problems.push(format!(
                "{at}: `{id}` is not an id of the form S<section>-<NAME>"
            ));
            continue;
        };
        if section != format!("§{number}") {
            problems.push(format!(
                "{at}: {id} is in §{number} but its section cell says `{section}`"
            ));
        }
        let mut places = Vec::new();
        for part in place_cell.split(',').map(str::trim) {
            let parsed = part
                .strip_prefix('`')
                .and_then(|p| p.split_once('`'))
                .and_then(|(path, tail)| match tail.trim() {
                    "" => Some((path, false)),
                    "(pending)" => Some((path, true)),
                    _ => None,
                });
            match parsed {
                Some((path, pending)) if !path.is_empty() => places.push(Place {
                    path: path.to_owned(),
                    pending,
                }),
                _ => problems.push(format!(
                    "{at}: {id}: `{part}` is not a `path` optionally followed by (pending)"
                )),
            }
        }
        if places.is_empty() {
            problems.push(format!("{at}: {id} names no file in its where column"));
        }
        rules.push(Rule {
            id: id.to_owned(),
            places,
        });
    }
    rules
}

/// Every `spec[S…]` in `text`. Brackets that do not start with `S` and a digit (an index
/// such as `spec[i]`) are not annotations; anything that does is, even if malformed, so a
/// typo is reported rather than skipped.
fn scan_annotations(path: &str, text: &str, out: &mut Vec<Annotation>) {
    for (n, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("spec[") {
            rest = &rest[at + "spec[".len()..];
            let bytes = rest.as_bytes();
            if bytes.len() < 2 || bytes[0] != b'S' || !bytes[1].is_ascii_digit() {
                continue;
            }
            let id = rest.split(']').next().unwrap_or(rest);
            out.push(Annotation {
                id: id.to_owned(),
                path: path.to_owned(),
                line: n + 1,
            });
        }
    }
}

/// Check the table against the sources (`(path relative to the crate, text)`) and the
/// pending list. Returns every problem found, empty when all is well.
fn check(doc: &str, sources: &[(String, String)], pending: &[(&str, &str)]) -> Vec<String> {
    let mut problems = Vec::new();
    let rules = parse_rules(doc, &mut problems);
    if rules.len() < MIN_RULES {
        problems.push(format!(
            "docs/spec-rules.md lists {} rules; at least {MIN_RULES} are expected",
            rules.len()
        ));
    }
    let mut ids = BTreeSet::new();
    for rule in &rules {
        if !ids.insert(rule.id.as_str()) {
            problems.push(format!("{} is listed twice in docs/spec-rules.md", rule.id));
        }
    }

    let mut annotations = Vec::new();
    for (path, text) in sources {
        scan_annotations(path, text, &mut annotations);
    }
    let mut annotated: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for a in &annotations {
        if ids.contains(a.id.as_str()) {
            annotated
                .entry(a.id.as_str())
                .or_default()
                .insert(a.path.as_str());
        } else {
            problems.push(format!(
                "{}:{}: spec[{}] names no rule of docs/spec-rules.md (a typo?)",
                a.path, a.line, a.id
            ));
        }
    }
    let scanned: BTreeSet<&str> = sources.iter().map(|(p, _)| p.as_str()).collect();

    let mut pending_set: BTreeSet<(&str, &str)> = BTreeSet::new();
    for &(id, entry) in pending {
        let Some(path) = entry.strip_prefix("pending: ") else {
            problems.push(format!(
                "PENDING entry `{entry}` of {id} must read `pending: <file>`"
            ));
            continue;
        };
        if !PENDING_DIRS.iter().any(|d| path.starts_with(d)) {
            problems.push(format!(
                "PENDING entry {id} `{path}` is outside {PENDING_DIRS:?}; annotate it instead"
            ));
        }
        pending_set.insert((id, path));
    }

    let mut unannotated = Vec::new();
    for rule in &rules {
        let id = rule.id.as_str();
        let carried = annotated.get(id).cloned().unwrap_or_default();
        for place in &rule.places {
            let path = place.path.as_str();
            if place.pending {
                if !pending_set.remove(&(id, path)) {
                    problems.push(format!(
                        "{id}: `{path}` is marked (pending) in the table but not in PENDING"
                    ));
                }
                if carried.contains(path) {
                    problems.push(format!(
                        "{id}: `{path}` carries spec[{id}] now; drop its (pending) mark and \
                         its PENDING entry"
                    ));
                }
            } else if !scanned.contains(path) {
                problems.push(format!(
                    "{id}: `{path}` is not a file under src/, build.rs or proto/"
                ));
            } else if !carried.contains(path) {
                problems.push(format!("{id}: `{path}` does not carry spec[{id}]"));
            }
        }
        for path in &carried {
            if !rule.places.iter().any(|p| p.path == *path) {
                problems.push(format!(
                    "{id}: `{path}` carries spec[{id}] but the where column does not list it"
                ));
            }
        }
        if carried.is_empty() && rule.places.iter().any(|p| !p.pending) {
            unannotated.push(id);
        }
    }
    for (id, path) in pending_set {
        problems.push(format!(
            "PENDING lists {id} in `{path}`, but the table does not mark that file (pending)"
        ));
    }
    if !unannotated.is_empty() {
        problems.push(format!(
            "rules with no spec[ID] annotation anywhere: {}",
            unannotated.join(", ")
        ));
    }
    problems
}

fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` whose name passes `keep`, as crate-relative `/` paths.
fn collect(root: &Path, dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(root, &path, keep, out);
        } else if keep(&path) {
            // A file that is not UTF-8 cannot hold a comment we wrote; skip it.
            if let Ok(text) = std::fs::read_to_string(&path) {
                let rel = path.strip_prefix(root).expect("under the crate root");
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, text));
            }
        }
    }
}

/// The files annotations may live in: `src/**/*.rs` and `crates/*/src/**/*.rs`,
/// `build.rs`, `proto/**`; paths are relative to the repository root.
fn crate_sources() -> Vec<(String, String)> {
    let root = crate_root();
    let mut out = Vec::new();
    let rust = |p: &Path| p.extension().is_some_and(|e| e == "rs");
    collect(&root, &root.join("src"), &rust, &mut out);
    let mut members: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("the workspace has a crates/ directory")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    members.sort();
    for member in members {
        collect(&root, &member.join("src"), &rust, &mut out);
    }
    collect(&root, &root.join("proto"), &|_| true, &mut out);
    let build = root.join("build.rs");
    out.push((
        "build.rs".to_owned(),
        std::fs::read_to_string(&build).expect("build.rs is readable"),
    ));
    out
}

fn rules_doc() -> String {
    let path = crate_root().join("docs/spec-rules.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

#[test]
fn every_spec_rule_is_annotated_where_the_table_says() {
    let problems = check(&rules_doc(), &crate_sources(), PENDING);
    assert!(
        problems.is_empty(),
        "spec traceability is broken ({} problems):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

// The checker itself, on small synthetic tables: each protection must actually fire.

/// A table of `n` rules `S1-R0`…, each kept in `src/a.rs`, and the source that keeps them.
fn synthetic(n: usize) -> (String, Vec<(String, String)>) {
    let mut doc =
        String::from("| id | section | rule (short) | where (file) |\n|---|---|---|---|\n");
    let mut src = String::new();
    for i in 0..n {
        doc.push_str(&format!("| S1-R{i} | §1 | rule {i} | `src/a.rs` |\n"));
        src.push_str(&format!("// spec[S1-R{i}] §1: rule {i}.\n"));
    }
    (doc, vec![("src/a.rs".to_owned(), src)])
}

#[test]
fn a_complete_synthetic_table_passes() {
    let (doc, sources) = synthetic(MIN_RULES);
    assert_eq!(check(&doc, &sources, &[]), Vec::<String>::new());
}

#[test]
fn a_rule_with_no_annotation_is_listed() {
    let (doc, mut sources) = synthetic(MIN_RULES);
    sources[0].1 = sources[0].1.replace("spec[S1-R7]", "spec S1-R7");
    let problems = check(&doc, &sources, &[]);
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("rules with no spec[ID] annotation") && p.contains("S1-R7")),
        "{problems:?}"
    );
}

#[test]
fn an_annotation_naming_an_unknown_id_is_a_typo() {
    let (doc, mut sources) = synthetic(MIN_RULES);
    sources[0].1.push_str("// spec[S1-R7X] a typo\n");
    let problems = check(&doc, &sources, &[]);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("spec[S1-R7X] names no rule")),
        "{problems:?}"
    );
}

#[test]
fn an_index_expression_is_not_an_annotation() {
    let (doc, mut sources) = synthetic(MIN_RULES);
    sources[0].1.push_str("let x = spec[i] + spec[0];\n");
    assert_eq!(check(&doc, &sources, &[]), Vec::<String>::new());
}

#[test]
fn fewer_than_thirty_rules_fail() {
    let (doc, sources) = synthetic(MIN_RULES - 1);
    let problems = check(&doc, &sources, &[]);
    assert!(
        problems.iter().any(|p| p.contains("at least 30")),
        "{problems:?}"
    );
}

#[test]
fn an_annotation_in_a_file_the_table_does_not_name_fails() {
    let (doc, mut sources) = synthetic(MIN_RULES);
    sources.push((
        "src/b.rs".to_owned(),
        "// spec[S1-R3] also here\n".to_owned(),
    ));
    let problems = check(&doc, &sources, &[]);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`src/b.rs` carries spec[S1-R3] but the where column")),
        "{problems:?}"
    );
}

#[test]
fn a_pending_rule_passes_until_its_file_is_annotated() {
    let (mut doc, mut sources) = synthetic(MIN_RULES);
    doc.push_str("| S2-LATER | §2 | later | `crates/devint-net/src/server/x.rs` (pending) |\n");
    let pending = [("S2-LATER", "pending: crates/devint-net/src/server/x.rs")];
    assert_eq!(check(&doc, &sources, &pending), Vec::<String>::new());

    sources.push((
        "crates/devint-net/src/server/x.rs".to_owned(),
        "// spec[S2-LATER] §2: later.\n".to_owned(),
    ));
    let problems = check(&doc, &sources, &pending);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("drop its (pending) mark")),
        "{problems:?}"
    );
}

#[test]
fn a_pending_mark_without_a_pending_entry_fails() {
    let (mut doc, sources) = synthetic(MIN_RULES);
    doc.push_str("| S2-LATER | §2 | later | `crates/devint-net/src/server/x.rs` (pending) |\n");
    let problems = check(&doc, &sources, &[]);
    assert!(
        problems.iter().any(|p| p.contains("not in PENDING")),
        "{problems:?}"
    );
    let problems = check(
        &synthetic(MIN_RULES).0,
        &sources,
        &[("S1-R1", "pending: crates/devint-net/src/server/x.rs")],
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("the table does not mark that file (pending)")),
        "{problems:?}"
    );
}

#[test]
fn pending_is_only_for_files_others_are_editing() {
    let (mut doc, sources) = synthetic(MIN_RULES);
    doc.push_str("| S2-LATER | §2 | later | `src/wire/x.rs` (pending) |\n");
    let problems = check(&doc, &sources, &[("S2-LATER", "pending: src/wire/x.rs")]);
    assert!(
        problems.iter().any(|p| p.contains("annotate it instead")),
        "{problems:?}"
    );
}
