//! The TOML backend of [`SettingsDoc`](super::SettingsDoc), on `toml_edit`.
//!
//! Owns key lookup and in-place edits of a TOML document; it must never print the document
//! from anything but the `toml_edit` tree it parsed, and it keeps the decor (spacing and
//! trailing comment) of a value it replaces.

use std::fmt;

use serde_json::{Map, Number, Value};
use toml_edit::{Array, Decor, DocumentMut, InlineTable, Item, Table, TableLike};

use super::{line_column, EditError, KeyPath, Prior, SetOutcome, SettingsFormat};

/// A parsed TOML document.
pub(super) struct TomlDoc {
    doc: DocumentMut,
}

fn scalar_value(value: &toml_edit::Value) -> Value {
    match value {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => Value::from(*i.value()),
        toml_edit::Value::Float(f) => Number::from_f64(*f.value())
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(f.value().to_string())),
        toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Value::String(d.value().to_string()),
        toml_edit::Value::Array(a) => Value::Array(a.iter().map(scalar_value).collect()),
        toml_edit::Value::InlineTable(t) => table_value(t),
    }
}

fn table_value(table: &dyn TableLike) -> Value {
    let mut map = Map::new();
    for (key, item) in table.iter() {
        if let Some(value) = item_value(item) {
            map.insert(key.to_owned(), value);
        }
    }
    Value::Object(map)
}

fn item_value(item: &Item) -> Option<Value> {
    match item {
        Item::None => None,
        Item::Value(v) => Some(scalar_value(v)),
        Item::Table(t) => Some(table_value(t)),
        Item::ArrayOfTables(a) => Some(Value::Array(a.iter().map(|t| table_value(t)).collect())),
    }
}

fn kind_of(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Value(toml_edit::Value::Array(_)) => "array",
        Item::Value(toml_edit::Value::InlineTable(_)) | Item::Table(_) => "table",
        Item::Value(_) => "scalar",
        Item::ArrayOfTables(_) => "array of tables",
    }
}

/// Checks that `value` has a TOML form, before anything is changed.
fn representable(path: &KeyPath, value: &Value) -> Result<(), EditError> {
    let refuse = |reason| EditError::Unrepresentable {
        path: path.clone(),
        format: SettingsFormat::Toml,
        reason,
    };
    match value {
        Value::Null => Err(refuse("TOML has no null")),
        Value::Number(n) if n.as_i64().is_none() && !n.is_f64() => {
            Err(refuse("TOML integers stop at i64::MAX"))
        }
        Value::Array(items) => items.iter().try_for_each(|v| representable(path, v)),
        Value::Object(map) => map.values().try_for_each(|v| representable(path, v)),
        _ => Ok(()),
    }
}

/// The inline form of a (representable) value.
fn inline(value: &Value) -> toml_edit::Value {
    match value {
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64().unwrap_or_default().into(),
        },
        Value::String(s) => s.as_str().into(),
        Value::Array(items) => toml_edit::Value::Array(items.iter().map(inline).collect::<Array>()),
        Value::Object(map) => toml_edit::Value::InlineTable(
            map.iter()
                .map(|(k, v)| (k.as_str(), inline(v)))
                .collect::<InlineTable>(),
        ),
        Value::Null => unreachable!("refused by `representable`"),
    }
}

/// The item to store under a standard table: objects become `[tables]`, the rest inline.
fn block(value: &Value) -> Item {
    match value {
        Value::Object(map) => {
            let mut table = Table::new();
            for (k, v) in map {
                table.insert(k, block(v));
            }
            Item::Table(table)
        }
        other => Item::Value(inline(other)),
    }
}

/// The comment lines of a decor prefix (whitespace-only prefixes carry nothing to keep).
fn comment_prefix(decor: &Decor) -> Option<String> {
    decor
        .prefix()
        .and_then(|raw| raw.as_str())
        .filter(|text| text.contains('#'))
        .map(str::to_owned)
}

/// Comments written above `table` and the tables inside it, with their positions.
fn table_comments(table: &Table, out: &mut Vec<(isize, String)>) {
    if let Some(comment) = comment_prefix(table.decor()) {
        out.push((table.position().unwrap_or(isize::MAX), comment));
    }
    for (_, child) in table.iter() {
        item_comments(child, out);
    }
}

fn item_comments(item: &Item, out: &mut Vec<(isize, String)>) {
    match item {
        Item::Table(table) => table_comments(table, out),
        Item::ArrayOfTables(array) => array.iter().for_each(|t| table_comments(t, out)),
        _ => {}
    }
}

/// Visits every standard table below `table`, depth first.
fn visit_tables(table: &mut Table, f: &mut dyn FnMut(&mut Table)) {
    for (_, child) in table.iter_mut() {
        match child {
            Item::Table(child) => {
                f(child);
                visit_tables(child, f);
            }
            Item::ArrayOfTables(array) => {
                for child in array.iter_mut() {
                    f(child);
                    visit_tables(child, f);
                }
            }
            _ => {}
        }
    }
}

fn min_position_after(table: &Table, after: isize, best: &mut Option<isize>) {
    for (_, child) in table.iter() {
        let tables: Vec<&Table> = match child {
            Item::Table(t) => vec![t],
            Item::ArrayOfTables(a) => a.iter().collect(),
            _ => continue,
        };
        for t in tables {
            if let Some(p) = t.position().filter(|p| *p > after) {
                *best = Some(best.map_or(p, |b| b.min(p)));
            }
            min_position_after(t, after, best);
        }
    }
}

impl TomlDoc {
    pub(super) fn parse(text: &str) -> Result<Self, EditError> {
        let doc = text.parse::<DocumentMut>().map_err(|e| {
            let (line, column) = line_column(text, e.span().map_or(0, |s| s.start));
            EditError::Parse {
                format: SettingsFormat::Toml,
                line,
                column,
                reason: e.message().to_owned(),
            }
        })?;
        Ok(Self { doc })
    }

    fn item(&self, path: &KeyPath) -> Option<&Item> {
        let mut table: &dyn TableLike = self.doc.as_table();
        let segments = path.segments();
        for segment in &segments[..segments.len() - 1] {
            table = table.get(segment)?.as_table_like()?;
        }
        table.get(path.leaf())
    }

    pub(super) fn get(&self, path: &KeyPath) -> Option<Value> {
        item_value(self.item(path)?)
    }

    fn existing_depth(&self, path: &KeyPath) -> Result<usize, EditError> {
        let mut table: &dyn TableLike = self.doc.as_table();
        let segments = path.segments();
        for (depth, segment) in segments[..segments.len() - 1].iter().enumerate() {
            let Some(item) = table.get(segment) else {
                return Ok(depth);
            };
            table = item
                .as_table_like()
                .ok_or_else(|| EditError::NotAContainer {
                    path: path.clone(),
                    blocker: KeyPath::new(segments[..=depth].to_vec())
                        .map_or_else(|_| "the document root".to_owned(), |p| format!("`{p}`")),
                    found: kind_of(item),
                })?;
        }
        Ok(segments.len() - 1)
    }

    pub(super) fn set(&mut self, path: &KeyPath, value: Value) -> Result<SetOutcome, EditError> {
        representable(path, &value)?;
        let existing = self.existing_depth(path)?;
        let segments = path.segments();
        let mut created = Vec::new();
        let mut parent_inline = false;
        let mut parent_dotted = false;
        let mut table: &mut dyn TableLike = self.doc.as_table_mut();
        for (depth, segment) in segments[..segments.len() - 1].iter().enumerate() {
            if depth >= existing {
                created.push(KeyPath::new(segments[..=depth].to_vec())?);
                let item = if parent_inline {
                    Item::Value(toml_edit::Value::InlineTable(InlineTable::new()))
                } else {
                    let mut new = Table::new();
                    new.set_implicit(true);
                    new.set_dotted(parent_dotted);
                    Item::Table(new)
                };
                table.insert(segment, item);
            }
            let item = table.get_mut(segment).ok_or(EditError::ReadBackMismatch {
                format: SettingsFormat::Toml,
                detail: "an intermediate table vanished while editing",
            })?;
            parent_inline = matches!(item, Item::Value(_));
            parent_dotted = matches!(item, Item::Table(t) if t.is_dotted());
            table = item
                .as_table_like_mut()
                .ok_or(EditError::ReadBackMismatch {
                    format: SettingsFormat::Toml,
                    detail: "an intermediate table is not a table",
                })?;
        }
        let leaf = path.leaf();
        let mut orphans = Vec::new();
        let prior = table.get(leaf).and_then(item_value);
        let inline_child = parent_inline || parent_dotted;
        match table.get_mut(leaf) {
            Some(Item::Value(old)) => {
                // Keep the old value's spacing and trailing comment.
                let decor = old.decor().clone();
                *old = inline(&value);
                *old.decor_mut() = decor;
            }
            Some(slot) => {
                item_comments(slot, &mut orphans);
                *slot = if inline_child {
                    Item::Value(inline(&value))
                } else {
                    block(&value)
                };
            }
            None => {
                let item = if inline_child {
                    Item::Value(inline(&value))
                } else {
                    block(&value)
                };
                table.insert(leaf, item);
            }
        }
        self.rehome(orphans);
        Ok(SetOutcome {
            prior: prior.map_or(Prior::Absent, Prior::Present),
            created,
        })
    }

    /// The (non-inline) table holding `path`'s leaf, with the position of the nearest
    /// table that has a header (dotted tables are written inside their parent's body).
    fn parent_table(&self, path: &KeyPath) -> Option<(&Table, isize)> {
        let mut table = self.doc.as_table();
        let mut anchor = table.position().unwrap_or(-1);
        let segments = path.segments();
        for segment in &segments[..segments.len() - 1] {
            table = table.get(segment)?.as_table()?;
            if !table.is_dotted() {
                anchor = table.position().unwrap_or(anchor);
            }
        }
        Some((table, anchor))
    }

    pub(super) fn remove(&mut self, path: &KeyPath) -> Option<Value> {
        let leaf = path.leaf();
        // Comments written above what we remove belong to the user: find them first.
        let mut orphans = Vec::new();
        let mut heir = None;
        if let Some((parent, anchor)) = self.parent_table(path) {
            if let Some((key, item)) = parent.get_key_value(leaf) {
                item_comments(item, &mut orphans);
                if let (Item::Value(_), Some(comment)) = (item, comment_prefix(key.leaf_decor())) {
                    let values: Vec<&str> = parent
                        .iter()
                        .filter(|(_, i)| i.is_value())
                        .map(|(k, _)| k)
                        .collect();
                    let next = values
                        .iter()
                        .position(|k| *k == leaf)
                        .and_then(|i| values.get(i + 1));
                    match next {
                        Some(next) => heir = Some((next.to_string(), comment)),
                        None => orphans.push((anchor, comment)),
                    }
                }
            }
        }
        let mut table: &mut dyn TableLike = self.doc.as_table_mut();
        let segments = path.segments();
        for segment in &segments[..segments.len() - 1] {
            table = table.get_mut(segment)?.as_table_like_mut()?;
        }
        let removed = table.remove(leaf);
        if let Some((next, comment)) = heir {
            if let Some(mut key) = table.key_mut(&next) {
                let decor = key.leaf_decor_mut();
                let rest = decor
                    .prefix()
                    .and_then(|r| r.as_str())
                    .unwrap_or("")
                    .to_owned();
                decor.set_prefix(comment + &rest);
            }
        }
        self.rehome(orphans);
        removed.as_ref().and_then(item_value)
    }

    /// Puts orphaned comments above the next table in document order, or at the end.
    fn rehome(&mut self, mut orphans: Vec<(isize, String)>) {
        orphans.sort_by_key(|(position, _)| *position);
        for (position, comment) in orphans.into_iter().rev() {
            let mut target = None;
            min_position_after(self.doc.as_table(), position, &mut target);
            match target {
                Some(target) => visit_tables(self.doc.as_table_mut(), &mut |t| {
                    if t.position() == Some(target) {
                        let rest = t
                            .decor()
                            .prefix()
                            .and_then(|r| r.as_str())
                            .unwrap_or("")
                            .to_owned();
                        t.decor_mut().set_prefix(comment.clone() + &rest);
                    }
                }),
                None => {
                    let rest = self.doc.trailing().as_str().unwrap_or("").to_owned();
                    self.doc.set_trailing(comment + &rest);
                }
            }
        }
    }

    fn item_mut(&mut self, path: &KeyPath) -> Option<&mut Item> {
        let mut table: &mut dyn TableLike = self.doc.as_table_mut();
        let segments = path.segments();
        for segment in &segments[..segments.len() - 1] {
            table = table.get_mut(segment)?.as_table_like_mut()?;
        }
        table.get_mut(path.leaf())
    }

    pub(super) fn push_element(
        &mut self,
        path: &KeyPath,
        element: &Value,
    ) -> Result<(), EditError> {
        representable(path, element)?;
        match self.item_mut(path) {
            Some(Item::Value(toml_edit::Value::Array(array))) => {
                array.push(inline(element));
                Ok(())
            }
            Some(Item::ArrayOfTables(tables)) => match block(element) {
                Item::Table(table) => {
                    tables.push(table);
                    Ok(())
                }
                _ => Err(EditError::Unrepresentable {
                    path: path.clone(),
                    format: SettingsFormat::Toml,
                    reason: "an array of tables only takes tables",
                }),
            },
            _ => Err(EditError::ReadBackMismatch {
                format: SettingsFormat::Toml,
                detail: "the array vanished while editing",
            }),
        }
    }

    pub(super) fn remove_element(&mut self, path: &KeyPath, index: usize) -> bool {
        match self.item_mut(path) {
            Some(Item::Value(toml_edit::Value::Array(array))) if index < array.len() => {
                array.remove(index);
                true
            }
            Some(Item::ArrayOfTables(tables)) if index < tables.len() => {
                tables.remove(index);
                true
            }
            _ => false,
        }
    }

    pub(super) fn is_empty_container(&self, path: &KeyPath) -> bool {
        match self.item(path) {
            Some(Item::Value(toml_edit::Value::Array(array))) => array.is_empty(),
            Some(Item::ArrayOfTables(tables)) => tables.is_empty(),
            Some(item) => item.as_table_like().is_some_and(TableLike::is_empty),
            None => false,
        }
    }

    pub(super) fn to_value(&self) -> Option<Value> {
        Some(table_value(self.doc.as_table()))
    }

    pub(super) fn is_blank(&self) -> bool {
        self.doc.to_string().trim().is_empty()
    }
}

impl fmt::Display for TomlDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.doc, f)
    }
}
