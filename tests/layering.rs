//! The layering is a fact of the tree, not a convention: inside each crate of the
//! workspace, a top-level module may use (`crate::…`) only the modules of layers below its
//! own, so the module graph has no cycle. Between crates, Cargo already refuses a cycle;
//! `.ci/run` checks with `cargo tree` that the core compiles no tokio, clap or settings
//! editor. This test reads the sources; it compiles nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each crate's top-level modules, bottom layer first. Modules in one inner slice are one
/// layer and may not use each other.
const LAYERS: &[(&str, &[&[&str]])] = &[
    (
        "src",
        &[
            &["time", "version", "wire"],
            &["verbs", "exit"],
            &["negotiate", "auth", "provenance", "peer"],
            &["audit", "backend"],
            &["testing"],
            &["session"],
        ],
    ),
    (
        "crates/devint-fs/src",
        &[
            &["mode", "read", "remote"],
            &["durable", "lock", "private", "scratch", "special", "watch"],
        ],
    ),
    (
        "crates/devint-net/src",
        &[
            &["transport"],
            &["provenance", "book", "token_file", "audit_log"],
            &["client", "server"],
        ],
    ),
    (
        "crates/devint-runtime/src",
        // The descriptors name the settings formats the editor knows.
        &[&["edit"], &["adapters"], &["reference"]],
    ),
    (
        "crates/devint-sidecar/src",
        &[
            &[
                "framing",
                "credential",
                "follow",
                "config",
                "method",
                "error",
                "schema",
            ],
            &["rpc", "params"],
            &["outbox", "fuzz_harness"],
            &["session"],
            &["dispatch"],
        ],
    ),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
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

/// The top-level module a file of `src_dir` belongs to (`lib`/`main` for the crate root).
fn module_of(src_dir: &Path, file: &Path) -> String {
    let rel = file
        .strip_prefix(src_dir)
        .expect("under the source directory");
    let first = rel.components().next().expect("a path component");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_owned()
}

/// The modules named as `crate::<name>` in `text`, comments left out.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // e.g. `devint_crate::`
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// `(from, to)` for every use of another top-level module in the crate at `src_dir`.
fn module_edges(src_dir: &Path) -> BTreeSet<(String, String)> {
    let mut files = Vec::new();
    rust_files(src_dir, &mut files);
    let mut edges = BTreeSet::new();
    for file in files {
        let from = module_of(src_dir, &file);
        let text = std::fs::read_to_string(&file).expect("readable source file");
        for to in crate_paths(&text) {
            if to != from {
                edges.insert((from.clone(), to));
            }
        }
    }
    edges
}

fn layer_index(layers: &[&[&str]]) -> BTreeMap<String, usize> {
    layers
        .iter()
        .enumerate()
        .flat_map(|(i, layer)| layer.iter().map(move |m| (m.to_string(), i)))
        .collect()
}

/// Every edge that goes sideways or up, and every module the table does not place.
fn violations(src_dir: &Path, layers: &[&[&str]]) -> Vec<String> {
    let index = layer_index(layers);
    let mut problems = Vec::new();
    for (from, to) in module_edges(src_dir) {
        if from == "lib" || from == "main" {
            continue;
        }
        match (index.get(&from), index.get(&to)) {
            (Some(f), Some(t)) if t < f => {}
            (Some(_), Some(_)) => problems.push(format!(
                "{}: `{from}` uses `crate::{to}`, which is not in a layer below it",
                src_dir.display()
            )),
            (None, _) => problems.push(format!(
                "{}: module `{from}` has no layer in tests/layering.rs",
                src_dir.display()
            )),
            (_, None) => problems.push(format!(
                "{}: `{from}` uses `crate::{to}`, which has no layer in tests/layering.rs",
                src_dir.display()
            )),
        }
    }
    problems
}

#[test]
fn no_module_uses_a_layer_above_or_beside_its_own() {
    let mut problems = Vec::new();
    for (dir, layers) in LAYERS {
        problems.extend(violations(&root().join(dir), layers));
    }
    assert!(
        problems.is_empty(),
        "layering broken:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn every_top_level_module_has_a_layer() {
    for (dir, layers) in LAYERS {
        let index = layer_index(layers);
        let src = root().join(dir);
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in files {
            let module = module_of(&src, &file);
            assert!(
                module == "lib" || module == "main" || index.contains_key(&module),
                "{dir}: module `{module}` has no layer in tests/layering.rs"
            );
        }
    }
}

/// A cycle in `graph` (as the path that closes it), if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search for a back edge.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

fn graph_of(edges: &BTreeSet<(String, String)>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in edges {
        graph.entry(from.clone()).or_default().insert(to.clone());
    }
    graph
}

#[test]
fn the_command_has_no_cycle_between_its_modules() {
    let graph = graph_of(&module_edges(&root().join("crates/devint-cli/src")));
    if let Some(cycle) = find_cycle(&graph) {
        panic!("the command's modules form a cycle: {}", cycle.join(" → "));
    }
}

/// The sibling modules named as `super::<name>` in `text` (grouped imports included),
/// comments left out; only names in `siblings` count (the rest are the parent's items).
fn super_paths(text: &str, siblings: &BTreeSet<String>) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("super::") {
            rest = &rest[at + "super::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                out.extend(inner.split(',').map(ident));
            } else {
                out.insert(ident(rest));
            }
        }
    }
    out.retain(|n| siblings.contains(n));
    out
}

/// `(from, to)` for every `super::` use between sibling files of one directory of modules.
fn sibling_edges(dir: &Path) -> BTreeSet<(String, String)> {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    let name = |p: &Path| {
        p.file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned()
    };
    let siblings: BTreeSet<String> = entries
        .iter()
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        .map(|p| name(p))
        .filter(|n| n != "mod")
        .collect();
    let mut edges = BTreeSet::new();
    for path in &entries {
        let (from, mut files) = if path.is_dir() {
            let mut files = Vec::new();
            rust_files(path, &mut files);
            // Inside a sub-directory `super::` names the sub-module; only its own `mod.rs`
            // speaks of this directory's siblings with `super::`.
            files.retain(|f| f == &path.join("mod.rs"));
            (name(path), files)
        } else if path.extension().is_some_and(|e| e == "rs") && name(path) != "mod" {
            (name(path), vec![path.clone()])
        } else {
            continue;
        };
        for file in files.drain(..) {
            let text = std::fs::read_to_string(&file).expect("readable source file");
            for to in super_paths(&text, &siblings) {
                if to != from {
                    edges.insert((from.clone(), to));
                }
            }
        }
    }
    edges
}

/// Every directory of modules under `dir` (itself included).
fn module_dirs(dir: &Path, out: &mut Vec<PathBuf>) {
    out.push(dir.to_owned());
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            module_dirs(&path, out);
        }
    }
}

/// Inside a module too, the files form layers (`auth`'s book builds grants, so
/// the grant must not know the book; both know the record), in every crate of the workspace.
#[test]
fn no_module_of_any_crate_has_a_cycle_between_its_files() {
    let mut problems = Vec::new();
    let sources = LAYERS.iter().map(|(src, _)| *src);
    for src in sources.chain(["crates/devint-cli/src"]) {
        let mut dirs = Vec::new();
        module_dirs(&root().join(src), &mut dirs);
        for dir in dirs.iter().skip(1) {
            if let Some(cycle) = find_cycle(&graph_of(&sibling_edges(dir))) {
                problems.push(format!("{}: {}", dir.display(), cycle.join(" → ")));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "files of one module use each other in a cycle:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn a_cycle_between_sibling_files_is_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mod.rs"),
        "mod book; mod grant; mod record;\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("book.rs"),
        "use super::{grant::Grant, record::Record};\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("record.rs"),
        "// super::book is a comment\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("grant.rs"), "use super::record::Record;\n").unwrap();
    assert_eq!(find_cycle(&graph_of(&sibling_edges(dir.path()))), None);
    std::fs::write(dir.path().join("grant.rs"), "use super::book::Record;\n").unwrap();
    let cycle = find_cycle(&graph_of(&sibling_edges(dir.path()))).expect("a cycle");
    assert!(cycle.contains(&"book".to_owned()) && cycle.contains(&"grant".to_owned()));
}

#[test]
fn an_upward_use_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("low")).unwrap();
    std::fs::write(dir.path().join("low/mod.rs"), "use crate::high::Thing;\n").unwrap();
    std::fs::write(dir.path().join("high.rs"), "use crate::low::Other;\n").unwrap();
    let problems = violations(dir.path(), &[&["low"], &["high"]]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("`low` uses `crate::high`"));
}

#[test]
fn comments_and_other_crates_are_not_uses() {
    assert!(crate_paths("// see crate::session\nlet x = devint_crate::y;").is_empty());
    assert_eq!(
        crate_paths("use crate::wire::pb; crate::verbs::Verb"),
        ["verbs", "wire"].map(String::from).into_iter().collect()
    );
}
