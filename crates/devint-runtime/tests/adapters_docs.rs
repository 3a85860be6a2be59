//! `docs/tools.md` is generated from the descriptors and must be current.
//!
//! Regenerate with `DEVINT_BLESS=1 cargo test --test adapters_docs`.

use std::path::PathBuf;

use devint_runtime::adapters::{all, capability_table_markdown, Capability};

fn doc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/tools.md")
}

/// The releases the real-tool conformance job judged, from `conformance/tools.toml` (the
/// one home of the pinned versions), as a section of `docs/tools.md`.
fn judged_section() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance/tools.toml");
    let pins: toml::Table = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let date = pins["judged"].as_str().unwrap();
    let mut md = format!(
        "\n## Judged by the real tools\n\n\
         `conformance/run.py` (run in CI) installs each release below from its registry, applies the \
         recommended and the strict profile, and asks the tool's own offline commands what they read: \
         each effect must show, a broken file must be refused, and removal must leave the file \
         byte-identical. A capability row checked {date} (above) was seen in those runs.\n\n\
         | tool | release judged on {date} | judge |\n|---|---|---|\n"
    );
    for tool in all() {
        let entry = pins[tool.id].as_table().unwrap();
        let text = |k: &str| entry.get(k).and_then(toml::Value::as_str);
        match (text("registry"), text("package"), text("version")) {
            (Some(registry), Some(package), Some(version)) => {
                md.push_str(&format!(
                    "| `{}` | `{package}` {version} ({registry}) | {} |\n",
                    tool.id,
                    text("judge").unwrap_or("-")
                ));
            }
            _ => md.push_str(&format!(
                "| `{}` | not judged: {} | - |\n",
                tool.id,
                text("not_installable").unwrap_or("-")
            )),
        }
    }
    md
}

#[test]
fn docs_tools_md_is_current() {
    let generated = capability_table_markdown() + &judged_section();
    let path = doc_path();
    if std::env::var_os("DEVINT_BLESS").is_some_and(|v| !v.is_empty()) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/tools.md is out of date with the tool descriptors; regenerate it with \
         `DEVINT_BLESS=1 cargo test --test adapters_docs` and commit the result"
    );
}

#[test]
fn the_table_has_a_row_per_tool_and_a_column_per_capability() {
    let md = capability_table_markdown();
    let header = md
        .lines()
        .find(|l| l.starts_with("| tool |"))
        .expect("matrix header");
    for c in Capability::ALL {
        assert!(
            header.contains(c.token()),
            "{} missing from the header",
            c.token()
        );
    }
    for tool in all() {
        let row = format!("| `{}` |", tool.id);
        assert!(
            md.lines().any(|l| l.starts_with(&row)),
            "{} has no matrix row",
            tool.id
        );
        assert!(md.contains(&format!("## {} (`{}`)", tool.display_name, tool.id)));
        for file in tool.settings {
            let tail = file.path.rsplit('/').next().unwrap();
            assert!(md.contains(tail), "{}: {} missing", tool.id, file.path);
        }
        for row in &tool.capabilities {
            assert!(md.contains(row.source), "{}: source missing", tool.id);
        }
    }
}
