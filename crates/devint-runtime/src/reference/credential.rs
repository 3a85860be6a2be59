//! The credential predicate: which prior values are never stored in a receipt or journal.
//!
//! Owns the one decision "does this displaced value look like a secret?". It must never
//! answer `false` for a value the free-text checks of [`Sentence`] would refuse as
//! credential-shaped, and never store or log the value it is asked about.

use serde_json::Value;

use crate::edit::KeyPath;
use devint::verbs::Sentence;

/// Key names (as whole words) that mark a setting as a secret whatever its value looks like.
/// A key name is split into words at `_`, `-`, `.`, spaces and lower→upper case changes
/// (`ANTHROPIC_AUTH_TOKEN` → anthropic, auth, token; `apiKey` → api, key), and a setting is
/// secret-named when one of these word sequences appears in it — never by substring, so
/// `auths`, `authors` or `tokenizer` are not.
const SECRET_NAMES: &[&[&str]] = &[
    &["token"],
    &["secret"],
    &["secrets"],
    &["password"],
    &["passwords"],
    &["passwd"],
    &["api", "key"],
    &["apikey"],
    &["private", "key"],
    &["credential"],
    &["credentials"],
    &["auth"],
];

/// The words of a key name, lowercased.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Whether a key name names a secret (a whole-word match of [`SECRET_NAMES`]).
pub fn is_secret_name(name: &str) -> bool {
    let words = words(name);
    SECRET_NAMES.iter().any(|secret| {
        words
            .windows(secret.len())
            .any(|w| w.iter().zip(secret.iter()).all(|(a, b)| a == b))
    })
}

/// Whether the value displaced at `path` must be withheld (listed, never stored).
///
/// The value is judged as well as the key: under a secret-named key a non-empty string is
/// withheld, while `null`, booleans, numbers (counts and limits: `tokenLimit`), empty
/// strings and empty (or secret-free) objects and arrays hold no secret and keep their exact
/// undo. Anywhere, a credential-
/// shaped string (or object key) is withheld, and a nested secret-named key holding a
/// secret withholds the whole value.
pub fn withhold(path: &KeyPath, value: &Value) -> bool {
    holds_secret(path.segments().iter().any(|s| is_secret_name(s)), value)
}

/// Whether a value displaced at a key whose name says nothing (a key a descriptor declares a
/// name, never a secret) must be withheld: only when it looks like a credential itself.
pub fn withhold_value(value: &Value) -> bool {
    holds_secret(false, value)
}

fn holds_secret(secret_named: bool, value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
        Value::String(s) => (secret_named && !s.is_empty()) || text_looks_like_credential(s),
        Value::Array(items) => items.iter().any(|v| holds_secret(secret_named, v)),
        Value::Object(map) => map.iter().any(|(k, v)| {
            text_looks_like_credential(k) || holds_secret(secret_named || is_secret_name(k), v)
        }),
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
    fn key_names_match_as_whole_words_not_substrings() {
        for secret in [
            "ANTHROPIC_AUTH_TOKEN",
            "apiKey",
            "api_key",
            "GITHUB_TOKEN",
            "clientSecret",
            "db-password",
            "auth",
            "privateKey",
            "credentials",
        ] {
            assert!(is_secret_name(secret), "{secret}");
        }
        for ordinary in [
            "auths",
            "authors",
            "tokenizer",
            "maxTokens",
            "author",
            "keyboard",
        ] {
            assert!(!is_secret_name(ordinary), "{ordinary}");
        }
    }

    #[test]
    fn a_secret_named_key_with_no_secret_in_its_value_is_kept() {
        for empty in [json!({}), json!([]), json!(null), json!(true), json!("")] {
            assert!(!withhold(&key("token"), &empty), "{empty}");
            assert!(
                !withhold(&key("env.ANTHROPIC_AUTH_TOKEN"), &empty),
                "{empty}"
            );
        }
        assert!(!withhold(&key("auths"), &json!({})));
        // A nested secret is still found, however the outer key is named.
        assert!(withhold(
            &key("auths"),
            &json!({"registry": {"auth": "dXNlcjpwYXNz"}})
        ));
        assert!(withhold(&key("token"), &json!({"value": "abc"})));
        assert!(!withhold(&key("tokenLimit"), &json!(4096)));
    }

    #[test]
    fn a_name_under_a_secret_named_table_is_judged_by_its_value_alone() {
        let path = key("security.auth.selectedType");
        assert!(withhold(&path, &json!("qwen-oauth")), "by its key's name");
        assert!(!withhold_value(&json!("qwen-oauth")));
        assert!(withhold_value(&json!(
            "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
        )));
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
