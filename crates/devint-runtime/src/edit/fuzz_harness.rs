//! Entry points for cargo-fuzz targets (and their corpus replay under `cargo test`).
//!
//! Owns the invariant checks a fuzzer drives against the editors; it must never panic on
//! input the editors reject, only on a broken invariant.

use serde_json::{json, Value};

use super::{EditPlan, ElementEdit, FileAction, KeyEdit, KeyPath, SettingsDoc, SettingsFormat};

/// Interprets `data` as a format selector byte (`% 4`: JSON, JSONC, TOML, YAML), a key selector
/// byte (low four bits: which of four keys we own; bit 4: also own one entry of the
/// `permissions.allow` array), then UTF-8 document text. If the text parses and our edit applies, checks that:
/// reversing on the untouched output is byte-identical to the input; the semantic restore
/// gives back a document with the same meaning; and a second install composed with the
/// first still reverses byte-identically. Panics only when one of those breaks.
pub fn edit_roundtrip(data: &[u8]) {
    let [format, keys, rest @ ..] = data else {
        return;
    };
    let format = match format % 4 {
        0 => SettingsFormat::Json,
        1 => SettingsFormat::Jsonc,
        2 => SettingsFormat::Toml,
        _ => SettingsFormat::Yaml,
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(doc) = SettingsDoc::parse(format, text) else {
        return;
    };
    let Some(meaning) = doc.to_value() else {
        return;
    };
    let Some((plan, elements)) = plan_for(format, *keys) else {
        return;
    };
    let Ok(applied) = plan.apply(Some(text), |_, _| false) else {
        return;
    };

    let exact = applied
        .reversal
        .reverse(Some(&applied.text))
        .expect("our own output parses");
    assert!(exact.exact, "untouched output must take the exact path");
    assert_eq!(exact.file, FileAction::Write(text.to_owned()));

    let semantic = applied
        .reversal
        .reverse_semantic(Some(&applied.text))
        .expect("our own output parses");
    if let FileAction::Write(restored) = &semantic.file {
        let restored = SettingsDoc::parse(format, restored).expect("semantic restore parses");
        assert_eq!(restored.to_value().as_ref(), Some(&meaning));
    }

    let bumped = EditPlan::new(
        format,
        plan.edits()
            .iter()
            .map(|e| KeyEdit {
                path: e.path.clone(),
                value: json!("second install"),
            })
            .collect(),
    )
    .and_then(|p| p.with_elements(elements))
    .expect("same paths as an accepted plan");
    if let Ok(second) = bumped.apply(Some(&applied.text), |_, _| false) {
        let composed =
            super::Reversal::compose(&applied.reversal, &second.reversal).expect("same format");
        let back = composed.reverse(Some(&second.text)).expect("parses");
        assert_eq!(back.file, FileAction::Write(text.to_owned()));
    }
}

/// The plan a key-selector byte asks for (see [`edit_roundtrip`]), with its element edits;
/// `None` when the editor refuses it.
fn plan_for(format: SettingsFormat, keys: u8) -> Option<(EditPlan, Vec<ElementEdit>)> {
    let candidates: [(&[&str], Value); 4] = [
        (
            &["env", "DEVINT_GATEWAY_URL"],
            json!("http://127.0.0.1:4000"),
        ),
        (&["devint_enabled"], json!(true)),
        (&["hooks", "devint", "timeout"], json!(30)),
        (&["permissions", "deny"], json!(["Bash(curl:*)"])),
    ];
    let edits: Vec<KeyEdit> = candidates
        .iter()
        .enumerate()
        .filter(|(i, _)| keys & (1 << i) != 0 || keys & 0x0f == 0 && *i == 0)
        .map(|(_, (path, value))| KeyEdit {
            path: KeyPath::new(path.iter().copied()).expect("non-empty literal"),
            value: value.clone(),
        })
        .collect();
    let elements = if keys & 0x10 != 0 {
        vec![ElementEdit {
            path: KeyPath::new(["permissions", "allow"]).expect("non-empty literal"),
            element: json!("Bash(devint:*)"),
        }]
    } else {
        Vec::new()
    };
    let plan = EditPlan::new(format, edits)
        .and_then(|p| p.with_elements(elements.clone()))
        .ok()?;
    Some((plan, elements))
}
