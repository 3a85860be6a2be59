//! JSONC: a VS Code-style `settings.json` with line and block comments and trailing commas.

use serde_json::json;

use super::*;
use crate::edit::{EditError, FileAction, SettingsDoc};

const VSCODE: &str = r#"// Place your settings in this file to overwrite the default settings
{
    /* Editor */
    "editor.fontSize": 14, // readable
    "editor.rulers": [80, 120,],
    "files.exclude": {
        "**/.git": true,
        "**/node_modules": true, // big
    },
    // Extensions
    "claude-code.environmentVariables": [
        { "name": "ANTHROPIC_BASE_URL", "value": "https://api.anthropic.com" },
    ],
}
"#;

fn ours() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        ("devint.enabled", json!(true)),
        ("\"files.exclude\".\"**/.devint\"", json!(true)),
        ("\"editor.fontSize\"", json!(15)),
    ]
}

fn reread(text: &str) -> SettingsDoc {
    SettingsDoc::parse(SettingsFormat::Jsonc, text).expect("parses")
}

#[test]
fn comments_and_trailing_commas_survive_install() {
    let applied = apply(SettingsFormat::Jsonc, Some(VSCODE), &ours());
    for kept in [
        "// Place your settings in this file to overwrite the default settings\n{",
        "/* Editor */",
        "\"editor.fontSize\": 15, // readable",
        "\"editor.rulers\": [80, 120,],",
        "\"**/node_modules\": true, // big",
        "// Extensions",
        "{ \"name\": \"ANTHROPIC_BASE_URL\", \"value\": \"https://api.anthropic.com\" },\n    ],",
    ] {
        assert!(
            applied.text.contains(kept),
            "lost {kept:?} in\n{}",
            applied.text
        );
    }
    let doc = reread(&applied.text);
    assert_eq!(doc.get(&path("devint.enabled")), Some(json!(true)));
    assert_eq!(
        doc.get(&path("\"files.exclude\".\"**/.devint\"")),
        Some(json!(true))
    );
}

#[test]
fn reversing_untouched_jsonc_is_byte_identical() {
    let applied = apply(SettingsFormat::Jsonc, Some(VSCODE), &ours());
    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    assert!(back.exact);
    assert_eq!(back.file, FileAction::Write(VSCODE.to_owned()));
}

#[test]
fn a_comment_the_user_added_after_install_survives_removal() {
    let applied = apply(SettingsFormat::Jsonc, Some(VSCODE), &ours());
    let edited = applied
        .text
        .replace("// Extensions", "// Extensions (reviewed by me)")
        .replacen(
            "{\n",
            "{\n    \"workbench.colorTheme\": \"Solarized\", // mine\n",
            1,
        );
    let back = applied.reversal.reverse(Some(&edited)).unwrap();
    assert!(!back.exact);
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    assert!(text.contains("// Extensions (reviewed by me)"));
    assert!(text.contains("\"workbench.colorTheme\": \"Solarized\", // mine"));
    assert!(text.contains("\"editor.fontSize\": 14, // readable"));
    let doc = reread(&text);
    assert_eq!(doc.get(&path("devint")), None, "created object is pruned");
    assert_eq!(doc.get(&path("\"files.exclude\".\"**/.devint\"")), None);
    assert_eq!(
        doc.get(&path("\"files.exclude\".\"**/.git\"")),
        Some(json!(true))
    );
}

#[test]
fn a_created_object_the_user_commented_in_is_not_pruned() {
    let applied = apply(
        SettingsFormat::Jsonc,
        Some("{}"),
        &[("devint.enabled", json!(true))],
    );
    let edited = applied
        .text
        .replace("\"enabled\"", "// keep this block\n    \"enabled\"");
    let back = applied.reversal.reverse(Some(&edited)).unwrap();
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    assert!(text.contains("// keep this block"), "{text}");
}

#[test]
fn broken_jsonc_is_refused_with_its_position() {
    let err = plan(SettingsFormat::Jsonc, &ours())
        .apply(Some("{\n  \"a\": 1,\n  \"b\" 2\n}\n"), |_, _| false)
        .unwrap_err();
    assert!(matches!(err, EditError::Parse { line: 3, .. }), "{err:?}");
}
