//! Unit tests of the editors on realistic settings files, one module per format.

mod json;
mod jsonc;
mod toml;
mod yaml;

use serde_json::Value;

use super::{Applied, EditPlan, KeyEdit, KeyPath, SettingsFormat};

fn path(text: &str) -> KeyPath {
    text.parse().expect("valid key path")
}

fn plan(format: SettingsFormat, edits: &[(&str, Value)]) -> EditPlan {
    EditPlan::new(
        format,
        edits
            .iter()
            .map(|(p, v)| KeyEdit {
                path: path(p),
                value: v.clone(),
            })
            .collect(),
    )
    .expect("valid plan")
}

fn apply(format: SettingsFormat, text: Option<&str>, edits: &[(&str, Value)]) -> Applied {
    plan(format, edits)
        .apply(text, |_, _| false)
        .expect("plan applies")
}
