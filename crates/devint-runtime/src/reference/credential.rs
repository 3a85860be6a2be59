//! The credential predicate: which prior values are never stored in a receipt or journal.
//!
//! Owns the one decision "does this displaced value look like a secret?". It must never
//! answer `false` for a value the free-text checks of [`Sentence`] would refuse as
//! credential-shaped, and never store or log the value it is asked about.

use serde_json::Value;

use crate::edit::KeyPath;
use devint::verbs::Sentence;

/// Key-name fragments that mark a setting as a secret whatever its value looks like.
const SECRET_NAMES: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "APIKEY",
    "PRIVATE_KEY",
    "CREDENTIAL",
    "AUTH",
];

/// Whether the value displaced at `path` must be withheld (listed, never stored).
pub fn withhold(path: &KeyPath, value: &Value) -> bool {
    let named_secret = path.segments().iter().any(|s| {
        let upper = s.to_ascii_uppercase();
        SECRET_NAMES.iter().any(|n| upper.contains(n))
    });
    (named_secret && !matches!(value, Value::Null | Value::Bool(_)))
        || value_looks_like_credential(value)
}

/// Whether any string inside `value` is credential-shaped.
pub fn value_looks_like_credential(value: &Value) -> bool {
    match value {
        Value::String(s) => text_looks_like_credential(s),
        Value::Array(items) => items.iter().any(value_looks_like_credential),
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| text_looks_like_credential(k) || value_looks_like_credential(v)),
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

/// Whether `text` (of any length) holds a credential shape: it is checked in overlapping
/// windows that each fit a [`Sentence`], after control characters are blanked.
pub fn text_looks_like_credential(text: &str) -> bool {
    let cleaned: Vec<char> = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    const WINDOW: usize = 200;
    const STEP: usize = 120;
    let mut start = 0;
    loop {
        let end = (start + WINDOW).min(cleaned.len());
        let window: String = cleaned[start..end].iter().collect();
        if !window.trim().is_empty() {
            if let Err(refusal) = Sentence::new(window.trim()) {
                if refusal.is_credential_shaped() {
                    return true;
                }
            }
        }
        if end == cleaned.len() {
            return false;
        }
        start += STEP;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(s: &str) -> KeyPath {
        s.parse().unwrap()
    }

    #[test]
    fn vendor_keys_and_secret_names_are_withheld() {
        assert!(withhold(
            &key("env.X"),
            &json!("sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789")
        ));
        assert!(withhold(
            &key("env.GH"),
            &json!("ghp_abcdefghijklmnopqrstuvwxyz0123456789")
        ));
        assert!(withhold(&key("env.ANTHROPIC_AUTH_TOKEN"), &json!("short")));
        assert!(withhold(
            &key("env.ANTHROPIC_BASE_URL"),
            &json!("https://user:hunter2hunter2@example.com")
        ));
        let long = format!(
            "{} {}",
            "word ".repeat(80),
            "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"
        );
        assert!(withhold(&key("a"), &json!([long])));
    }

    #[test]
    fn ordinary_settings_are_kept() {
        assert!(!withhold(
            &key("env.ANTHROPIC_BASE_URL"),
            &json!("https://api.example.com")
        ));
        assert!(!withhold(&key("permissions.deny"), &json!(["Bash(rm:*)"])));
        assert!(!withhold(&key("model"), &json!("claude-sonnet-4")));
        assert!(!withhold(&key("hooks.PreToolUse"), &json!(true)));
    }
}
