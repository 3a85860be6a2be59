//! Validating real sidecar traffic against the JSON Schema `devint sidecar --schema` prints
//! (draft 2020-12, with the `jsonschema` crate). Shared by the sidecar's own tests and the
//! `devint` command's host tests (which include this file by path), so both check traffic
//! the same way.
#![allow(dead_code)]

use std::collections::HashMap;

use serde_json::{json, Value};

/// Validators for the schema's definitions.
pub struct SchemaCheck {
    document: Value,
    validators: std::cell::RefCell<HashMap<String, std::rc::Rc<jsonschema::Validator>>>,
}

impl Default for SchemaCheck {
    fn default() -> Self {
        SchemaCheck::new()
    }
}

impl SchemaCheck {
    /// Load the schema the sidecar prints.
    pub fn new() -> SchemaCheck {
        let document: Value =
            serde_json::from_str(devint_sidecar::SCHEMA).expect("the schema is JSON");
        jsonschema::draft202012::meta::validate(&document)
            .unwrap_or_else(|e| panic!("the schema is not a valid draft 2020-12 schema: {e}"));
        SchemaCheck {
            document,
            validators: Default::default(),
        }
    }

    /// The schema document.
    pub fn document(&self) -> &Value {
        &self.document
    }

    fn validator(&self, def: &str) -> std::rc::Rc<jsonschema::Validator> {
        if let Some(v) = self.validators.borrow().get(def) {
            return v.clone();
        }
        assert!(
            self.document["$defs"].get(def).is_some(),
            "the schema has no definition {def}"
        );
        let mut wrapper = self.document.clone();
        let object = wrapper.as_object_mut().expect("an object");
        object.remove("oneOf");
        object.insert("$ref".into(), json!(format!("#/$defs/{def}")));
        let validator = std::rc::Rc::new(
            jsonschema::draft202012::new(&wrapper)
                .unwrap_or_else(|e| panic!("cannot compile {def}: {e}")),
        );
        self.validators
            .borrow_mut()
            .insert(def.to_owned(), validator.clone());
        validator
    }

    /// Check `value` against `#/$defs/<def>`; every violation, in words.
    pub fn check(&self, def: &str, value: &Value) -> Result<(), String> {
        let validator = self.validator(def);
        let problems: Vec<String> = validator
            .iter_errors(value)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!("{def}: {}\n  in {value}", problems.join("; ")))
        }
    }

    /// The definition name of a method's params or result.
    pub fn def_of(method: &str, part: &str) -> String {
        format!("{}.{part}", method.replace('/', "_"))
    }

    /// Check a transcript: every host line (`true`) is a request, every sidecar line
    /// (`false`) a sidecar message, and every result matches the result schema of the
    /// method whose request it answers. Returns how many lines were checked.
    pub fn check_transcript<'a>(
        &self,
        lines: impl IntoIterator<Item = (bool, &'a str)>,
    ) -> Result<usize, String> {
        let mut methods: HashMap<String, String> = HashMap::new();
        let mut checked = 0;
        for (from_host, line) in lines {
            let value: Value =
                serde_json::from_str(line).map_err(|e| format!("not JSON ({e}): {line}"))?;
            if from_host {
                self.check("request", &value)?;
                methods.insert(
                    value["id"].to_string(),
                    value["method"].as_str().unwrap_or_default().to_owned(),
                );
            } else {
                self.check("sidecar_message", &value)?;
                if let Some(result) = value.get("result") {
                    let method = methods
                        .get(&value["id"].to_string())
                        .ok_or_else(|| format!("a response to no request: {line}"))?;
                    self.check(&SchemaCheck::def_of(method, "result"), result)?;
                }
            }
            checked += 1;
        }
        Ok(checked)
    }
}
