//! Property tests of the whole backend on generated Claude Code settings files: for any
//! user document, install → remove is byte-identical when the file is untouched; user edits
//! made in between survive; a re-install → remove restores the first originals.

#![cfg(feature = "test-support")]

mod lifecycle_support;

use lifecycle_support::*;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        (-1000i64..1000).prop_map(|n| json!(n)),
        "[a-zA-Z0-9 ./:_-]{0,16}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A user document: random top-level keys, sometimes an `env` object (beside which we add
/// our key), a user `ANTHROPIC_BASE_URL` we displace, and a user deny list we append to.
fn document() -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map("[a-zA-Z]{1,10}", value(), 0..5),
        prop::option::of(prop::collection::btree_map(
            "[A-Z_]{1,10}",
            "[a-z0-9]{0,8}",
            0..3,
        )),
        prop::option::of("https://[a-z]{1,8}\\.example"),
        prop::option::of(prop::collection::vec(
            "[A-Za-z]{1,8}\\([a-z*:]{0,6}\\)",
            0..3,
        )),
    )
        .prop_map(|(top, env, base, deny)| {
            let mut doc: Map<String, Value> = top
                .into_iter()
                .filter(|(k, _)| !matches!(k.as_str(), "env" | "hooks" | "permissions"))
                .collect();
            if env.is_some() || base.is_some() {
                let mut e: Map<String, Value> = env
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, json!(v)))
                    .collect();
                if let Some(b) = base {
                    e.insert("ANTHROPIC_BASE_URL".into(), json!(b));
                }
                doc.insert("env".into(), Value::Object(e));
            }
            if let Some(d) = deny {
                doc.insert("permissions".into(), json!({ "deny": d }));
            }
            Value::Object(doc)
        })
}

/// The document in one of several hand-written layouts.
fn render(doc: &Value, style: u8) -> String {
    match style % 3 {
        0 => serde_json::to_string(doc).unwrap(),
        1 => serde_json::to_string_pretty(doc).unwrap() + "\n",
        _ => {
            let mut out = Vec::new();
            let fmt = serde_json::ser::PrettyFormatter::with_indent(b"   ");
            let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
            serde::Serialize::serialize(doc, &mut ser).unwrap();
            String::from_utf8(out).unwrap() + "\n\n"
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn install_then_remove_is_byte_identical(doc in document(), style in any::<u8>()) {
        let sb = Sandbox::new();
        let original = render(&doc, style);
        sb.write_settings(&original);
        let rt = sb.open();
        let mut c = Client::new(&book(), "ide");
        c.install(&rt, "team");
        prop_assert_eq!(json(&sb.settings())["env"]["ANTHROPIC_BASE_URL"].clone(), json!("http://127.0.0.1:8787/anthropic"));
        c.uninstall(&rt);
        prop_assert_eq!(sb.read_settings().unwrap(), original);
    }

    #[test]
    fn user_edits_survive_and_reinstall_keeps_first_originals(
        doc in document(),
        style in any::<u8>(),
        extra in "[a-z]{3,8}",
        entry in "[A-Za-z]{1,8}\\(x\\)",
    ) {
        let sb = Sandbox::new();
        let original = render(&doc, style);
        sb.write_settings(&original);
        sb.write_profile("other", "gateway_base_url = \"http://127.0.0.1:9999\"\nhook_command = \"aa-hook pre-tool-use\"\ndeny_tool_patterns = [\"Bash(curl:*)\", \"WebFetch\"]\n");
        let rt = sb.open();
        let mut c = Client::new(&book(), "ide");
        c.install(&rt, "team");
        c.install(&rt, "other");
        // The user edits: a new top-level key and a deny entry of their own.
        let mut now = json(&sb.settings());
        now[format!("user_{extra}")] = json!(extra);
        now["permissions"]["deny"].as_array_mut().unwrap().push(json!(entry));
        sb.write_settings(&serde_json::to_string_pretty(&now).unwrap());
        c.uninstall(&rt);

        let after = json(&sb.settings());
        let mut expected = doc.clone();
        expected[format!("user_{extra}")] = json!(extra);
        let mut deny: Vec<Value> = doc.get("permissions").and_then(|p| p.get("deny")).and_then(Value::as_array).cloned().unwrap_or_default();
        // The user's entry stays beside their own; ours are gone.
        deny.push(json!(entry));
        expected["permissions"]["deny"] = Value::Array(deny);
        prop_assert_eq!(after, expected);
    }
}
