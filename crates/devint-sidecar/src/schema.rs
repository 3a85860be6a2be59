//! The JSON Schema (draft 2020-12) of every message of `devint.sidecar.v1`, as printed by
//! `devint sidecar --schema`.
//!
//! This module owns only the schema's text (`schema/devint.sidecar.v1.json`); the tests
//! validate real traffic against it, so it cannot drift from what the sidecar sends.

/// The schema document.
pub const SCHEMA: &str = include_str!("../schema/devint.sidecar.v1.json");

#[cfg(test)]
mod tests {
    #[test]
    fn the_schema_is_one_json_document_of_draft_2020_12() {
        let v: serde_json::Value = serde_json::from_str(super::SCHEMA).expect("valid JSON");
        assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
    }
}
