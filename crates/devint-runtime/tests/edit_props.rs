//! Property tests for `lifecycle::edit`: for generated user documents in JSON, JSONC, TOML
//! and YAML (varied whitespace, comments, trailing commas, key orders, nesting, inline and
//! dotted TOML forms, YAML block and flow collections, quoting styles, YAML 1.1 spellings,
//! CRLF and missing final newlines) —
//!
//! - install → reverse on the untouched output is byte-identical (also for an absent file);
//! - user edits of other keys made between install and reverse survive, and only our keys
//!   go back to their priors;
//! - re-install on top of an install, composed with the first record, reverses to the
//!   *first* originals (byte-identical when untouched, by meaning when edited);
//! - the fuzz harness never panics on arbitrary bytes or on generated documents.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use devint_runtime::edit::{
    fuzz_harness, EditError, EditPlan, ElementEdit, FileAction, KeyEdit, KeyPath, Reversal,
    SettingsDoc, SettingsFormat,
};

// ---------------------------------------------------------------------------------------
// The user's document: an abstract tree rendered in many styles.

#[derive(Clone, Debug)]
enum Node {
    Null,
    Bool(bool),
    Int(i64),
    Str(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

const USER_KEYS: &[&str] = &[
    "env",
    "hooks",
    "a",
    "model",
    "permissions",
    "b",
    "k1",
    "x-y",
    "PATH",
    "with space",
    "deep",
    "é",
];

fn key() -> impl Strategy<Value = String> {
    prop::sample::select(USER_KEYS).prop_map(str::to_owned)
}

fn scalar() -> impl Strategy<Value = Node> {
    prop_oneof![
        Just(Node::Null),
        any::<bool>().prop_map(Node::Bool),
        (-100_000i64..100_000).prop_map(Node::Int),
        "[a-zA-Z0-9 _./:-]{0,12}".prop_map(Node::Str),
        prop::sample::select(vec![
            "q\"uote",
            "back\\slash",
            "tab\there",
            "é ü",
            "line\nbreak",
            "#",
            "//",
            "'"
        ])
        .prop_map(|s| Node::Str(s.to_owned())),
    ]
}

fn node() -> impl Strategy<Value = Node> {
    scalar().prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(scalar(), 0..4).prop_map(Node::Array),
            prop::collection::vec((key(), inner), 0..5)
                .prop_map(|members| Node::Object(dedupe(members))),
        ]
    })
}

fn dedupe(members: Vec<(String, Node)>) -> Vec<(String, Node)> {
    let mut seen = std::collections::HashSet::new();
    members
        .into_iter()
        .filter(|(k, _)| seen.insert(k.clone()))
        .collect()
}

fn root() -> impl Strategy<Value = Vec<(String, Node)>> {
    prop::collection::vec((key(), node()), 0..7).prop_map(dedupe)
}

/// A stream of style decisions, cycled.
struct Choices {
    bytes: Vec<u8>,
    at: usize,
}

impl Choices {
    fn next(&mut self) -> u8 {
        let b = self.bytes[self.at % self.bytes.len()];
        self.at += 1;
        b
    }
    fn one_in(&mut self, n: u8) -> bool {
        self.next().is_multiple_of(n)
    }
}

struct JsonStyle {
    jsonc: bool,
    indent: &'static str,
    newline: &'static str,
    colon: &'static str,
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

fn render_json(members: &[(String, Node)], format: SettingsFormat, c: &mut Choices) -> String {
    let style = JsonStyle {
        jsonc: format == SettingsFormat::Jsonc,
        indent: ["  ", "    ", "\t", " "][c.next() as usize % 4],
        newline: if c.one_in(5) { "\r\n" } else { "\n" },
        colon: [": ", ":", " : "][c.next() as usize % 3],
    };
    let mut out = String::new();
    if style.jsonc && c.one_in(2) {
        out.push_str("// user settings");
        out.push_str(style.newline);
    }
    json_object(members, 0, &style, c, &mut out);
    if c.one_in(4) {
        out.push_str(style.newline);
        if style.jsonc && c.one_in(2) {
            out.push_str("/* end */");
            out.push_str(style.newline);
        }
    }
    out
}

fn json_value(node: &Node, depth: usize, style: &JsonStyle, c: &mut Choices, out: &mut String) {
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(&b.to_string()),
        Node::Int(i) => out.push_str(&i.to_string()),
        Node::Str(s) => out.push_str(&json_string(s)),
        Node::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(if c.one_in(2) { ", " } else { "," });
                }
                json_value(item, depth + 1, style, c, out);
            }
            if style.jsonc && !items.is_empty() && c.one_in(4) {
                out.push(',');
            }
            out.push(']');
        }
        Node::Object(members) => json_object(members, depth, style, c, out),
    }
}

fn json_object(
    members: &[(String, Node)],
    depth: usize,
    style: &JsonStyle,
    c: &mut Choices,
    out: &mut String,
) {
    if members.is_empty() {
        out.push_str(["{}", "{ }", "{\n}"][c.next() as usize % 3]);
        return;
    }
    let inline = depth > 0 && c.one_in(3);
    out.push('{');
    for (i, (k, v)) in members.iter().enumerate() {
        if inline {
            if i > 0 && c.one_in(2) {
                out.push(' ');
            }
        } else {
            out.push_str(style.newline);
            if style.jsonc && c.one_in(4) {
                out.push_str(&style.indent.repeat(depth + 1));
                out.push_str(if c.one_in(2) {
                    "// about the next key"
                } else {
                    "/* block */"
                });
                out.push_str(style.newline);
            }
            out.push_str(&style.indent.repeat(depth + 1));
        }
        out.push_str(&json_string(k));
        out.push_str(style.colon);
        json_value(v, depth + 1, style, c, out);
        let last = i + 1 == members.len();
        if !last || (style.jsonc && c.one_in(3)) {
            out.push(',');
        }
        if style.jsonc && !inline && c.one_in(5) {
            out.push_str(" // trailing");
        }
    }
    if !inline {
        out.push_str(style.newline);
        out.push_str(&style.indent.repeat(depth));
    }
    out.push('}');
}

fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        k.to_owned()
    } else {
        json_string(k)
    }
}

fn toml_scalar(node: &Node, c: &mut Choices) -> String {
    match node {
        Node::Null => "false".to_owned(), // TOML has no null
        Node::Bool(b) => b.to_string(),
        Node::Int(i) => i.to_string(),
        Node::Str(s) if !s.contains(['\'', '\n', '\t']) && c.one_in(3) => format!("'{s}'"),
        Node::Str(s) => json_string(s),
        Node::Array(items) => {
            let items: Vec<String> = items.iter().map(|i| toml_scalar(i, c)).collect();
            format!("[{}]", items.join(if c.one_in(2) { ", " } else { "," }))
        }
        Node::Object(members) => {
            let parts: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{} = {}", toml_key(k), toml_scalar(v, c)))
                .collect();
            if parts.is_empty() {
                "{}".to_owned()
            } else {
                format!("{{ {} }}", parts.join(", "))
            }
        }
    }
}

fn render_toml(members: &[(String, Node)], c: &mut Choices) -> String {
    let mut out = String::new();
    if c.one_in(2) {
        out.push_str("# user config\n");
    }
    let mut sections = Vec::new();
    toml_table(members, &[], c, &mut out, &mut sections);
    while let Some((path, members)) = sections.pop() {
        out.push_str(if c.one_in(2) { "\n" } else { "" });
        if c.one_in(4) {
            out.push_str("# section comment\n");
        }
        let header: Vec<String> = path.iter().map(|k: &String| toml_key(k)).collect();
        out.push_str(&format!("[{}]\n", header.join(".")));
        toml_table(&members, &path, c, &mut out, &mut sections);
    }
    out
}

type Section = (Vec<String>, Vec<(String, Node)>);

/// Writes the key-values of one table; sub-objects become inline tables, dotted keys, or
/// sections queued for later.
fn toml_table(
    members: &[(String, Node)],
    path: &[String],
    c: &mut Choices,
    out: &mut String,
    sections: &mut Vec<Section>,
) {
    for (k, v) in members {
        if c.one_in(6) {
            out.push_str("# note\n");
        }
        match v {
            Node::Object(children) if !c.one_in(3) => {
                let all_scalar = !children.is_empty()
                    && children.iter().all(|(_, v)| !matches!(v, Node::Object(_)));
                if all_scalar && c.one_in(2) {
                    for (ck, cv) in children {
                        out.push_str(&format!(
                            "{}.{} = {}\n",
                            toml_key(k),
                            toml_key(ck),
                            toml_scalar(cv, c)
                        ));
                    }
                } else {
                    let mut sub = path.to_vec();
                    sub.push(k.clone());
                    sections.push((sub, children.clone()));
                }
            }
            other => {
                let space = [" = ", "=", "  =  "][c.next() as usize % 3];
                out.push_str(&format!(
                    "{}{}{}",
                    toml_key(k),
                    space,
                    toml_scalar(other, c)
                ));
                if c.one_in(5) {
                    out.push_str("  # trailing");
                }
                out.push('\n');
            }
        }
    }
}

/// Words a YAML reader may take for a boolean or null when plain.
fn yaml_keyword(s: &str) -> bool {
    ["y", "n", "yes", "no", "on", "off", "true", "false", "null"]
        .iter()
        .any(|k| s.eq_ignore_ascii_case(k))
}

/// A string that reads back as itself when written plain, by a conservative rule of the
/// generator's own (not the editor's).
fn yaml_plain_safe(s: &str) -> bool {
    s.starts_with(|c: char| c.is_alphabetic())
        && s.chars()
            .all(|c| c.is_alphanumeric() || " _./-".contains(c))
        && !s.ends_with(' ')
        && !yaml_keyword(s)
}

fn yaml_single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn yaml_key(k: &str, c: &mut Choices) -> String {
    match c.next() % 4 {
        0 if !k.contains(['\'', '\n', '\t']) => yaml_single_quoted(k),
        1 => json_string(k),
        _ if yaml_plain_safe(k) => k.to_owned(),
        _ => json_string(k),
    }
}

/// A scalar in block context; the spellings vary, the meaning (as YAML 1.1) is the node's.
fn yaml_scalar(node: &Node, c: &mut Choices) -> String {
    match node {
        Node::Null => ["~", "null", "Null"][c.next() as usize % 3].to_owned(),
        Node::Bool(true) => ["true", "yes", "on", "True"][c.next() as usize % 4].to_owned(),
        Node::Bool(false) => ["false", "no", "off", "FALSE"][c.next() as usize % 4].to_owned(),
        Node::Int(i) if *i > 0 && c.one_in(5) => format!("0x{i:x}"),
        Node::Int(i) => i.to_string(),
        Node::Str(s) if yaml_plain_safe(s) && c.one_in(2) => s.clone(),
        Node::Str(s) if !s.contains(['\n', '\t']) && c.one_in(2) => yaml_single_quoted(s),
        Node::Str(s) => json_string(s),
        Node::Array(_) | Node::Object(_) => yaml_flow(node, c),
    }
}

/// A node in flow style, on one line.
fn yaml_flow(node: &Node, c: &mut Choices) -> String {
    match node {
        Node::Null => "null".to_owned(),
        Node::Str(s) => json_string(s),
        Node::Array(items) => {
            let items: Vec<String> = items.iter().map(|i| yaml_flow(i, c)).collect();
            format!("[{}]", items.join(if c.one_in(2) { ", " } else { "," }))
        }
        Node::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{}: {}", json_string(k), yaml_flow(v, c)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
        scalar => yaml_scalar(scalar, c),
    }
}

struct YamlStyle {
    indent: usize,
    /// Block sequences indented under their key (`key:\n  - a`) or not (`key:\n- a`).
    indented_sequences: bool,
}

fn render_yaml(members: &[(String, Node)], c: &mut Choices) -> String {
    let style = YamlStyle {
        indent: [2, 4, 3][c.next() as usize % 3],
        indented_sequences: c.one_in(2),
    };
    let mut out = String::new();
    if c.one_in(2) {
        out.push_str("# user config\n");
    }
    if c.one_in(5) {
        out.push_str("---\n");
    }
    if members.is_empty() && c.one_in(3) {
        out.push_str("{}\n");
    }
    yaml_mapping(members, 0, &style, c, &mut out);
    if c.one_in(4) {
        out.push_str("# end\n");
    }
    if c.one_in(5) {
        out = out.replace('\n', "\r\n");
    }
    if c.one_in(5) {
        while out.ends_with(['\n', '\r']) {
            out.pop();
        }
    }
    out
}

fn yaml_mapping(
    members: &[(String, Node)],
    depth: usize,
    style: &YamlStyle,
    c: &mut Choices,
    out: &mut String,
) {
    let pad = " ".repeat(depth * style.indent);
    for (k, v) in members {
        if c.one_in(7) {
            out.push('\n');
        }
        if c.one_in(6) {
            out.push_str(&pad);
            out.push_str("# note\n");
        }
        out.push_str(&pad);
        out.push_str(&yaml_key(k, c));
        out.push(':');
        match v {
            Node::Object(children) if !children.is_empty() && !c.one_in(4) => {
                if c.one_in(6) {
                    out.push_str("  # section");
                }
                out.push('\n');
                yaml_mapping(children, depth + 1, style, c, out);
            }
            Node::Array(items) if !items.is_empty() && !c.one_in(3) => {
                out.push('\n');
                let item_pad = if style.indented_sequences {
                    " ".repeat((depth + 1) * style.indent)
                } else {
                    pad.clone()
                };
                for item in items {
                    out.push_str(&item_pad);
                    out.push_str("- ");
                    out.push_str(&yaml_scalar(item, c));
                    if c.one_in(6) {
                        out.push_str("  # item");
                    }
                    out.push('\n');
                }
            }
            Node::Null if c.one_in(3) => {
                // `key:` with nothing after it is null too.
                out.push('\n');
            }
            other => {
                out.push(' ');
                out.push_str(&yaml_scalar(other, c));
                if c.one_in(5) {
                    out.push_str("  # trailing");
                }
                out.push('\n');
            }
        }
    }
}

fn format_strategy() -> impl Strategy<Value = SettingsFormat> {
    prop::sample::select(vec![
        SettingsFormat::Json,
        SettingsFormat::Jsonc,
        SettingsFormat::Toml,
        SettingsFormat::Yaml,
    ])
}

fn document() -> impl Strategy<Value = (SettingsFormat, String)> {
    (
        format_strategy(),
        root(),
        prop::collection::vec(any::<u8>(), 1..64),
    )
        .prop_map(|(format, members, bytes)| {
            let mut c = Choices { bytes, at: 0 };
            let text = match format {
                SettingsFormat::Toml => render_toml(&members, &mut c),
                SettingsFormat::Yaml => render_yaml(&members, &mut c),
                _ => render_json(&members, format, &mut c),
            };
            (format, text)
        })
}

// ---------------------------------------------------------------------------------------
// Our keys and the user's later edits.

fn pool() -> Vec<(KeyPath, Value, Value)> {
    [
        (
            "env.DEVINT_URL",
            json!("http://127.0.0.1:4000"),
            json!("http://127.0.0.1:5000"),
        ),
        ("devint_enabled", json!(true), json!(false)),
        (
            "hooks.devint.cmd",
            json!("devint hook"),
            json!("devint hook --v2"),
        ),
        (
            "env.DEVINT_MODE",
            json!("strict"),
            json!(["strict", "audit"]),
        ),
        (
            "a.devint",
            json!({"on": true, "n": 3}),
            json!({"on": false}),
        ),
        ("model", json!("gateway/model"), json!(7)),
    ]
    .into_iter()
    .map(|(p, v1, v2)| (p.parse().unwrap(), v1, v2))
    .collect()
}

/// Elements we own in shared arrays.
fn element_pool() -> Vec<(KeyPath, Value)> {
    [
        (
            "hooks.PreToolUse",
            json!({"matcher": "*", "hooks": [{"type": "command", "command": "devint hook"}]}),
        ),
        ("permissions.deny", json!("Bash(curl:*)")),
        ("b", json!(5)),
    ]
    .into_iter()
    .map(|(p, e)| (p.parse().unwrap(), e))
    .collect()
}

/// 1–4 distinct keys of the pool in a generated order, and 0–2 elements.
fn our_keys() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    let keys = Just((0..pool().len()).collect::<Vec<_>>())
        .prop_shuffle()
        .prop_flat_map(|all| (1..=4usize).prop_map(move |n| all[..n].to_vec()));
    let elements = prop::sample::subsequence((0..element_pool().len()).collect::<Vec<_>>(), 0..=2);
    (keys, elements)
}

fn plan(
    format: SettingsFormat,
    (keys, elements): &(Vec<usize>, Vec<usize>),
    second: bool,
) -> EditPlan {
    let pool = pool();
    let edits = keys
        .iter()
        .map(|&i| KeyEdit {
            path: pool[i].0.clone(),
            value: if second {
                pool[i].2.clone()
            } else {
                pool[i].1.clone()
            },
        })
        .collect();
    let element_pool = element_pool();
    let elements = elements
        .iter()
        .map(|&i| ElementEdit {
            path: element_pool[i].0.clone(),
            element: element_pool[i].1.clone(),
        })
        .collect();
    EditPlan::new(format, edits)
        .and_then(|plan| plan.with_elements(elements))
        .expect("pool paths never overlap")
}

#[derive(Clone, Debug)]
enum UserOp {
    Set(KeyPath, Value),
    Remove(KeyPath),
    /// The user adds their own entry to one of the arrays we add to.
    AddElement(usize, String),
}

fn user_ops() -> impl Strategy<Value = Vec<UserOp>> {
    let path = || prop::collection::vec(key(), 1..3).prop_map(|s| KeyPath::new(s).unwrap());
    let value = prop_oneof![
        "[a-z]{0,6}".prop_map(Value::from),
        (0i64..1000).prop_map(Value::from),
        Just(json!({"user": "nested"})),
    ];
    prop::collection::vec(
        prop_oneof![
            (path(), value).prop_map(|(p, v)| UserOp::Set(p, v)),
            path().prop_map(UserOp::Remove),
            (0..element_pool().len(), "user-[a-z]{1,4}")
                .prop_map(|(i, v)| UserOp::AddElement(i, v)),
        ],
        1..5,
    )
}

fn overlaps(path: &KeyPath, plan: &EditPlan) -> bool {
    let near = |ours: &KeyPath| ours.starts_with(path) || path.starts_with(ours);
    plan.edits().iter().any(|e| near(&e.path)) || plan.elements().iter().any(|e| near(&e.path))
}

fn model_add_element(root: &mut Value, path: &KeyPath, element: Value) {
    let mut node = root;
    let last = path.segments().len() - 1;
    for (i, segment) in path.segments().iter().enumerate() {
        node = node
            .as_object_mut()
            .expect("the editor accepted the path")
            .entry(segment.clone())
            .or_insert_with(|| {
                if i == last {
                    Value::Array(Vec::new())
                } else {
                    Value::Object(Map::new())
                }
            });
    }
    let items = node.as_array_mut().expect("the editor accepted the array");
    if !items.contains(&element) {
        items.push(element);
    }
}

fn model_set(root: &mut Value, path: &KeyPath, value: Value) {
    let mut node = root;
    for segment in path.segments() {
        node = node
            .as_object_mut()
            .expect("the editor accepted the path")
            .entry(segment.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    *node = value;
}

fn model_remove(root: &mut Value, path: &KeyPath) {
    let mut node = root;
    let segments = path.segments();
    for segment in &segments[..segments.len() - 1] {
        match node.get_mut(segment) {
            Some(next) => node = next,
            None => return,
        }
    }
    if let Some(map) = node.as_object_mut() {
        map.remove(path.leaf());
    }
}

/// TOML cannot hold an empty dotted or implicit table: when the user's edits empty one it
/// vanishes from their text, so it vanishes from the model too (away from our keys).
fn drop_vanished(model: &mut Value, actual: &Value, at: &[String], ours: &[&EditPlan]) {
    let Some(map) = model.as_object_mut() else {
        return;
    };
    let touches_ours = |k: &str| {
        let mut segments = at.to_vec();
        segments.push(k.to_owned());
        let path = KeyPath::new(segments).unwrap();
        ours.iter().any(|p| overlaps(&path, p))
    };
    map.retain(|k, v| {
        touches_ours(k) || !(v.as_object().is_some_and(Map::is_empty) && actual.get(k).is_none())
    });
    for (k, v) in map.iter_mut() {
        if let (false, Some(actual)) = (touches_ours(k), actual.get(k)) {
            let mut below = at.to_vec();
            below.push(k.clone());
            drop_vanished(v, actual, &below, ours);
        }
    }
}

/// In TOML an empty dotted or implicit table has no text at all, so whether one "exists"
/// after the user emptied it is not observable: compare TOML meanings without empty tables.
fn toml_lens(format: SettingsFormat, mut value: Value) -> Value {
    fn strip(value: &mut Value) {
        if let Some(map) = value.as_object_mut() {
            map.values_mut().for_each(strip);
            map.retain(|_, v| !v.as_object().is_some_and(Map::is_empty));
        }
    }
    if format == SettingsFormat::Toml {
        strip(&mut value);
    }
    value
}

/// Objects we created are pruned on reversal when empty: the model does the same.
fn prune_created(model: &mut Value, reversal: &Reversal) {
    for path in reversal.created.iter().rev() {
        let mut node = &*model;
        let mut empty = true;
        for segment in path.segments() {
            match node.get(segment) {
                Some(next) => node = next,
                None => {
                    empty = false;
                    break;
                }
            }
        }
        let hollow = node.as_object().is_some_and(Map::is_empty)
            || node.as_array().is_some_and(Vec::is_empty);
        if empty && hollow {
            model_remove(model, path);
        }
    }
}

/// Applies the user's edits that stay clear of our keys to `text` and to `model`.
fn apply_user_ops(
    format: SettingsFormat,
    text: &str,
    ops: &[UserOp],
    ours: &[&EditPlan],
    model: &mut Value,
) -> String {
    let mut doc = SettingsDoc::parse(format, text).expect("our output parses");
    for op in ops {
        if let UserOp::Set(path, _) | UserOp::Remove(path) = op {
            if ours.iter().any(|p| overlaps(path, p)) {
                continue;
            }
        }
        let element_pool = element_pool();
        // An edit the user's own shape blocks (a scalar on the way) is simply not made.
        let made = match op {
            UserOp::Set(path, value) => doc.set(path, value.clone()).is_ok(),
            UserOp::Remove(path) => doc.remove(path).is_some(),
            UserOp::AddElement(i, value) => doc
                .add_element(&element_pool[*i].0, Value::from(value.as_str()))
                .is_ok(),
        };
        match (made, op) {
            (true, UserOp::Set(path, value)) => model_set(model, path, value.clone()),
            (true, UserOp::Remove(path)) => model_remove(model, path),
            (true, UserOp::AddElement(i, value)) => {
                model_add_element(model, &element_pool[*i].0, Value::from(value.as_str()))
            }
            (false, _) => {}
        }
    }
    let edited = doc.to_string();
    if format == SettingsFormat::Toml {
        drop_vanished(model, &meaning(format, &edited), &[], ours);
    }
    edited
}

/// The byte ranges of the installed text that our splices wrote.
fn our_regions(reversal: &Reversal) -> Vec<std::ops::Range<usize>> {
    let mut regions: Vec<std::ops::Range<usize>> = Vec::new();
    for splice in &reversal
        .exact
        .as_ref()
        .expect("no withheld values here")
        .splices
    {
        let (at, removed, inserted) = (splice.offset, splice.removed.len(), splice.inserted.len());
        for r in &mut regions {
            if r.start >= at + removed {
                r.start = r.start + inserted - removed;
                r.end = r.end + inserted - removed;
            } else if r.end > at {
                r.end = (r.end.max(at + removed) + inserted).saturating_sub(removed);
            }
        }
        regions.push(at..at + inserted);
    }
    regions
}

/// A refusal the editor is allowed to give for a generated document (the user's shape
/// blocks our key); anything else is a bug.
fn acceptable_refusal(err: &EditError) -> bool {
    matches!(err, EditError::NotAContainer { .. })
}

fn meaning(format: SettingsFormat, text: &str) -> Value {
    SettingsDoc::parse(format, text)
        .expect("parses")
        .to_value()
        .expect("representable")
}

fn written(action: FileAction) -> String {
    match action {
        FileAction::Write(text) => text,
        other => panic!("expected a write, got {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn generated_documents_parse((format, text) in document()) {
        prop_assert!(SettingsDoc::parse(format, &text).is_ok(), "generator produced:\n{}", text);
    }

    #[test]
    fn install_then_reverse_on_untouched_output_is_byte_identical(
        (format, text) in document(),
        keys in our_keys(),
        absent in prop::bool::weighted(0.15),
    ) {
        let current = (!absent).then_some(text.as_str());
        let applied = match plan(format, &keys, false).apply(current, |_, _| false) {
            Ok(applied) => applied,
            Err(e) if acceptable_refusal(&e) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n{text}"))),
        };
        let back = applied.reversal.reverse(Some(&applied.text)).unwrap();
        prop_assert!(back.exact);
        match current {
            Some(original) => prop_assert_eq!(back.file, FileAction::Write(original.to_owned())),
            None => prop_assert_eq!(back.file, FileAction::Delete),
        }
        // The semantic path on the same text agrees in meaning.
        let semantic = applied.reversal.reverse_semantic(Some(&applied.text)).unwrap();
        match (current, semantic.file) {
            (Some(original), FileAction::Write(restored)) => {
                prop_assert_eq!(meaning(format, &restored), meaning(format, original));
            }
            (None, FileAction::Delete) => {}
            (current, other) => prop_assert!(false, "semantic {:?} for {:?}", other, current),
        }
    }

    #[test]
    fn user_edits_between_install_and_reverse_survive(
        (format, text) in document(),
        keys in our_keys(),
        ops in user_ops(),
        note in any::<bool>(),
        mid_line in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let plan = plan(format, &keys, false);
        let applied = match plan.apply(Some(&text), |_, _| false) {
            Ok(applied) => applied,
            Err(e) if acceptable_refusal(&e) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n{text}"))),
        };
        let mut expected = meaning(format, &text);
        // A comment line written between two lines somewhere in the middle.
        let mid = match format {
            SettingsFormat::Jsonc => Some("// mid note\n"),
            SettingsFormat::Toml | SettingsFormat::Yaml => Some("# mid note\n"),
            _ => None,
        };
        let mut installed = applied.text.clone();
        if let (Some(line), Some(mid)) = (mid_line, mid) {
            // Comments written inside our own values go with them on removal; aim between
            // the user's lines only.
            let ours = our_regions(&applied.reversal);
            let starts: Vec<usize> = std::iter::once(0)
                .chain(installed.match_indices('\n').map(|(i, _)| i + 1))
                .filter(|&i| i < installed.len())
                .filter(|&i| !ours.iter().any(|r| r.start < i && i < r.end))
                .collect();
            if !starts.is_empty() {
                installed.insert_str(starts[line.index(starts.len())], mid);
            }
        }
        let mut edited = apply_user_ops(format, &installed, &ops, &[&plan], &mut expected);
        let comment = match format {
            SettingsFormat::Jsonc => Some("// user note\n"),
            SettingsFormat::Toml | SettingsFormat::Yaml => Some("# user note\n"),
            _ => None,
        };
        if let (true, Some(comment)) = (note, comment) {
            edited.insert_str(0, comment);
        }
        prune_created(&mut expected, &applied.reversal);
        let back = applied.reversal.reverse(Some(&edited)).unwrap();
        let restored = written(back.file);
        let mut actual = meaning(format, &restored);
        if mid_line.is_some() {
            // A comment the user wrote inside an object we created keeps that object (it
            // holds the user's words); only that may differ from the model.
            prune_created(&mut actual, &applied.reversal);
        }
        prop_assert_eq!(
            toml_lens(format, actual),
            toml_lens(format, expected),
            "restored:\n{}",
            restored
        );
        if let (true, Some(comment)) = (note, comment) {
            prop_assert!(restored.contains(comment.trim_end()));
        }
        // (The user's own edits may have replaced what held the comment.)
        let user_kept_it = mid.is_some_and(|mid| edited.contains(mid));
        if let (Some(_), Some(mid), true) = (mid_line, mid, user_kept_it) {
            prop_assert!(restored.contains(mid.trim_end()), "lost the mid comment:\n{}", restored);
        }
    }

    #[test]
    fn reinstall_composed_with_the_first_reverses_to_the_first_originals(
        (format, text) in document(),
        first_keys in our_keys(),
        second_keys in our_keys(),
        ops in user_ops(),
    ) {
        let first_plan = plan(format, &first_keys, false);
        let first = match first_plan.apply(Some(&text), |_, _| false) {
            Ok(applied) => applied,
            Err(e) if acceptable_refusal(&e) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n{text}"))),
        };
        let second_plan = plan(format, &second_keys, true);
        let second = match second_plan.apply(Some(&first.text), |_, _| false) {
            Ok(applied) => applied,
            Err(e) if acceptable_refusal(&e) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n{}", first.text))),
        };
        let composed = Reversal::compose(&first.reversal, &second.reversal).unwrap();

        let back = composed.reverse(Some(&second.text)).unwrap();
        prop_assert!(back.exact);
        prop_assert_eq!(back.file, FileAction::Write(text.clone()));

        let mut expected = meaning(format, &text);
        let edited = apply_user_ops(format, &second.text, &ops, &[&first_plan, &second_plan], &mut expected);
        prune_created(&mut expected, &composed);
        let back = composed.reverse(Some(&edited)).unwrap();
        let restored = written(back.file);
        prop_assert_eq!(
            toml_lens(format, meaning(format, &restored)),
            toml_lens(format, expected),
            "restored:\n{}",
            restored
        );
    }

    #[test]
    fn fuzz_harness_holds_on_generated_documents(
        (format, text) in document(),
        selector in any::<u8>(),
    ) {
        let format_byte = match format {
            SettingsFormat::Json => 0u8,
            SettingsFormat::Jsonc => 1,
            SettingsFormat::Toml => 2,
            SettingsFormat::Yaml => 3,
        };
        let mut data = vec![format_byte, selector];
        data.extend_from_slice(text.as_bytes());
        fuzz_harness::edit_roundtrip(&data);
    }

    #[test]
    fn fuzz_harness_holds_on_mutated_documents(
        (format, text) in document(),
        selector in any::<u8>(),
        mutations in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..4),
    ) {
        let mut bytes = text.into_bytes();
        for (at, byte, kind) in mutations {
            let at = if bytes.is_empty() { 0 } else { at.index(bytes.len()) };
            match kind {
                0 if !bytes.is_empty() => bytes[at] = byte,
                1 => bytes.insert(at, byte),
                _ if !bytes.is_empty() => { bytes.remove(at); }
                _ => bytes.push(byte),
            }
        }
        let format_byte = match format {
            SettingsFormat::Json => 0u8,
            SettingsFormat::Jsonc => 1,
            SettingsFormat::Toml => 2,
            SettingsFormat::Yaml => 3,
        };
        let mut data = vec![format_byte, selector];
        data.extend_from_slice(&bytes);
        fuzz_harness::edit_roundtrip(&data);
    }

    #[test]
    fn fuzz_harness_never_panics_on_arbitrary_bytes(data in prop::collection::vec(any::<u8>(), 0..256)) {
        fuzz_harness::edit_roundtrip(&data);
    }
}
