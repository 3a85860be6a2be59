//! The JSON / JSONC backend of [`SettingsDoc`](super::SettingsDoc), on `jsonc-parser`'s CST.
//!
//! Owns key lookup and in-place edits of a JSON or JSONC tree; it must never print the
//! document from anything but the CST it parsed, so untouched bytes stay as they were.

use std::fmt;

use jsonc_parser::cst::{
    CstContainerNode, CstInputValue, CstLeafNode, CstNode, CstObject, CstRootNode,
};
use jsonc_parser::ParseOptions;
use serde_json::{Map, Value};

use super::{line_column, EditError, KeyPath, Prior, SetOutcome, SettingsFormat};

/// A parsed JSON or JSONC document.
pub(super) struct JsonDoc {
    format: SettingsFormat,
    root: CstRootNode,
}

/// The dialect accepted: strict JSON, or JSON plus comments and trailing commas. The JSON5
/// extras `jsonc-parser` allows by default (hex, single quotes, bare words…) are refused so
/// every accepted number and string reads back through `serde_json`.
fn options(format: SettingsFormat) -> ParseOptions {
    let jsonc = format == SettingsFormat::Jsonc;
    ParseOptions {
        allow_comments: jsonc,
        allow_trailing_commas: jsonc,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

fn kind_of(node: &CstNode) -> &'static str {
    match node {
        CstNode::Container(CstContainerNode::Array(_)) => "array",
        CstNode::Container(CstContainerNode::Object(_)) => "object",
        CstNode::Leaf(CstLeafNode::StringLit(_)) => "string",
        CstNode::Leaf(CstLeafNode::NumberLit(_)) => "number",
        CstNode::Leaf(CstLeafNode::BooleanLit(_)) => "boolean",
        CstNode::Leaf(CstLeafNode::NullKeyword(_)) => "null",
        _ => "non-value",
    }
}

fn node_value(node: &CstNode) -> Option<Value> {
    Some(match node {
        CstNode::Container(CstContainerNode::Object(object)) => {
            let mut map = Map::new();
            for prop in object.properties() {
                let name = prop.name()?.decoded_value().ok()?;
                map.insert(name, node_value(&prop.value()?)?);
            }
            Value::Object(map)
        }
        CstNode::Container(CstContainerNode::Array(array)) => Value::Array(
            array
                .elements()
                .iter()
                .map(node_value)
                .collect::<Option<_>>()?,
        ),
        CstNode::Leaf(CstLeafNode::StringLit(s)) => Value::String(s.decoded_value().ok()?),
        CstNode::Leaf(CstLeafNode::NumberLit(n)) => serde_json::from_str(&n.to_string()).ok()?,
        CstNode::Leaf(CstLeafNode::BooleanLit(b)) => Value::Bool(b.value()),
        CstNode::Leaf(CstLeafNode::NullKeyword(_)) => Value::Null,
        _ => return None,
    })
}

fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

impl JsonDoc {
    pub(super) fn parse(format: SettingsFormat, text: &str) -> Result<Self, EditError> {
        let refuse = |e: jsonc_parser::errors::ParseError| {
            let (line, column) = line_column(text, e.range().start);
            EditError::Parse {
                format,
                line,
                column,
                reason: e.kind().to_string(),
            }
        };
        // jsonc-parser 0.34 does not enforce `allow_comments: false` when it collects comments
        // as CST tokens, so the dialect is checked by a plain AST pass first.
        jsonc_parser::parse_to_ast(text, &Default::default(), &options(format)).map_err(refuse)?;
        let root = CstRootNode::parse(text, &options(format)).map_err(refuse)?;
        Ok(Self { format, root })
    }

    pub(super) fn format(&self) -> SettingsFormat {
        self.format
    }

    /// The node holding the value at `path`, if present.
    fn node(&self, path: &KeyPath) -> Option<CstNode> {
        let mut node = self.root.value()?;
        for segment in path.segments() {
            node = node.as_object()?.get(segment)?.value()?;
        }
        Some(node)
    }

    pub(super) fn get(&self, path: &KeyPath) -> Option<Value> {
        node_value(&self.node(path)?)
    }

    /// Walks to the object that holds `path`'s leaf without changing anything, answering
    /// how many leading segments already exist as objects.
    fn existing_depth(&self, path: &KeyPath) -> Result<usize, EditError> {
        let parents = &path.segments()[..path.segments().len() - 1];
        let blocked = |depth: usize, node: &CstNode| EditError::NotAContainer {
            path: path.clone(),
            blocker: KeyPath::new(path.segments()[..depth].to_vec())
                .map_or_else(|_| "the document root".to_owned(), |p| format!("`{p}`")),
            found: kind_of(node),
        };
        let Some(root) = self.root.value() else {
            return Ok(0);
        };
        let Some(mut object) = root.as_object() else {
            return Err(blocked(0, &root));
        };
        for (depth, segment) in parents.iter().enumerate() {
            let Some(prop) = object.get(segment) else {
                return Ok(depth);
            };
            let Some(value) = prop.value() else {
                return Ok(depth);
            };
            match value.as_object() {
                Some(next) => object = next,
                None => return Err(blocked(depth + 1, &value)),
            }
        }
        Ok(parents.len())
    }

    pub(super) fn set(&mut self, path: &KeyPath, value: Value) -> Result<SetOutcome, EditError> {
        let existing = self.existing_depth(path)?;
        let mut object: CstObject = self.root.object_value_or_set();
        let mut created = Vec::new();
        let segments = path.segments();
        for (depth, segment) in segments[..segments.len() - 1].iter().enumerate() {
            object = if depth < existing {
                object.object_value(segment)
            } else {
                created.push(KeyPath::new(segments[..=depth].to_vec())?);
                Some(object.object_value_or_set(segment))
            }
            .ok_or(EditError::ReadBackMismatch {
                format: self.format,
                detail: "an intermediate object vanished while editing",
            })?;
        }
        let leaf = path.leaf();
        let prior = match object.get(leaf) {
            Some(prop) => {
                let prior = prop.value().and_then(|v| node_value(&v));
                prop.set_value(input(&value));
                prior.map_or(Prior::Absent, Prior::Present)
            }
            None => {
                object.append(leaf, input(&value));
                Prior::Absent
            }
        };
        Ok(SetOutcome { prior, created })
    }

    pub(super) fn remove(&mut self, path: &KeyPath) -> Option<Value> {
        let mut object = self.root.object_value()?;
        let segments = path.segments();
        for segment in &segments[..segments.len() - 1] {
            object = object.object_value(segment)?;
        }
        let prop = object.get(path.leaf())?;
        let prior = prop.value().and_then(|v| node_value(&v));
        prop.remove();
        prior
    }

    pub(super) fn push_element(
        &mut self,
        path: &KeyPath,
        element: &Value,
    ) -> Result<(), EditError> {
        let array =
            self.node(path)
                .and_then(|n| n.as_array())
                .ok_or(EditError::ReadBackMismatch {
                    format: self.format,
                    detail: "the array vanished while editing",
                })?;
        array.append(input(element));
        Ok(())
    }

    pub(super) fn remove_element(&mut self, path: &KeyPath, index: usize) -> bool {
        let Some(element) = self
            .node(path)
            .and_then(|n| n.as_array())
            .and_then(|a| a.elements().into_iter().nth(index))
        else {
            return false;
        };
        element.remove();
        true
    }

    pub(super) fn is_empty_container(&self, path: &KeyPath) -> bool {
        match self.node(path) {
            Some(CstNode::Container(CstContainerNode::Object(object))) => {
                object.properties().is_empty() && !object.children().iter().any(CstNode::is_comment)
            }
            Some(CstNode::Container(CstContainerNode::Array(array))) => {
                array.elements().is_empty() && !array.children().iter().any(CstNode::is_comment)
            }
            _ => false,
        }
    }

    pub(super) fn to_value(&self) -> Option<Value> {
        match self.root.value() {
            Some(node) => node_value(&node),
            None => Some(Value::Object(Map::new())),
        }
    }

    pub(super) fn is_blank(&self) -> bool {
        let has_comment = self.root.children().iter().any(CstNode::is_comment);
        let empty_value = match self.root.value() {
            None => true,
            Some(CstNode::Container(CstContainerNode::Object(object))) => {
                object.properties().is_empty() && !object.children().iter().any(CstNode::is_comment)
            }
            Some(_) => false,
        };
        empty_value && !has_comment
    }
}

impl fmt::Display for JsonDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.root, f)
    }
}
