//! The YAML backend of [`SettingsDoc`](super::SettingsDoc): edits on `yaml-edit`'s lossless
//! tree, judged by a strict reader (`saphyr-parser`) that reads scalars as PyYAML's
//! `yaml.safe_load` does (YAML 1.1).
//!
//! Owns key lookup and in-place edits of a YAML settings file, the meaning the file has for
//! the tools that read it, and the spelling of the values we write. It must never produce
//! text other than the user's as `yaml-edit` edited it (only the bytes around our keys
//! change; the one tidying after that gives what we add the file's CRLF line endings and
//! drops the `{}` `yaml-edit` writes for a root it emptied), never keep an edit whose text
//! the strict reader does not read back as exactly the asked change, and never accept a
//! construct it cannot edit faithfully.
//!
//! Why these crates: `yaml-edit` (a rowan-based lossless tree) keeps every byte it is not
//! asked to change, keeps comments and the replaced value's trailing comment, and edits
//! block and flow collections well; `yaml-rt` could not be used (it needs a newer Rust than
//! this workspace's toolchain). But `yaml-edit` also accepts text no YAML reader does
//! (`a: b: c`, a key indented under a scalar, tabs as indentation), so it cannot be the judge
//! of whether a file parses, and its own quoting misses YAML 1.1 readings (`1_000`,
//! `2001-12-14`, `=`). So `saphyr-parser`, a strict, iterative event parser of the YAML
//! syntax PyYAML accepts, reads every document first and every edited text again before it
//! is kept, and this module chooses the style of every scalar it writes.
//!
//! What is accepted: one document (an explicit `---` start is fine) of block or flow
//! mappings and sequences, with plain, quoted or block scalars, comments anywhere. Refused,
//! as [`EditError::UnsupportedConstruct`] naming line and column: anchors and aliases (so no
//! alias is ever expanded), tags, a second document, a mapping key that is not a string to
//! YAML 1.1 (`on:`, `1:`, `~:` or a collection), a repeated key, the merge key `<<`, a plain
//! `=`, nesting deeper than [`MAX_DEPTH`] and a document larger than [`MAX_BYTES`]. A syntax
//! error is [`EditError::Parse`].
//!
//! Meaning (YAML 1.1, as PyYAML's `SafeLoader`): plain `yes`/`no`/`on`/`off`/`true`/`false`
//! in any of their three spellings are booleans, `~`/`null`/empty are null, `0x1F`, `017`
//! (octal), `0b101`, `1_000` and `1:30` are integers, `1.5`, `.5`, `1.0e+3` are floats, and
//! `1e3` (no dot) is a string. Timestamps read as their text. Infinities, NaN and integers
//! past `u64` have no JSON form: [`SettingsDoc::to_value`](super::SettingsDoc::to_value)
//! answers `None` and replacing such a value is refused.
//!
//! What we write reads back identically under YAML 1.1 (PyYAML) and 1.2: booleans as
//! `true`/`false`, `null`, integers in decimal, floats with a dot and a signed exponent;
//! a string is plain only when it starts with a letter, `/` or `_`, holds nothing but
//! letters, digits, spaces and `_-./:@+=()~%`, has no `: `, does not end in a space or `:`,
//! and is not one of `y`, `n`, `yes`, `no`, `on`, `off`, `true`, `false`, `null` in any
//! case; otherwise it is single-quoted, or double-quoted with escapes when it holds a line
//! break, a tab or a character YAML must escape. A file with CRLF line endings gets CRLF in
//! what we add.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use saphyr_parser::{Event, Parser, ScalarStyle as ReadStyle, Span};
use serde_json::{Map, Number, Value};
use yaml_edit::{Mapping, ScalarStyle, ScalarValue, Sequence, YamlError, YamlFile};

use super::{guard, EditError, KeyPath, Prior, SetOutcome, SettingsFormat};

const FORMAT: SettingsFormat = SettingsFormat::Yaml;

/// The largest YAML document the editor reads: real settings files are kilobytes, and every
/// edit parses the whole document twice.
pub(super) const MAX_BYTES: usize = 1024 * 1024;

/// The deepest nesting of mappings and sequences the editor reads.
pub(super) const MAX_DEPTH: usize = 64;

// The refusals name these numbers.
const _: () = assert!(MAX_BYTES == 1024 * 1024 && MAX_DEPTH == 64);

/// What a YAML node means to PyYAML's `safe_load`, as far as the editor needs to know.
#[derive(Clone, Debug, PartialEq)]
enum Node {
    /// A scalar with a JSON form: null, a boolean, a number or a string.
    Json(Value),
    /// A scalar PyYAML reads as something JSON cannot hold (an infinity, NaN, an integer
    /// past `u64`); its text.
    Opaque(String),
    Seq(Vec<Node>),
    Map(BTreeMap<String, Node>),
}

impl Node {
    fn empty_map() -> Node {
        Node::Map(BTreeMap::new())
    }

    fn from_json(value: &Value) -> Node {
        match value {
            Value::Array(items) => Node::Seq(items.iter().map(Node::from_json).collect()),
            Value::Object(map) => Node::Map(
                map.iter()
                    .map(|(k, v)| (k.clone(), Node::from_json(v)))
                    .collect(),
            ),
            scalar => Node::Json(scalar.clone()),
        }
    }

    fn to_json(&self) -> Option<Value> {
        Some(match self {
            Node::Json(value) => value.clone(),
            Node::Opaque(_) => return None,
            Node::Seq(items) => {
                Value::Array(items.iter().map(Node::to_json).collect::<Option<_>>()?)
            }
            Node::Map(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| Some((k.clone(), v.to_json()?)))
                    .collect::<Option<Map<_, _>>>()?,
            ),
        })
    }

    fn kind(&self) -> &'static str {
        match self {
            Node::Json(Value::Null) => "null",
            Node::Json(Value::Bool(_)) => "boolean",
            Node::Json(Value::Number(_)) | Node::Opaque(_) => "number",
            Node::Json(Value::String(_)) => "string",
            Node::Json(Value::Array(_)) | Node::Seq(_) => "array",
            Node::Json(Value::Object(_)) | Node::Map(_) => "object",
        }
    }
}

/// A parsed YAML document: its text and what it means.
pub(super) struct YamlDoc {
    text: String,
    /// `None`: the document holds no node (empty, comments only, or a bare `---`).
    root: Option<Node>,
}

fn mismatch(detail: &'static str) -> EditError {
    EditError::ReadBackMismatch {
        format: FORMAT,
        detail,
    }
}

fn refuse(span: Span, construct: &'static str) -> EditError {
    EditError::UnsupportedConstruct {
        format: FORMAT,
        line: span.start.line(),
        column: span.start.col() + 1,
        construct,
    }
}

// ---------------------------------------------------------------------------------------
// Reading: the strict reader and YAML 1.1 scalars.

enum Frame {
    Seq(Vec<Node>),
    Map {
        map: BTreeMap<String, Node>,
        key: Option<(String, Span)>,
    },
}

/// Reads `text` strictly; `Ok(None)` when it holds no node.
fn read(text: &str) -> Result<Option<Node>, EditError> {
    if text.len() > MAX_BYTES {
        return Err(EditError::UnsupportedConstruct {
            format: FORMAT,
            line: 1,
            column: 1,
            construct: "a document larger than 1 MiB",
        });
    }
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut root = None;
    let mut documents = 0;
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|e| EditError::Parse {
            format: FORMAT,
            line: e.marker().line(),
            column: e.marker().col() + 1,
            reason: e.info().to_owned(),
        })?;
        let node = match event {
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => continue,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(refuse(span, "a second document in one file"));
                }
                continue;
            }
            Event::Alias(_) => return Err(refuse(span, "an alias (`*name`)")),
            Event::Scalar(value, style, anchor, tag) => {
                no_anchor_or_tag(span, anchor, tag.is_some())?;
                if style != ReadStyle::Plain {
                    Node::Json(Value::String(value.into_owned()))
                } else if value.is_empty() && stack.is_empty() {
                    // A document with nothing in it (`---` alone): no node.
                    continue;
                } else {
                    plain(&value).map_err(|construct| refuse(span, construct))?
                }
            }
            Event::SequenceStart(anchor, tag) => {
                open(
                    &mut stack,
                    span,
                    anchor,
                    tag.is_some(),
                    Frame::Seq(Vec::new()),
                )?;
                continue;
            }
            Event::MappingStart(anchor, tag) => {
                let frame = Frame::Map {
                    map: BTreeMap::new(),
                    key: None,
                };
                open(&mut stack, span, anchor, tag.is_some(), frame)?;
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Seq(items)) => Node::Seq(items),
                Some(Frame::Map { map, .. }) => Node::Map(map),
                None => {
                    return Err(mismatch(
                        "the YAML reader closed a collection it never opened",
                    ))
                }
            },
        };
        match stack.last_mut() {
            None => root = Some(node),
            Some(Frame::Seq(items)) => items.push(node),
            Some(Frame::Map { map, key }) => {
                match key.take() {
                    Some((name, at)) => {
                        if map.insert(name, node).is_some() {
                            return Err(refuse(at, "a key repeated in one mapping"));
                        }
                    }
                    None => match node {
                        Node::Json(Value::String(name)) => *key = Some((name, span)),
                        Node::Seq(_) | Node::Map(_) => {
                            return Err(refuse(span, "a collection as a mapping key"))
                        }
                        _ => return Err(refuse(
                            span,
                            "a mapping key YAML 1.1 reads as a boolean, number or null (quote it)",
                        )),
                    },
                }
            }
        }
    }
    Ok(root)
}

fn open(
    stack: &mut Vec<Frame>,
    span: Span,
    anchor: usize,
    tagged: bool,
    frame: Frame,
) -> Result<(), EditError> {
    no_anchor_or_tag(span, anchor, tagged)?;
    if stack.len() >= MAX_DEPTH {
        return Err(refuse(span, "nesting deeper than 64 levels"));
    }
    stack.push(frame);
    Ok(())
}

fn no_anchor_or_tag(span: Span, anchor: usize, tagged: bool) -> Result<(), EditError> {
    if anchor != 0 {
        return Err(refuse(span, "an anchor (`&name`)"));
    }
    if tagged {
        return Err(refuse(span, "a tag (`!name`)"));
    }
    Ok(())
}

/// What a plain scalar means to PyYAML's resolver and `SafeConstructor`.
fn plain(text: &str) -> Result<Node, &'static str> {
    let value = match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Value::Bool(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Value::Bool(false)
        }
        "<<" => return Err("a merge key (`<<`)"),
        "=" => return Err("a plain `=` (YAML 1.1's value tag, which PyYAML cannot load)"),
        _ if is_float(text) => return Ok(float(text)),
        _ if is_int(text) => return Ok(int(text)),
        _ => Value::String(text.to_owned()),
    };
    Ok(Node::Json(value))
}

fn unsigned(text: &str) -> &str {
    text.strip_prefix(['-', '+']).unwrap_or(text)
}

/// Non-empty and every byte passes `f`.
fn all(text: &str, f: impl Fn(u8) -> bool) -> bool {
    !text.is_empty() && text.bytes().all(f)
}

fn digit_or_underscore(b: u8) -> bool {
    b.is_ascii_digit() || b == b'_'
}

/// One `[0-5]?[0-9]` group of a base-60 number.
fn sexagesimal_group(part: &str) -> bool {
    match part.as_bytes() {
        [d] => d.is_ascii_digit(),
        [a, b] => (b'0'..=b'5').contains(a) && b.is_ascii_digit(),
        _ => false,
    }
}

/// PyYAML's int pattern: `[-+]?` then `0b[01_]+`, `0x[0-9a-fA-F_]+`, `0[0-7_]+`, `0`,
/// `[1-9][0-9_]*`, or `[1-9][0-9_]*(:[0-5]?[0-9])+`.
fn is_int(text: &str) -> bool {
    let t = unsigned(text);
    if let Some(rest) = t.strip_prefix("0b") {
        return all(rest, |b| matches!(b, b'0' | b'1' | b'_'));
    }
    if let Some(rest) = t.strip_prefix("0x") {
        return all(rest, |b| b.is_ascii_hexdigit() || b == b'_');
    }
    if t == "0" {
        return true;
    }
    if let Some(rest) = t.strip_prefix('0') {
        return all(rest, |b| matches!(b, b'0'..=b'7' | b'_'));
    }
    let mut parts = t.split(':');
    let head = parts.next().unwrap_or_default();
    head.as_bytes()
        .first()
        .is_some_and(|b| (b'1'..=b'9').contains(b))
        && head.bytes().all(digit_or_underscore)
        && parts.all(sexagesimal_group)
}

/// `[0-9_]*` then an optional `[eE][-+][0-9]+`.
fn fraction_and_exponent(text: &str) -> bool {
    match text.find(['e', 'E']) {
        None => text.bytes().all(digit_or_underscore),
        Some(at) => {
            text[..at].bytes().all(digit_or_underscore)
                && text[at + 1..]
                    .strip_prefix(['-', '+'])
                    .is_some_and(|digits| all(digits, |b| b.is_ascii_digit()))
        }
    }
}

/// PyYAML's float pattern: `[-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?`,
/// `\.[0-9][0-9_]*([eE][-+][0-9]+)?`, `[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*`,
/// `[-+]?\.(inf|Inf|INF)` or `\.(nan|NaN|NAN)`.
fn is_float(text: &str) -> bool {
    let t = unsigned(text);
    let signed = t.len() != text.len();
    match t {
        ".inf" | ".Inf" | ".INF" => return true,
        ".nan" | ".NaN" | ".NAN" => return !signed,
        _ => {}
    }
    if let Some(rest) = t.strip_prefix('.') {
        return !signed
            && rest.as_bytes().first().is_some_and(u8::is_ascii_digit)
            && fraction_and_exponent(rest);
    }
    let Some(dot) = t.find('.') else {
        return false;
    };
    let (whole, fraction) = (&t[..dot], &t[dot + 1..]);
    let mut parts = whole.split(':');
    let head = parts.next().unwrap_or_default();
    if !(head.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && head.bytes().all(digit_or_underscore))
    {
        return false;
    }
    let groups: Vec<&str> = parts.collect();
    if groups.is_empty() {
        fraction_and_exponent(fraction)
    } else {
        groups.iter().all(|g| sexagesimal_group(g)) && fraction.bytes().all(digit_or_underscore)
    }
}

/// PyYAML's `construct_yaml_int` of a scalar [`is_int`] accepts.
fn int(text: &str) -> Node {
    let clean = text.replace('_', "");
    let negative = clean.starts_with('-');
    let t = unsigned(&clean);
    let magnitude: Option<u128> = if t == "0" {
        Some(0)
    } else if let Some(rest) = t.strip_prefix("0b") {
        u128::from_str_radix(rest, 2).ok()
    } else if let Some(rest) = t.strip_prefix("0x") {
        u128::from_str_radix(rest, 16).ok()
    } else if t.starts_with('0') {
        u128::from_str_radix(t, 8).ok()
    } else if t.contains(':') {
        t.split(':').try_fold(0u128, |acc, part| {
            acc.checked_mul(60)?.checked_add(part.parse::<u128>().ok()?)
        })
    } else {
        t.parse::<u128>().ok()
    };
    let value = magnitude.and_then(|m| {
        if negative {
            let m = i128::try_from(m).ok()?;
            i64::try_from(-m).ok().map(Value::from)
        } else {
            u64::try_from(m).ok().map(Value::from)
        }
    });
    value.map_or_else(|| Node::Opaque(text.to_owned()), Node::Json)
}

/// PyYAML's `construct_yaml_float` of a scalar [`is_float`] accepts.
fn float(text: &str) -> Node {
    let clean = text.replace('_', "").to_ascii_lowercase();
    let negative = clean.starts_with('-');
    let t = unsigned(&clean);
    let magnitude = if t.contains(':') {
        t.split(':').try_fold(0f64, |acc, part| {
            Some(acc * 60.0 + part.parse::<f64>().ok()?)
        })
    } else if t == ".inf" || t == ".nan" {
        None
    } else {
        t.parse::<f64>().ok()
    };
    magnitude
        .map(|m| if negative { -m } else { m })
        .and_then(Number::from_f64)
        .map_or_else(
            || Node::Opaque(text.to_owned()),
            |n| Node::Json(Value::Number(n)),
        )
}

// ---------------------------------------------------------------------------------------
// Writing: how our values are spelled.

/// A character YAML can only hold escaped (outside the printable set, the byte order mark),
/// or that a YAML 1.1 reader takes as a line break (NEL, LS, PS).
fn must_escape(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x1f' | '\x7f'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
    )
}

/// Words some YAML reader (1.1 or 1.2) takes for a boolean or null when plain.
fn is_keyword(text: &str) -> bool {
    ["y", "n", "yes", "no", "on", "off", "true", "false", "null"]
        .iter()
        .any(|k| text.eq_ignore_ascii_case(k))
}

/// Whether `text` may be written as a plain scalar (see the module docs); keys also never
/// hold `:`.
fn plain_ok(text: &str, key: bool) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '/' || first == '_')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || " _-./:@+=()~%".contains(c))
        && !text.ends_with([' ', ':'])
        && !text.contains(": ")
        && !(key && text.contains(':'))
        && !is_keyword(text)
}

fn string_scalar(text: &str, key: bool) -> ScalarValue {
    let style = if text.chars().any(must_escape) {
        ScalarStyle::DoubleQuoted
    } else if plain_ok(text, key) {
        ScalarStyle::Plain
    } else {
        ScalarStyle::SingleQuoted
    };
    ScalarValue::with_style(text, style)
}

fn key_scalar(key: &str) -> ScalarValue {
    string_scalar(key, true)
}

/// A float as both PyYAML (which needs a dot, and a sign on the exponent) and YAML 1.2
/// readers read it.
fn float_text(value: f64) -> String {
    let shortest = Number::from_f64(value).map_or_else(|| "0.0".to_owned(), |n| n.to_string());
    let (mantissa, exponent) = match shortest.split_once(['e', 'E']) {
        Some((m, e)) => (m.to_owned(), Some(e.to_owned())),
        None => (shortest, None),
    };
    let mantissa = if mantissa.contains('.') {
        mantissa
    } else {
        format!("{mantissa}.0")
    };
    match exponent {
        Some(e) if e.starts_with(['-', '+']) => format!("{mantissa}e{e}"),
        Some(e) => format!("{mantissa}e+{e}"),
        None => mantissa,
    }
}

/// A scalar value (containers are built by [`build`]).
fn scalar(value: &Value) -> ScalarValue {
    match value {
        Value::Null => ScalarValue::null(),
        Value::Bool(b) => ScalarValue::from(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => ScalarValue::from(i),
            (_, Some(u)) => ScalarValue::parse(u.to_string()),
            _ => ScalarValue::parse(float_text(n.as_f64().unwrap_or_default())),
        },
        Value::String(s) => string_scalar(s, false),
        Value::Array(_) | Value::Object(_) => ScalarValue::null(),
    }
}

/// A value ready to be placed in the tree.
enum Built {
    Scalar(ScalarValue),
    Map(Mapping),
    Seq(Sequence),
}

fn build(value: &Value) -> Built {
    match value {
        Value::Object(map) => {
            let mapping = Mapping::new();
            for (k, v) in map {
                put(&mapping, k, v);
            }
            Built::Map(mapping)
        }
        Value::Array(items) => {
            let sequence = Sequence::new();
            for item in items {
                push(&sequence, item);
            }
            Built::Seq(sequence)
        }
        other => Built::Scalar(scalar(other)),
    }
}

fn put(mapping: &Mapping, key: &str, value: &Value) {
    let key = key_scalar(key);
    match build(value) {
        Built::Scalar(v) => mapping.set(key, v),
        Built::Map(v) => mapping.set(key, v),
        Built::Seq(v) => mapping.set(key, v),
    }
}

fn push(sequence: &Sequence, value: &Value) {
    match build(value) {
        Built::Scalar(v) => sequence.push(v),
        Built::Map(v) => sequence.push(v),
        Built::Seq(v) => sequence.push(v),
    }
}

/// The root mapping (created in an empty document) with `key` set to `value`.
fn put_root(file: &YamlFile, key: &str, value: &Value) -> Option<()> {
    let document = file.ensure_document();
    let key = key_scalar(key);
    let done = match build(value) {
        Built::Scalar(v) => document.set(key, v),
        Built::Map(v) => document.set(key, v),
        Built::Seq(v) => document.set(key, v),
    };
    done.then_some(())
}

/// The mapping at `segments` (the root for none).
fn mapping_at(file: &YamlFile, segments: &[String]) -> Option<Mapping> {
    let mut mapping = file.document()?.as_mapping()?;
    for segment in segments {
        mapping = mapping.get_mapping(key_scalar(segment))?;
    }
    Some(mapping)
}

/// `after` with CRLF line endings where `before` used only CRLF (the lone `\n`s in `after`
/// are then all ours).
fn match_line_endings(before: &str, after: String) -> String {
    let crlf = before.contains("\r\n")
        && !before
            .bytes()
            .enumerate()
            .any(|(i, b)| b == b'\n' && (i == 0 || before.as_bytes()[i - 1] != b'\r'));
    if !crlf {
        return after;
    }
    let mut out = String::with_capacity(after.len() + after.len() / 16);
    let mut previous = '\0';
    for c in after.chars() {
        if c == '\n' && previous != '\r' {
            out.push('\r');
        }
        out.push(c);
        previous = c;
    }
    out
}

/// `after` without a bare `{}` line that `yaml-edit` writes for a root mapping it emptied:
/// a document with no node means the same (an empty mapping) and is what the user had.
fn drop_emptied_root(before: &str, after: String) -> String {
    let lines = |text: &str| {
        text.split_inclusive('\n')
            .filter(|l| l.trim_end() == "{}")
            .count()
    };
    if lines(&after) <= lines(before) {
        return after;
    }
    let mut out = String::with_capacity(after.len());
    let mut dropped = false;
    for line in after.split_inclusive('\n') {
        if !dropped && line.trim_end() == "{}" {
            dropped = true;
            continue;
        }
        out.push_str(line);
    }
    out
}

// ---------------------------------------------------------------------------------------
// The document.

fn same_meaning(a: &Option<Node>, b: &Option<Node>) -> bool {
    let empty = Node::empty_map();
    a.as_ref().unwrap_or(&empty) == b.as_ref().unwrap_or(&empty)
}

impl YamlDoc {
    pub(super) fn parse(text: &str) -> Result<Self, EditError> {
        let root = read(text)?;
        // The editing tree must take the document too, or we could not change it later.
        YamlFile::from_str(text).map_err(|e| match e {
            YamlError::Parse {
                message,
                line,
                column,
            } => EditError::Parse {
                format: FORMAT,
                line: line.unwrap_or(1),
                column: column.unwrap_or(1),
                reason: message,
            },
            other => EditError::Parse {
                format: FORMAT,
                line: 1,
                column: 1,
                reason: other.to_string(),
            },
        })?;
        Ok(Self {
            text: text.to_owned(),
            root,
        })
    }

    fn node(&self, path: &KeyPath) -> Option<&Node> {
        let mut node = self.root.as_ref()?;
        for segment in path.segments() {
            match node {
                Node::Map(map) => node = map.get(segment)?,
                _ => return None,
            }
        }
        Some(node)
    }

    pub(super) fn get(&self, path: &KeyPath) -> Option<Value> {
        self.node(path)?.to_json()
    }

    /// How many leading segments of `path`'s parents exist as mappings; a non-mapping on
    /// the way is an error.
    fn existing_depth(&self, path: &KeyPath) -> Result<usize, EditError> {
        let segments = path.segments();
        let blocked = |depth: usize, node: &Node| EditError::NotAContainer {
            path: path.clone(),
            blocker: KeyPath::new(segments[..depth].to_vec())
                .map_or_else(|_| "the document root".to_owned(), |p| format!("`{p}`")),
            found: node.kind(),
        };
        let mut map = match &self.root {
            None => return Ok(0),
            Some(Node::Map(map)) => map,
            Some(other) => return Err(blocked(0, other)),
        };
        for (depth, segment) in segments[..segments.len() - 1].iter().enumerate() {
            match map.get(segment) {
                None => return Ok(depth),
                Some(Node::Map(next)) => map = next,
                Some(other) => return Err(blocked(depth + 1, other)),
            }
        }
        Ok(segments.len() - 1)
    }

    /// Runs `op` on a fresh editing tree of the text (both parsers under [`guard::edit`]);
    /// keeps the result only when the strict reader reads it back as `expected`.
    fn edit(
        &mut self,
        expected: Option<Node>,
        tidy: fn(&str, String) -> String,
        op: impl FnOnce(&YamlFile) -> Option<()>,
    ) -> Result<(), EditError> {
        let before = self.text.as_str();
        let (text, root) = guard::edit(FORMAT, None, || {
            let file = YamlFile::from_str(before)
                .map_err(|_| mismatch("the document no longer parses for editing"))?;
            op(&file).ok_or(mismatch("the place to edit vanished while editing"))?;
            let text = match_line_endings(before, tidy(before, file.to_string()));
            let root = read(&text).map_err(|_| mismatch("the edited text does not parse"))?;
            Ok((text, root))
        })?;
        if !same_meaning(&root, &expected) {
            return Err(mismatch("the edited text does not mean what was asked"));
        }
        self.text = text;
        self.root = root;
        Ok(())
    }

    pub(super) fn set(&mut self, path: &KeyPath, value: Value) -> Result<SetOutcome, EditError> {
        let existing = self.existing_depth(path)?;
        let segments = path.segments();
        let prior = match self.node(path) {
            None => Prior::Absent,
            Some(node) => Prior::Present(node.to_json().ok_or(EditError::Unrepresentable {
                path: path.clone(),
                format: FORMAT,
                reason: "the value there (an infinity, NaN or an integer past u64) has no JSON \
                         form to record",
            })?),
        };
        let created = (existing..segments.len() - 1)
            .map(|depth| KeyPath::new(segments[..=depth].to_vec()))
            .collect::<Result<Vec<_>, _>>()?;

        let mut expected = self.root.clone().unwrap_or_else(Node::empty_map);
        let mut slot = &mut expected;
        for segment in segments {
            let Node::Map(map) = slot else {
                return Err(mismatch("a mapping on the way is not a mapping"));
            };
            slot = map.entry(segment.clone()).or_insert_with(Node::empty_map);
        }
        *slot = Node::from_json(&value);

        // The first missing segment takes the rest of the path as nested mappings.
        let mut nested = value;
        for segment in segments[existing + 1..].iter().rev() {
            let mut map = Map::new();
            map.insert(segment.clone(), nested);
            nested = Value::Object(map);
        }
        let key = segments[existing].clone();
        let parents = segments[..existing].to_vec();
        self.edit(
            Some(expected),
            |_, after| after,
            move |file| {
                if parents.is_empty() {
                    put_root(file, &key, &nested)
                } else {
                    put(&mapping_at(file, &parents)?, &key, &nested);
                    Some(())
                }
            },
        )?;
        Ok(SetOutcome { prior, created })
    }

    pub(super) fn remove(&mut self, path: &KeyPath) -> Option<Value> {
        let prior = self.node(path)?.to_json();
        let mut expected = self.root.clone();
        let segments = path.segments();
        let mut slot = expected.as_mut()?;
        for segment in &segments[..segments.len() - 1] {
            let Node::Map(map) = slot else { return None };
            slot = map.get_mut(segment)?;
        }
        let Node::Map(map) = slot else { return None };
        map.remove(path.leaf());
        let parents = segments[..segments.len() - 1].to_vec();
        let leaf = key_scalar(path.leaf());
        match self.edit(expected, drop_emptied_root, move |file| {
            mapping_at(file, &parents)?.remove(leaf).map(|_| ())
        }) {
            Ok(()) => prior,
            Err(e) => {
                tracing::warn!(key = %path, error = %e, "a YAML key could not be removed; the document is unchanged");
                None
            }
        }
    }

    fn edit_sequence(
        &mut self,
        path: &KeyPath,
        change: impl FnOnce(&mut Vec<Node>) -> Option<()>,
        op: impl FnOnce(&Sequence) -> Option<()>,
    ) -> Result<(), EditError> {
        let mut expected = self.root.clone();
        let mut slot = expected
            .as_mut()
            .ok_or(mismatch("the array vanished while editing"))?;
        for segment in path.segments() {
            let Node::Map(map) = slot else {
                return Err(mismatch("the array vanished while editing"));
            };
            slot = map
                .get_mut(segment)
                .ok_or(mismatch("the array vanished while editing"))?;
        }
        let Node::Seq(items) = slot else {
            return Err(mismatch("the array vanished while editing"));
        };
        change(items).ok_or(mismatch("the array element vanished while editing"))?;
        let segments = path.segments();
        let parents = segments[..segments.len() - 1].to_vec();
        let leaf = key_scalar(path.leaf());
        self.edit(
            expected,
            |_, after| after,
            move |file| op(&mapping_at(file, &parents)?.get_sequence(leaf)?),
        )
    }

    pub(super) fn push_element(
        &mut self,
        path: &KeyPath,
        element: &Value,
    ) -> Result<(), EditError> {
        self.edit_sequence(
            path,
            |items| {
                items.push(Node::from_json(element));
                Some(())
            },
            |sequence| {
                push(sequence, element);
                Some(())
            },
        )
    }

    pub(super) fn remove_element(&mut self, path: &KeyPath, index: usize) -> bool {
        let outcome = self.edit_sequence(
            path,
            |items| (index < items.len()).then(|| drop(items.remove(index))),
            |sequence| sequence.remove(index).map(|_| ()),
        );
        match outcome {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(key = %path, error = %e, "a YAML array element could not be removed; the document is unchanged");
                false
            }
        }
    }

    pub(super) fn is_empty_container(&self, path: &KeyPath) -> bool {
        match self.node(path) {
            Some(Node::Map(map)) => map.is_empty(),
            Some(Node::Seq(items)) => items.is_empty(),
            _ => false,
        }
    }

    pub(super) fn to_value(&self) -> Option<Value> {
        match &self.root {
            None => Some(Value::Object(Map::new())),
            Some(node) => node.to_json(),
        }
    }

    pub(super) fn is_blank(&self) -> bool {
        // With no key and no scalar in the document, any `#` starts a comment.
        let empty = match &self.root {
            None => true,
            Some(Node::Map(map)) => map.is_empty(),
            Some(_) => false,
        };
        empty && !self.text.contains('#')
    }
}

impl fmt::Display for YamlDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
pub(super) mod spelling {
    //! The writer's and reader's scalar rules, for the unit tests.

    use std::str::FromStr;

    use serde_json::Value;

    /// How we spell `value` as a top-level `k: <value>` line's value.
    pub(in crate::edit) fn written(value: &Value) -> String {
        let file = super::YamlFile::from_str("").expect("an empty document parses");
        super::put_root(&file, "k", value).expect("an empty document takes a key");
        let text = file.to_string();
        text.strip_prefix("k:")
            .map(|rest| {
                rest.trim_start_matches(' ')
                    .trim_end_matches('\n')
                    .to_owned()
            })
            .unwrap_or(text)
    }

    /// What a plain scalar means, or the construct it is refused as.
    pub(in crate::edit) fn plain(text: &str) -> Result<Option<Value>, &'static str> {
        super::plain(text).map(|node| node.to_json())
    }
}
