//! `docs/tools.md` is generated from the descriptors and must be current.
//!
//! Regenerate with `DEVINT_BLESS=1 cargo test --test adapters_docs`.

use std::path::PathBuf;

use devint_runtime::adapters::{all, capability_table_markdown, Capability};

fn doc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/tools.md")
}

#[test]
fn docs_tools_md_is_current() {
    let generated = capability_table_markdown();
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
