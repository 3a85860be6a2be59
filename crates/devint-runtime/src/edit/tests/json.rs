//! Strict JSON: a Claude Code `settings.json` with `env`, `permissions` and `hooks`.

use serde_json::json;

use super::*;
use crate::edit::{
    EditError, EditPlan, ElementEdit, FileAction, KeyOutcome, PriorRecord, Reversal, SettingsDoc,
};

const CLAUDE: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "env": {
    "ANTHROPIC_BASE_URL": "https://api.anthropic.com",
    "DISABLE_TELEMETRY": "1"
  },
  "permissions": {
    "allow": ["Bash(npm run lint)", "Read(~/.zshrc)"],
    "deny": ["Read(./.env)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "~/bin/check.sh" }]
      }
    ]
  },
  "model": "claude-sonnet-4-5"
}
"#;

fn ours() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        ("env.ANTHROPIC_BASE_URL", json!("http://127.0.0.1:4000")),
        ("env.DEVINT_SESSION", json!("on")),
        (
            "devint.hooks.pre",
            json!({"command": "devint hook", "timeout": 5}),
        ),
    ]
}

fn get(text: &str, key: &str) -> Option<serde_json::Value> {
    SettingsDoc::parse(SettingsFormat::Json, text)
        .expect("parses")
        .get(&path(key))
}

#[test]
fn install_changes_only_our_keys_and_keeps_every_other_byte() {
    let applied = apply(SettingsFormat::Json, Some(CLAUDE), &ours());
    assert!(applied.changed);
    // The user's blocks survive verbatim, in place and in order.
    for block in [
        "\"permissions\": {\n    \"allow\": [\"Bash(npm run lint)\", \"Read(~/.zshrc)\"],",
        "\"hooks\": [{ \"type\": \"command\", \"command\": \"~/bin/check.sh\" }]",
        "\"DISABLE_TELEMETRY\": \"1\"",
        "\"model\": \"claude-sonnet-4-5\"",
    ] {
        assert!(applied.text.contains(block), "lost {block}");
    }
    assert_eq!(
        get(&applied.text, "env.ANTHROPIC_BASE_URL"),
        Some(json!("http://127.0.0.1:4000"))
    );
    assert_eq!(
        get(&applied.text, "devint.hooks.pre.timeout"),
        Some(json!(5))
    );
    assert_eq!(
        applied.reversal.keys[0].prior,
        PriorRecord::Present {
            value: json!("https://api.anthropic.com")
        }
    );
    assert_eq!(
        applied.reversal.created,
        vec![path("devint"), path("devint.hooks")]
    );
}

#[test]
fn reversing_untouched_output_is_byte_identical() {
    let applied = apply(SettingsFormat::Json, Some(CLAUDE), &ours());
    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    assert!(back.exact);
    assert_eq!(back.file, FileAction::Write(CLAUDE.to_owned()));
    assert_eq!(back.keys[0].outcome, KeyOutcome::Restored);
    assert_eq!(back.keys[1].outcome, KeyOutcome::Deleted);
}

#[test]
fn reversal_survives_a_receipt_round_trip() {
    let applied = apply(SettingsFormat::Json, Some(CLAUDE), &ours());
    let stored = serde_json::to_string(&applied.reversal).unwrap();
    let loaded: Reversal = serde_json::from_str(&stored).unwrap();
    assert_eq!(loaded, applied.reversal);
    let back = loaded.reverse(Some(&applied.text)).unwrap();
    assert_eq!(back.file, FileAction::Write(CLAUDE.to_owned()));
}

#[test]
fn user_edits_made_after_install_survive_removal() {
    let applied = apply(SettingsFormat::Json, Some(CLAUDE), &ours());
    let mut doc = SettingsDoc::parse(SettingsFormat::Json, &applied.text).unwrap();
    doc.set(&path("model"), json!("claude-opus-4-1")).unwrap();
    doc.set(&path("env.EDITOR"), json!("vim")).unwrap();
    doc.remove(&path("permissions.deny"));
    let edited = doc.to_string();

    let back = applied.reversal.reverse(Some(&edited)).unwrap();
    assert!(!back.exact);
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    assert_eq!(get(&text, "model"), Some(json!("claude-opus-4-1")));
    assert_eq!(get(&text, "env.EDITOR"), Some(json!("vim")));
    assert_eq!(get(&text, "permissions.deny"), None);
    assert_eq!(
        get(&text, "env.ANTHROPIC_BASE_URL"),
        Some(json!("https://api.anthropic.com"))
    );
    assert_eq!(get(&text, "env.DEVINT_SESSION"), None);
    // `devint` was ours and is empty again: pruned.
    assert_eq!(get(&text, "devint"), None);
    assert!(
        text.contains("\"hooks\": [{ \"type\": \"command\", \"command\": \"~/bin/check.sh\" }]")
    );
}

#[test]
fn a_value_the_user_set_on_our_key_is_kept() {
    let applied = apply(SettingsFormat::Json, Some(CLAUDE), &ours());
    let mut doc = SettingsDoc::parse(SettingsFormat::Json, &applied.text).unwrap();
    doc.set(
        &path("env.ANTHROPIC_BASE_URL"),
        json!("https://proxy.example"),
    )
    .unwrap();
    let back = applied.reversal.reverse(Some(&doc.to_string())).unwrap();
    assert_eq!(back.keys[0].outcome, KeyOutcome::KeptUserChange);
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    assert_eq!(
        get(&text, "env.ANTHROPIC_BASE_URL"),
        Some(json!("https://proxy.example"))
    );
}

#[test]
fn a_file_we_created_is_deleted_on_removal() {
    let applied = apply(SettingsFormat::Json, None, &ours());
    assert!(applied.changed);
    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    assert_eq!(back.file, FileAction::Delete);
    let semantic = applied
        .reversal
        .reverse_semantic(Some(&applied.text))
        .unwrap();
    assert_eq!(semantic.file, FileAction::Delete);
}

#[test]
fn a_file_we_created_keeps_what_the_user_added() {
    let applied = apply(SettingsFormat::Json, None, &ours());
    let mut doc = SettingsDoc::parse(SettingsFormat::Json, &applied.text).unwrap();
    doc.set(&path("model"), json!("opus")).unwrap();
    let back = applied.reversal.reverse(Some(&doc.to_string())).unwrap();
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    let value = SettingsDoc::parse(SettingsFormat::Json, &text)
        .unwrap()
        .to_value();
    assert_eq!(value, Some(json!({"model": "opus"})));
}

#[test]
fn empty_object_and_blank_files_come_back_byte_identical() {
    for original in ["{}", "{ }\n", "", "\n\n"] {
        let applied = apply(SettingsFormat::Json, Some(original), &ours());
        let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
        assert_eq!(
            back.file,
            FileAction::Write(original.to_owned()),
            "{original:?}"
        );
    }
    let applied = apply(SettingsFormat::Json, Some("\n"), &ours());
    let semantic = applied
        .reversal
        .reverse_semantic(Some(&applied.text))
        .unwrap();
    assert_eq!(semantic.file, FileAction::Write("\n".to_owned()));
}

#[test]
fn installing_values_that_already_hold_changes_nothing() {
    let applied = apply(
        SettingsFormat::Json,
        Some(CLAUDE),
        &[("env.DISABLE_TELEMETRY", json!("1"))],
    );
    assert!(!applied.changed);
    assert_eq!(applied.text, CLAUDE);
}

#[test]
fn strict_json_with_a_comment_is_a_parse_error_naming_the_place() {
    let text = "{\n  // note\n  \"a\": 1\n}\n";
    let err = plan(SettingsFormat::Json, &ours())
        .apply(Some(text), |_, _| false)
        .unwrap_err();
    assert!(
        matches!(
            err,
            EditError::Parse {
                line: 2,
                column: 3,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("line 2, column 3"));
}

#[test]
fn a_non_object_on_the_way_is_refused() {
    let err = plan(SettingsFormat::Json, &ours())
        .apply(Some(r#"{"env": "production"}"#), |_, _| false)
        .unwrap_err();
    assert!(
        matches!(&err, EditError::NotAContainer { blocker, found: "string", .. } if blocker == "`env`"),
        "{err:?}"
    );
    let err = plan(SettingsFormat::Json, &ours())
        .apply(Some("[1, 2]"), |_, _| false)
        .unwrap_err();
    assert!(matches!(
        err,
        EditError::NotAContainer { found: "array", .. }
    ));
    assert!(
        err.to_string()
            .contains("the document root is not an object"),
        "{err}"
    );
}

#[test]
fn duplicate_keys_are_refused_rather_than_guessed() {
    let err = plan(SettingsFormat::Json, &[("a", json!(2))])
        .apply(Some(r#"{"a": 1, "a": 3}"#), |_, _| false)
        .unwrap_err();
    assert!(matches!(err, EditError::ReadBackMismatch { .. }), "{err:?}");
}

fn credential(_: &KeyPath, value: &serde_json::Value) -> bool {
    value.as_str().is_some_and(|s| s.starts_with("sk-ant-"))
}

#[test]
fn a_withheld_prior_is_not_stored_and_is_reported_residual() {
    let text = r#"{
  "env": {
    "ANTHROPIC_API_KEY": "sk-ant-api03-secret",
    "OTHER": "1"
  }
}"#;
    let applied = plan(
        SettingsFormat::Json,
        &[("env.ANTHROPIC_API_KEY", json!("gateway"))],
    )
    .apply(Some(text), credential)
    .unwrap();
    let stored = serde_json::to_string(&applied.reversal).unwrap();
    assert!(!stored.contains("sk-ant"), "{stored}");
    assert_eq!(applied.reversal.keys[0].prior, PriorRecord::Withheld);
    assert!(applied.reversal.exact.is_none());

    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    assert!(!back.exact);
    assert_eq!(
        back.residual().collect::<Vec<_>>(),
        vec![&path("env.ANTHROPIC_API_KEY")]
    );
    let FileAction::Write(restored) = back.file else {
        panic!("expected a write")
    };
    assert_eq!(get(&restored, "env.ANTHROPIC_API_KEY"), None);
    assert_eq!(get(&restored, "env.OTHER"), Some(json!("1")));
}

#[test]
fn a_splice_that_would_carry_a_neighbouring_credential_is_not_recorded() {
    // Adding to a one-line object reflows it, so the splice would hold the user's key.
    let text = r#"{"env": {"ANTHROPIC_API_KEY": "sk-ant-api03-secret"}}"#;
    let applied = plan(SettingsFormat::Json, &[("env.DEVINT", json!("on"))])
        .apply(Some(text), credential)
        .unwrap();
    let stored = serde_json::to_string(&applied.reversal).unwrap();
    assert!(!stored.contains("sk-ant"), "{stored}");
    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    let FileAction::Write(restored) = back.file else {
        panic!("expected a write")
    };
    assert_eq!(
        get(&restored, "env.ANTHROPIC_API_KEY"),
        Some(json!("sk-ant-api03-secret"))
    );
    assert_eq!(get(&restored, "env.DEVINT"), None);
}

#[test]
fn reinstall_composed_with_the_first_restores_the_first_originals() {
    let first = apply(SettingsFormat::Json, Some(CLAUDE), &ours());
    let second = apply(
        SettingsFormat::Json,
        Some(&first.text),
        &[
            ("env.ANTHROPIC_BASE_URL", json!("http://127.0.0.1:5000")),
            ("env.DEVINT_EXTRA", json!("1")),
        ],
    );
    // The second record alone would "restore" our own first value.
    assert_eq!(
        second.reversal.keys[0].prior,
        PriorRecord::Present {
            value: json!("http://127.0.0.1:4000")
        }
    );
    let composed = Reversal::compose(&first.reversal, &second.reversal).unwrap();
    let back = composed.reverse(Some(&second.text)).unwrap();
    assert!(back.exact);
    assert_eq!(back.file, FileAction::Write(CLAUDE.to_owned()));

    // And with a user edit in between, the semantic path restores the first originals too.
    let mut doc = SettingsDoc::parse(SettingsFormat::Json, &second.text).unwrap();
    doc.set(&path("model"), json!("haiku")).unwrap();
    let back = composed.reverse(Some(&doc.to_string())).unwrap();
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    assert_eq!(
        get(&text, "env.ANTHROPIC_BASE_URL"),
        Some(json!("https://api.anthropic.com"))
    );
    assert_eq!(get(&text, "env.DEVINT_EXTRA"), None);
    assert_eq!(get(&text, "model"), Some(json!("haiku")));
}

fn hook_entry() -> serde_json::Value {
    json!({"matcher": "*", "hooks": [{"type": "command", "command": "devint hook pre"}]})
}

fn with_hook(format: SettingsFormat) -> EditPlan {
    plan(format, &[("env.DEVINT_SESSION", json!("on"))])
        .with_elements(vec![
            ElementEdit {
                path: path("hooks.PreToolUse"),
                element: hook_entry(),
            },
            ElementEdit {
                path: path("permissions.deny"),
                element: json!("Read(./.env)"),
            },
        ])
        .unwrap()
}

#[test]
fn our_hook_entry_joins_the_users_array_and_leaves_cleanly() {
    let applied = with_hook(SettingsFormat::Json)
        .apply(Some(CLAUDE), |_, _| false)
        .unwrap();
    let hooks = get(&applied.text, "hooks.PreToolUse").unwrap();
    assert_eq!(hooks.as_array().unwrap().len(), 2);
    assert_eq!(hooks[1], hook_entry());
    // "Read(./.env)" was already denied by the user: not added twice, and kept on removal.
    assert_eq!(
        get(&applied.text, "permissions.deny"),
        Some(json!(["Read(./.env)"]))
    );
    assert!(applied.reversal.elements[1].was_present);

    let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
    assert!(back.exact);
    assert_eq!(back.file, FileAction::Write(CLAUDE.to_owned()));

    // The user adds their own entry after ours; removal takes only ours.
    let mut doc = SettingsDoc::parse(SettingsFormat::Json, &applied.text).unwrap();
    doc.add_element(
        &path("hooks.PreToolUse"),
        json!({"matcher": "Edit", "hooks": []}),
    )
    .unwrap();
    let back = applied.reversal.reverse(Some(&doc.to_string())).unwrap();
    assert_eq!(back.elements[0].outcome, KeyOutcome::Deleted);
    assert_eq!(back.elements[1].outcome, KeyOutcome::Restored);
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    let hooks = get(&text, "hooks.PreToolUse").unwrap();
    assert_eq!(hooks.as_array().unwrap().len(), 2);
    assert_eq!(hooks[0]["matcher"], json!("Bash"));
    assert_eq!(hooks[1]["matcher"], json!("Edit"));
    assert_eq!(
        get(&text, "permissions.deny"),
        Some(json!(["Read(./.env)"]))
    );
}

#[test]
fn an_array_we_created_for_our_entry_is_pruned_on_removal() {
    let applied = with_hook(SettingsFormat::Json)
        .apply(Some("{\"model\": \"opus\"}\n"), |_, _| false)
        .unwrap();
    let mut doc = SettingsDoc::parse(SettingsFormat::Json, &applied.text).unwrap();
    doc.set(&path("model"), json!("haiku")).unwrap();
    let back = applied.reversal.reverse(Some(&doc.to_string())).unwrap();
    let FileAction::Write(text) = back.file else {
        panic!("expected a write")
    };
    let value = SettingsDoc::parse(SettingsFormat::Json, &text)
        .unwrap()
        .to_value();
    assert_eq!(value, Some(json!({"model": "haiku"})));
}

#[test]
fn an_entry_the_user_already_removed_is_reported_not_searched_for() {
    let applied = with_hook(SettingsFormat::Json)
        .apply(Some(CLAUDE), |_, _| false)
        .unwrap();
    let mut doc = SettingsDoc::parse(SettingsFormat::Json, &applied.text).unwrap();
    assert!(doc.remove_element(&path("hooks.PreToolUse"), |v| *v == hook_entry()));
    let back = applied.reversal.reverse(Some(&doc.to_string())).unwrap();
    assert_eq!(back.elements[0].outcome, KeyOutcome::KeptUserChange);
}

#[test]
fn an_element_array_inside_a_key_we_own_is_refused() {
    let err = plan(SettingsFormat::Json, &[("hooks", json!({}))])
        .with_elements(vec![ElementEdit {
            path: path("hooks.PreToolUse"),
            element: hook_entry(),
        }])
        .unwrap_err();
    assert!(matches!(err, EditError::OverlappingKeys { .. }));
}
