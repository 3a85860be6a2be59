//! TOML: a Codex `config.toml` with comments, tables and dotted keys.

use serde_json::json;

use super::*;
use crate::edit::{EditError, ElementEdit, FileAction, KeyOutcome, SettingsDoc};

const CODEX: &str = r#"# Codex configuration
model = "o4-mini"   # default model
approval_policy = "on-request"
tui.animations = false

[shell_environment_policy]
inherit = "core"  # keep PATH and HOME

# Documentation server
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.fast]
model = "gpt-4.1-mini"
"#;

fn ours() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        ("model", json!("gateway/o4-mini")),
        (
            "mcp_servers.devint",
            json!({"command": "devint", "args": ["mcp", "--stdio"]}),
        ),
        (
            "shell_environment_policy.set.DEVINT_GATEWAY",
            json!("http://127.0.0.1:4000"),
        ),
        ("tui.devint_badge", json!(true)),
    ]
}

fn reread(text: &str) -> SettingsDoc {
    SettingsDoc::parse(SettingsFormat::Toml, text).expect("parses")
}

#[test]
fn install_keeps_comments_decor_and_tables() {
    let applied = apply(SettingsFormat::Toml, Some(CODEX), &ours());
    for kept in [
        "# Codex configuration\n",
        "model = \"gateway/o4-mini\"   # default model\n",
        "inherit = \"core\"  # keep PATH and HOME\n",
        "# Documentation server\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\n",
        "[profiles.fast]\nmodel = \"gpt-4.1-mini\"\n",
    ] {
        assert!(applied.text.contains(kept), "lost {kept:?} in\n{}", applied.text);
    }
    let doc = reread(&applied.text);
    assert_eq!(
        doc.get(&path("mcp_servers.devint.args")),
        Some(json!(["mcp", "--stdio"]))
    );
    assert_eq!(doc.get(&path("tui.devint_badge")), Some(json!(true)));
    assert_eq!(doc.get(&path("tui.animations")), Some(json!(false)));
    assert_eq!(
        applied.reversal.created,
        vec![path("shell_environment_policy.set")]
    );
}

#[test]
fn reversing_untouched_toml_is_byte_identical() {
    for original in [Some(CODEX), Some(""), Some("# only a comment\n"), None] {
        let applied = apply(SettingsFormat::Toml, original, &ours());
        let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
        assert!(back.exact);
        let expected = match original {
            Some(text) => FileAction::Write(text.to_owned()),
            None => FileAction::Delete,
        };
        assert_eq!(back.file, expected);
    }
}

#[test]
fn user_edits_to_a_codex_config_survive_removal() {
    let applied = apply(SettingsFormat::Toml, Some(CODEX), &ours());
    let edited = applied.text.replace(
        "approval_policy = \"on-request\"",
        "approval_policy = \"never\" # mine",
    ) + "\n[profiles.slow]\nmodel = \"o3\"\n";
    let back = applied.reversal.reverse(Some(&edited)).unwrap();
    assert!(!back.exact);
    assert!(back
        .keys
        .iter()
        .all(|k| k.outcome != KeyOutcome::KeptUserChange));
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    assert!(text.contains("approval_policy = \"never\" # mine"));
    assert!(text.contains("model = \"o4-mini\"   # default model"));
    let doc = reread(&text);
    assert_eq!(doc.get(&path("profiles.slow.model")), Some(json!("o3")));
    assert_eq!(doc.get(&path("mcp_servers.devint")), None);
    assert_eq!(
        doc.get(&path("shell_environment_policy.set")),
        None,
        "pruned"
    );
    assert_eq!(doc.get(&path("tui.devint_badge")), None);
    assert_eq!(
        doc.get(&path("mcp_servers.docs.command")),
        Some(json!("npx"))
    );
}

#[test]
fn null_has_no_toml_form_and_changes_nothing() {
    let err = plan(SettingsFormat::Toml, &[("a.b", json!(null))])
        .apply(Some(CODEX), |_, _| false)
        .unwrap_err();
    assert!(matches!(err, EditError::Unrepresentable { .. }), "{err:?}");
    let mut doc = reread(CODEX);
    assert!(doc.set(&path("x.y"), json!([1, null])).is_err());
    assert_eq!(doc.to_string(), CODEX);
}

#[test]
fn an_array_of_tables_on_the_way_is_refused() {
    let err = plan(SettingsFormat::Toml, &[("hooks.devint", json!(1))])
        .apply(Some("[[hooks]]\nname = \"a\"\n"), |_, _| false)
        .unwrap_err();
    assert!(
        matches!(
            err,
            EditError::NotAContainer {
                found: "array of tables",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn broken_toml_is_refused_with_its_position() {
    let err = plan(SettingsFormat::Toml, &ours())
        .apply(Some("a = 1\nb = = 2\n"), |_, _| false)
        .unwrap_err();
    assert!(matches!(err, EditError::Parse { line: 2, .. }), "{err:?}");
}

#[test]
fn comments_above_a_table_we_remove_stay_in_the_file() {
    let original = "model = \"o3\"\n";
    let applied = apply(
        SettingsFormat::Toml,
        Some(original),
        &[("mcp_servers.devint.command", json!("devint"))],
    );
    // The user annotates our table and adds one of their own after it.
    let edited = applied.text.replace(
        "[mcp_servers.devint]",
        "# reviewed: keep until Q3\n[mcp_servers.devint]",
    ) + "\n# their server\n[mcp_servers.theirs]\ncommand = \"x\"\n";
    let back = applied.reversal.reverse(Some(&edited)).unwrap();
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    assert!(text.contains("# reviewed: keep until Q3"), "{text}");
    assert!(
        text.contains("# their server\n[mcp_servers.theirs]"),
        "{text}"
    );
    assert_eq!(reread(&text).get(&path("mcp_servers.devint")), None);
    // With nothing after it, the comment moves to the end of the file.
    let edited = applied
        .text
        .replace("[mcp_servers.devint]", "# reviewed\n[mcp_servers.devint]");
    let back = applied.reversal.reverse(Some(&edited)).unwrap();
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    assert!(text.contains("# reviewed"), "{text}");
}

#[test]
fn a_comment_above_a_key_we_remove_moves_to_the_next_key() {
    let applied = apply(
        SettingsFormat::Toml,
        Some("[tui]\nanimations = false\n"),
        &[("tui.devint_badge", json!(true))],
    );
    let edited = applied
        .text
        .replace("devint_badge", "# mine: about colours\ndevint_badge")
        + "colours = \"dark\"\n";
    let back = applied.reversal.reverse(Some(&edited)).unwrap();
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    assert!(
        text.contains("# mine: about colours\ncolours = \"dark\""),
        "{text}"
    );
}

#[test]
fn a_withheld_toml_prior_is_not_stored_and_the_key_is_residual() {
    let text =
        "[shell_environment_policy.set]\nOPENAI_API_KEY = \"sk-proj-secret\"\nPATH = \"/bin\"\n";
    let applied = plan(
        SettingsFormat::Toml,
        &[(
            "shell_environment_policy.set.OPENAI_API_KEY",
            json!("gateway-issued"),
        )],
    )
    .apply(Some(text), |path, _| path.leaf().ends_with("_API_KEY"))
    .unwrap();
    let stored = serde_json::to_string(&applied.reversal).unwrap();
    assert!(!stored.contains("sk-proj"), "{stored}");
    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    assert_eq!(
        back.residual().collect::<Vec<_>>(),
        vec![&path("shell_environment_policy.set.OPENAI_API_KEY")]
    );
    let FileAction::Write(restored) = back.file else {
        panic!("expected a write")
    };
    let doc = reread(&restored);
    assert_eq!(
        doc.get(&path("shell_environment_policy.set.OPENAI_API_KEY")),
        None
    );
    assert_eq!(
        doc.get(&path("shell_environment_policy.set.PATH")),
        Some(json!("/bin"))
    );
}

#[test]
fn a_file_the_user_deleted_is_not_recreated() {
    let applied = apply(SettingsFormat::Toml, Some(CODEX), &ours());
    let back = applied.reversal.reverse(None).unwrap();
    assert_eq!(back.file, FileAction::Leave);
    assert!(back
        .keys
        .iter()
        .all(|k| k.outcome == KeyOutcome::FileMissing));
}

#[test]
fn elements_join_toml_arrays_and_arrays_of_tables_and_leave_cleanly() {
    let original = "notify = [\"notify-send\"]  # desktop\n\n[[hooks]]\nname = \"lint\"\n";
    let plan = plan(SettingsFormat::Toml, &[])
        .with_elements(vec![
            ElementEdit {
                path: path("notify"),
                element: json!("devint-notify"),
            },
            ElementEdit {
                path: path("hooks"),
                element: json!({"name": "devint", "command": "devint hook"}),
            },
        ])
        .unwrap();
    let applied = plan.apply(Some(original), |_, _| false).unwrap();
    let doc = reread(&applied.text);
    assert_eq!(
        doc.get(&path("notify")),
        Some(json!(["notify-send", "devint-notify"]))
    );
    assert_eq!(
        doc.get(&path("hooks")).unwrap().as_array().unwrap().len(),
        2
    );
    assert!(applied.text.contains("# desktop"));
    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    assert_eq!(back.file, FileAction::Write(original.to_owned()));

    let edited = applied.text.clone() + "\n[[hooks]]\nname = \"mine\"\n";
    let back = applied.reversal.reverse(Some(&edited)).unwrap();
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    let doc = reread(&text);
    assert_eq!(doc.get(&path("notify")), Some(json!(["notify-send"])));
    assert_eq!(
        doc.get(&path("hooks")),
        Some(json!([{"name": "lint"}, {"name": "mine"}]))
    );
}

#[test]
fn the_input_that_panicked_toml_edit_0_23_is_a_parse_error_not_a_panic() {
    // `env==\nenv.=`: toml_edit 0.23.10 panicked ("all items have spans"), found by a
    // 25-minute `settings_edit` run; committed as fuzz/corpus/settings_edit/
    // toml_edit_0_23_panic_env_eq_eq.bin. It must be refused as a parse error.
    let err = SettingsDoc::parse(SettingsFormat::Toml, "env==\nenv.=")
        .err()
        .expect("the document is not valid TOML");
    assert!(matches!(err, EditError::Parse { .. }), "{err:?}");
}
