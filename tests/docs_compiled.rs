//! Docs that show code are compiled: every prose document of the workspace (`README.md` and
//! `docs/*.md`) is included by exactly one crate's `#[cfg(doctest)] docs` module, so each
//! of its Rust blocks is a doctest of the crate it documents; and no Rust block opts out
//! with `ignore`. A new document that no crate includes, or a block that would escape
//! compilation, fails here.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `README.md` and every `docs/*.md`, as paths relative to the workspace root.
fn documents() -> Vec<String> {
    let mut docs = vec!["README.md".to_owned()];
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/ is readable") {
        let name = entry.expect("a docs/ entry").file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".md") {
            docs.push(format!("docs/{name}"));
        }
    }
    docs.sort();
    docs
}

/// Every library root of the workspace: the core's and each member crate's `src/lib.rs`.
fn library_roots() -> Vec<PathBuf> {
    let mut roots = vec![root().join("src/lib.rs")];
    for entry in std::fs::read_dir(root().join("crates")).expect("crates/ is readable") {
        let lib = entry.expect("a crates/ entry").path().join("src/lib.rs");
        if lib.exists() {
            roots.push(lib);
        }
    }
    roots
}

/// The documents one library root includes in its docs module, relative to the workspace
/// root (`include_str!("../../../docs/client.md")` in `crates/x/src/lib.rs` is
/// `docs/client.md`).
fn included_by(lib: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(lib).expect("a library root is readable");
    let dir = lib.parent().expect("src/");
    text.lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("#[doc = include_str!(\"")?;
            let relative = rest.split('"').next()?;
            let path = dir.join(relative).canonicalize().ok()?;
            let path = path.strip_prefix(root().canonicalize().ok()?).ok()?;
            Some(path.to_string_lossy().into_owned())
        })
        .filter(|p| p == "README.md" || (p.starts_with("docs/") && p.ends_with(".md")))
        .collect()
}

#[test]
fn every_document_is_a_doctest_of_exactly_one_crate() {
    let mut owners: Vec<(String, Vec<String>)> =
        documents().into_iter().map(|d| (d, Vec::new())).collect();
    for lib in library_roots() {
        for doc in included_by(&lib) {
            let owner = lib.strip_prefix(root()).unwrap().display().to_string();
            match owners.iter_mut().find(|(d, _)| *d == doc) {
                Some((_, by)) => by.push(owner),
                None => panic!("{owner} includes {doc}, which does not exist"),
            }
        }
    }
    let wrong: Vec<String> = owners
        .iter()
        .filter(|(_, by)| by.len() != 1)
        .map(|(doc, by)| format!("{doc} is included by {by:?}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "each document must be in exactly one crate's `#[cfg(doctest)] docs` module:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_rust_block_in_a_document_escapes_compilation() {
    let mut escaping = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(root().join(&doc)).unwrap();
        let mut in_block = false;
        for (n, line) in text.lines().enumerate() {
            let Some(info) = line.trim_start().strip_prefix("```") else {
                continue;
            };
            if in_block {
                in_block = false;
                continue;
            }
            in_block = true;
            let tags: Vec<&str> = info.split(',').map(str::trim).collect();
            // rustdoc compiles an untagged block as Rust; `ignore` skips it altogether.
            if tags.contains(&"ignore") {
                escaping.push(format!("{doc}:{}: {line}", n + 1));
            }
        }
    }
    assert!(
        escaping.is_empty(),
        "a Rust block tagged `ignore` is never compiled; make it compile (`no_run` if it needs \
         a runtime):\n{}",
        escaping.join("\n")
    );
}
