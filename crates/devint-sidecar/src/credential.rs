//! The rule that the capability token never crosses stdio (spec §7: the client's copy
//! lives in a `0600` file): a message from the host that carries anything token-shaped is
//! refused whole, before any field of it is used.
//!
//! This module owns what "token-shaped" means for a JSON value: a key that names a token or
//! secret (`token`, `capability_token`, `secret`, … — `token_file` is the one allowed key, it
//! names a path), or a string holding a run of 64 or more hexadecimal characters (the form of
//! a DI-API token, spec §7). Opaque ids (`plan_id`, `approval_id`, 1–128 printable bytes,
//! spec §3) stay usable: only a run as long as a whole token is refused. It must never
//! report *which* value matched, only where (the JSON path), and never echo the value.

use serde_json::Value;

/// The length of a token's text form (spec §7: 64 lowercase hex characters).
const TOKEN_HEX_RUN: usize = devint::auth::SECRET_HEX_LEN;

/// The keys that are allowed although they contain a secret's name: they name where a
/// secret lives, not the secret.
const ALLOWED_KEYS: &[&str] = &["token_file"];

/// Key fragments that name a secret.
const SECRET_KEY_FRAGMENTS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "authorization",
    "credential",
    "api_key",
    "apikey",
];

/// Where a token-shaped value was found, as a JSON path (`params.settings.token`); never
/// the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenShaped {
    /// The JSON path of the key or value.
    pub path: String,
    /// Whether a key named a secret (else a value looked like one).
    pub by_key: bool,
}

/// The first token-shaped key or value in `value` (depth first, in document order).
pub fn find_token_shaped(value: &Value) -> Option<TokenShaped> {
    walk(value, &mut String::from("$"))
}

fn walk(value: &Value, path: &mut String) -> Option<TokenShaped> {
    match value {
        Value::String(s) if has_token_run(s) => Some(TokenShaped {
            path: path.clone(),
            by_key: false,
        }),
        Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            let found = walk(item, path);
            path.truncate(len);
            found
        }),
        Value::Object(map) => map.iter().find_map(|(key, item)| {
            let len = path.len();
            path.push('.');
            path.push_str(&printable_key(key));
            let found = if names_a_secret(key) {
                Some(TokenShaped {
                    path: path.clone(),
                    by_key: true,
                })
            } else if has_token_run(key) {
                Some(TokenShaped {
                    path: format!("{}(key)", &path[..len]),
                    by_key: false,
                })
            } else {
                walk(item, path)
            };
            path.truncate(len);
            found
        }),
        _ => None,
    }
}

/// A key as it may appear in a message: a key that is itself token-shaped, or long, is not
/// repeated.
fn printable_key(key: &str) -> String {
    if key.len() <= 64
        && !has_token_run(key)
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        key.to_owned()
    } else {
        "<key>".to_owned()
    }
}

fn names_a_secret(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    !ALLOWED_KEYS.contains(&lower.as_str())
        && !ALLOWED_KEYS
            .iter()
            .any(|allowed| lower.replace(['-', '_'], "") == allowed.replace('_', ""))
        && SECRET_KEY_FRAGMENTS
            .iter()
            .any(|fragment| lower.replace('-', "_").contains(fragment))
}

fn has_token_run(text: &str) -> bool {
    let mut run = 0;
    for b in text.bytes() {
        if b.is_ascii_hexdigit() {
            run += 1;
            if run >= TOKEN_HEX_RUN {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_token_value_anywhere_is_found_without_being_repeated() {
        let v = json!({"params": {"list": [1, {"x": format!("Bearer {TOKEN}")}]}});
        let found = find_token_shaped(&v).expect("found");
        assert_eq!(found.path, "$.params.list[1].x");
        assert!(!found.by_key);
        assert!(!format!("{found:?}").contains(TOKEN));
    }

    #[test]
    fn a_key_naming_a_secret_is_refused_even_with_an_innocent_value() {
        for key in [
            "token",
            "capability_token",
            "capabilityToken",
            "api-key",
            "Secret",
        ] {
            let v = json!({ "params": { key: "x" } });
            assert!(find_token_shaped(&v).is_some_and(|f| f.by_key), "{key}");
        }
    }

    #[test]
    fn token_file_and_opaque_ids_pass() {
        let v = json!({
            "token_file": "/home/me/.aa/run/devint.token",
            "tokenFile": "/x",
            "plan_id": "0123456789abcdef0123456789abcdef",
            "approval_id": "9b2e8c1a-4d7f-4e0b-8f3a-2c6d1e5b7a90",
            "receipt": "sha256:abcd",
        });
        assert_eq!(find_token_shaped(&v), None);
    }

    #[test]
    fn a_token_shaped_key_is_refused_and_not_repeated() {
        let v = json!({ TOKEN: 1 });
        let found = find_token_shaped(&v).expect("found");
        assert!(!found.path.contains(TOKEN));
    }
}
