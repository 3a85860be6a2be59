//! Every key devint writes exists in the settings schema the tool's own release ships, with
//! the type that schema gives it — so a key the tool does not have (Gemini CLI's
//! `tools.autoAccept`) cannot be written again unnoticed.
//!
//! The schemas in `tests/schemas/` (`SOURCES.md` says where each came from) are the tools'
//! own, of the release `conformance/tools.toml` pins: Gemini CLI and Qwen Code ship theirs as
//! the settings definition their bundles build their validators from; Mistral Vibe prints its
//! JSON Schema (`vibe config schema`). A tool that ships no schema (Claude Code, Codex,
//! OpenCode validate with code in their binaries) is judged by that code in the real-tool
//! conformance job instead.

use std::path::Path;

use devint_runtime::adapters::{
    find, render, DenyRule, EditMode, IntegrationIntent, SettingsScope,
};
use serde_json::{json, Map, Value};

/// Everything a policy can ask of a tool, every deny rule kind included.
fn full_intent(approval: bool) -> IntegrationIntent {
    IntegrationIntent {
        gateway_base_url: Some("http://127.0.0.1:4000/devint-gateway".into()),
        proxy_url: Some("http://127.0.0.1:3128".into()),
        hook_command: Some("/opt/devint/hook pre-tool-use".into()),
        mcp_deny: vec!["devint-blocked".into()],
        deny: [
            "shell",
            "shell:curl",
            "web_fetch",
            "web_fetch:example.com",
            "web_search",
            "read",
            "read:~/.ssh/**",
            "write",
            "write:/etc/**",
            "mcp:github",
            "mcp:github/create_issue",
        ]
        .iter()
        .map(|r| DenyRule::parse(r).unwrap())
        .collect(),
        require_approval: approval,
    }
}

/// The document the tool's rendering writes into an empty user settings file.
fn written(tool: &str, version: &str, approval: bool) -> Value {
    let version = semver::Version::parse(version).unwrap();
    let rendered = render(
        find(tool).unwrap(),
        &full_intent(approval),
        SettingsScope::User,
        Path::new("/home/u"),
        None,
        Some(&version),
    )
    .unwrap();
    let mut doc = Value::Object(Map::new());
    for edit in rendered.edits {
        let mut node = &mut doc;
        for segment in &edit.path {
            node = node
                .as_object_mut()
                .unwrap()
                .entry(segment.clone())
                .or_insert_with(|| json!({}));
        }
        *node = match edit.mode {
            EditMode::Replace | EditMode::AppendToList => edit.value,
        };
    }
    doc
}

fn schema(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/schemas")
        .join(file);
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Checks `value` at `at` against a Gemini-style settings definition node (`type`:
/// object/string/boolean/number/array/enum, `properties`, `additionalProperties`,
/// `items`, `options`); each disagreement is pushed to `problems`.
fn check_definition(node: &Value, value: &Value, at: &str, problems: &mut Vec<String>) {
    let kind = node["type"].as_str().unwrap_or("");
    let ok = match kind {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "number" => value.is_number(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "enum" => node["options"]
            .as_array()
            .is_some_and(|o| o.iter().any(|opt| opt["value"] == *value)),
        _ => false,
    };
    if !ok {
        problems.push(format!(
            "{at}: the schema says {kind}, devint writes {value}"
        ));
        return;
    }
    if let (Some(items), Some(values)) = (node["items"].as_object(), value.as_array()) {
        if items.get("type").and_then(Value::as_str) == Some("string") {
            for v in values.iter().filter(|v| !v.is_string()) {
                problems.push(format!("{at}: items are strings, devint writes {v}"));
            }
        }
    }
    if let (Some(map), "object") = (value.as_object(), kind) {
        for (key, v) in map {
            let child = format!("{at}.{key}");
            match node["properties"]
                .get(key)
                .or(node.get("additionalProperties"))
            {
                Some(def) if def.is_object() => check_definition(def, v, &child, problems),
                Some(Value::Bool(true)) => {}
                _ => problems.push(format!("{child}: the schema has no such key")),
            }
        }
    }
}

/// The disagreements between `doc` and a Gemini-style top-level settings definition.
fn against_definitions(definitions: &Value, doc: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    for (key, value) in doc.as_object().unwrap() {
        match definitions.get(key) {
            Some(def) => check_definition(def, value, key, &mut problems),
            None => problems.push(format!("{key}: the schema has no such key")),
        }
    }
    problems
}

#[test]
fn gemini_cli_writes_only_keys_its_0_61_settings_schema_has() {
    let definitions = schema("gemini-cli-0.61.0.settings-schema.json");
    for approval in [false, true] {
        let doc = written("gemini-cli", "0.61.0", approval);
        assert!(!doc.as_object().unwrap().is_empty());
        let problems = against_definitions(&definitions, &doc);
        assert!(problems.is_empty(), "{problems:#?}\n{doc:#}");
    }
}

#[test]
fn qwen_code_writes_only_keys_its_0_24_settings_schema_has() {
    let definitions = schema("qwen-code-0.24.4.settings-schema.json");
    for approval in [false, true] {
        let doc = written("qwen-code", "0.24.4", approval);
        assert!(doc.get("permissions").is_some(), "{doc:#}");
        let problems = against_definitions(&definitions, &doc);
        assert!(problems.is_empty(), "{problems:#?}\n{doc:#}");
    }
}

#[test]
fn the_definition_check_refuses_what_the_schema_does_not_have() {
    // The key the old Gemini CLI descriptor wrote, which 0.61 does not have, and a wrong type.
    let definitions = schema("gemini-cli-0.61.0.settings-schema.json");
    let problems = against_definitions(
        &definitions,
        &json!({ "tools": { "autoAccept": false }, "mcp": { "excluded": "shady" } }),
    );
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(problems[0].contains("mcp.excluded") || problems[1].contains("mcp.excluded"));
    assert!(problems
        .iter()
        .any(|p| p.contains("tools.autoAccept: the schema has no such key")));
}

/// Checks `value` at `at` against a JSON Schema node (the subset pydantic emits: `$ref` into
/// `$defs`, `type`, `enum`, `anyOf`/`oneOf`, `properties`, `additionalProperties`, `items`);
/// each disagreement is pushed to `problems`.
fn check_json_schema(
    root: &Value,
    node: &Value,
    value: &Value,
    at: &str,
    problems: &mut Vec<String>,
) {
    if let Some(reference) = node["$ref"].as_str() {
        let name = reference.trim_start_matches("#/$defs/");
        return check_json_schema(root, &root["$defs"][name], value, at, problems);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = node[key].as_array() {
            let fits = branches.iter().any(|b| {
                let mut inner = Vec::new();
                check_json_schema(root, b, value, at, &mut inner);
                inner.is_empty()
            });
            if !fits {
                problems.push(format!("{at}: {value} fits none of the schema's {key}"));
            }
            return;
        }
    }
    if let Some(options) = node["enum"].as_array() {
        if !options.contains(value) {
            problems.push(format!("{at}: {value} is not one of {options:?}"));
        }
    }
    let fits_type = |kind: &str| match kind {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => false,
    };
    let typed = match &node["type"] {
        Value::String(kind) => fits_type(kind),
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).any(fits_type),
        _ => true,
    };
    if !typed {
        problems.push(format!(
            "{at}: the schema says {}, devint writes {value}",
            node["type"]
        ));
        return;
    }
    if let (Some(items), Some(values)) = (node.get("items"), value.as_array()) {
        for (i, v) in values.iter().enumerate() {
            check_json_schema(root, items, v, &format!("{at}[{i}]"), problems);
        }
    }
    if let Some(map) = value.as_object() {
        for (key, v) in map {
            let child = format!("{at}.{key}");
            match node["properties"]
                .get(key)
                .or(node.get("additionalProperties"))
            {
                Some(def) if def.is_object() => check_json_schema(root, def, v, &child, problems),
                Some(Value::Bool(true)) => {}
                None if node.get("properties").is_none() => {}
                _ => problems.push(format!("{child}: the schema has no such key")),
            }
        }
    }
}

#[test]
fn mistral_vibe_writes_only_keys_its_3_0_3_config_schema_has() {
    let root = schema("mistral-vibe-3.0.3.config-schema.json");
    for approval in [false, true] {
        let doc = written("mistral-vibe", "3.0.3", approval);
        for key in [
            "providers",
            "disabled_tools",
            "enable_auto_approve",
            "tools",
        ] {
            assert!(doc.get(key).is_some(), "{key} missing from {doc:#}");
        }
        let mut problems = Vec::new();
        check_json_schema(&root, &root, &doc, "config", &mut problems);
        assert!(problems.is_empty(), "{problems:#?}\n{doc:#}");
    }
}

#[test]
fn the_json_schema_check_refuses_what_the_schema_does_not_have() {
    let root = schema("mistral-vibe-3.0.3.config-schema.json");
    let mut problems = Vec::new();
    check_json_schema(
        &root,
        &root,
        &json!({
            "enable_auto_approve": "no",
            "providers": [{"name": "p", "api_base": "http://x", "bogus": 1}],
            "no_such_key": true
        }),
        "config",
        &mut problems,
    );
    assert_eq!(problems.len(), 3, "{problems:#?}");
}
