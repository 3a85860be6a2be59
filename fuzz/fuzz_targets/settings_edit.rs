//! Feeds arbitrary JSON, JSONC, TOML and YAML (a format byte, a key-set byte, then the text) to
//! the settings-file editors: our edit must reverse to the input byte for byte when the
//! output is untouched, and nothing may panic. The key-edit checks live in
//! `devint_runtime::edit::fuzz_harness::edit_roundtrip` (replayed by `cargo test`);
//! this target adds, on the same input, element edits (entries we own in shared arrays)
//! and the absent-file case, which that harness does not drive.
#![no_main]

use devint_runtime::edit::{
    EditPlan, ElementEdit, FileAction, KeyEdit, KeyPath, SettingsDoc, SettingsFormat,
};
use serde_json::json;

/// Bits 4 and 5 of the key-set byte pick element edits, bits 0 and 1 key edits that cannot
/// overlap them, bit 6 treats the input as an absent file.
fn element_roundtrip(data: &[u8]) {
    let [format, keys, rest @ ..] = data else {
        return;
    };
    if keys & 0x30 == 0 {
        return;
    }
    let format = match format % 4 {
        0 => SettingsFormat::Json,
        1 => SettingsFormat::Jsonc,
        2 => SettingsFormat::Toml,
        _ => SettingsFormat::Yaml,
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let absent = keys & 0x40 != 0;
    let current = if absent { None } else { Some(text) };
    if !absent && SettingsDoc::parse(format, text).is_err() {
        return;
    }
    let path = |p: &[&str]| KeyPath::new(p.iter().copied()).expect("non-empty literal");
    let mut edits = Vec::new();
    if keys & 0x01 != 0 {
        edits.push(KeyEdit {
            path: path(&["env", "DEVINT_GATEWAY_URL"]),
            value: json!("http://127.0.0.1:4000"),
        });
    }
    if keys & 0x02 != 0 {
        edits.push(KeyEdit {
            path: path(&["devint_enabled"]),
            value: json!(true),
        });
    }
    let mut elements = Vec::new();
    if keys & 0x10 != 0 {
        elements.push(ElementEdit {
            path: path(&["hooks", "PreToolUse"]),
            element: json!({"matcher": "*", "hooks": [{"type": "command", "command": "devint hook"}]}),
        });
    }
    if keys & 0x20 != 0 {
        elements.push(ElementEdit {
            path: path(&["permissions", "deny"]),
            element: json!("Bash(curl:*)"),
        });
    }
    let Ok(plan) = EditPlan::new(format, edits).and_then(|p| p.with_elements(elements)) else {
        return;
    };
    let Ok(applied) = plan.apply(current, |_, _| false) else {
        return;
    };
    SettingsDoc::parse(format, &applied.text).expect("our own output parses");
    let back = applied
        .reversal
        .reverse(Some(&applied.text))
        .expect("our own output reverses");
    match current {
        Some(text) => assert_eq!(back.file, FileAction::Write(text.to_owned())),
        None => assert_eq!(
            back.file,
            FileAction::Delete,
            "a file we created is deleted"
        ),
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    devint_runtime::edit::fuzz_harness::edit_roundtrip(data);
    element_roundtrip(data);
});
