//! Tool schemas in standard JSON Schema (draft 2020-12).
//!
//! Invariant: every schema a client sees (inputs and outputs) uses only keywords and
//! `format` values the standard defines. schemars describes Rust number types with
//! OpenAPI-style formats (`uint32`, `uint`, `int64`, `double`, ...) that strict validators
//! warn about and then ignore; here each such format becomes the bounds it stood for
//! (`minimum`, and `maximum` where a JSON number can carry it exactly), and a tighter bound
//! the type declares (`#[schemars(range(..))]`) is kept.
//!
//! In argument schemas an optional property is one that may be left out, so it is not also
//! declared nullable: `type: ["integer", "null"]` is a union that simple clients do not
//! understand (they then send numbers as strings), and `null` adds nothing a client needs.
//! The server still accepts an explicit `null`.

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::{
    JsonSchema, Schema,
    generate::SchemaSettings,
    transform::{RecursiveTransform, Transform},
};
use serde_json::{Value, json};

/// The `format` values JSON Schema 2020-12 defines (Validation, section 7.3).
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Schema of a tool's arguments: what `T` deserializes from, root `type: object`, without the
/// wrapper's title and description (noise to a model).
pub fn input_schema<T: JsonSchema>() -> Arc<JsonObject> {
    let settings =
        SchemaSettings::draft2020_12().with_transform(RecursiveTransform(OptionalIsNotNull));
    let object = root_schema::<T>(settings);
    assert_eq!(
        object.get("type"),
        Some(&json!("object")),
        "tool arguments have object schemas"
    );
    Arc::new(object)
}

/// Schema of a tool's structured result: what `T` serializes to.
pub fn output_schema<T: JsonSchema>() -> Arc<JsonObject> {
    Arc::new(root_schema::<T>(
        SchemaSettings::draft2020_12().for_serialize(),
    ))
}

fn root_schema<T: JsonSchema>(settings: SchemaSettings) -> JsonObject {
    let schema = settings
        .with_transform(RecursiveTransform(StandardFormats))
        .into_generator()
        .into_root_schema_for::<T>();
    let Value::Object(mut object) = schema.to_value() else {
        unreachable!("a root schema of a Rust type is an object")
    };
    object.remove("title");
    object.remove("description");
    object
}

/// Replaces a non-standard `format` with the bounds it implied, and drops it.
#[derive(Clone, Copy)]
struct StandardFormats;

impl Transform for StandardFormats {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let Some(Value::String(format)) = object.get("format") else {
            return;
        };
        if STANDARD_FORMATS.contains(&format.as_str()) {
            return;
        }
        if let Some((min, max)) = integer_bounds(format) {
            tighten(object, "minimum", min, |new, old| new > old);
            if let Some(max) = max {
                tighten(object, "maximum", max, |new, old| new < old);
            }
        }
        // Floating-point formats (`float`, `double`) add nothing `type: number` lacks.
        object.remove("format");
    }
}

/// Drops `null` from the schemas of properties that are not `required`.
#[derive(Clone, Copy)]
struct OptionalIsNotNull;

impl Transform for OptionalIsNotNull {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let required: Vec<String> = match object.get("required") {
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(|n| n.as_str().map(String::from))
                .collect(),
            _ => Vec::new(),
        };
        let Some(Value::Object(properties)) = object.get_mut("properties") else {
            return;
        };
        for (name, property) in properties.iter_mut() {
            if let Value::Object(property) = property
                && !required.contains(name)
            {
                strip_null(property);
            }
        }
    }
}

/// `type: [T, "null"]` becomes `type: T`; `anyOf: [S, {type: null}]` becomes `S` (keeping the
/// property's own keywords, such as its description).
fn strip_null(property: &mut JsonObject) {
    if let Some(Value::Array(types)) = property.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            property.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(variants)) = property.get("anyOf") {
        let not_null: Vec<&Value> = variants
            .iter()
            .filter(|v| **v != json!({"type": "null"}))
            .collect();
        if let [Value::Object(only)] = not_null.as_slice() {
            let only = only.clone();
            property.remove("anyOf");
            for (key, value) in only {
                property.entry(key).or_insert(value);
            }
        }
    }
}

/// The range a schemars integer format stands for. The upper bound is given only where a
/// JSON number holds it exactly (up to 2^53): larger ones would be rounded by clients.
fn integer_bounds(format: &str) -> Option<(i64, Option<i64>)> {
    Some(match format {
        "uint8" => (0, Some(u8::MAX.into())),
        "uint16" => (0, Some(u16::MAX.into())),
        "uint32" => (0, Some(u32::MAX.into())),
        "uint64" | "uint" | "uint128" => (0, None),
        "int8" => (i8::MIN.into(), Some(i8::MAX.into())),
        "int16" => (i16::MIN.into(), Some(i16::MAX.into())),
        "int32" => (i32::MIN.into(), Some(i32::MAX.into())),
        _ => return None,
    })
}

/// Sets `key` to `bound` unless the schema already has a bound that `is_tighter` rejects.
fn tighten(object: &mut JsonObject, key: &str, bound: i64, is_tighter: fn(f64, f64) -> bool) {
    let existing = object.get(key).and_then(Value::as_f64);
    if existing.is_none_or(|old| is_tighter(bound as f64, old)) {
        object.insert(key.into(), json!(bound));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(schemars::JsonSchema, serde::Serialize)]
    #[allow(dead_code)]
    struct Numbers {
        count: usize,
        line: u32,
        #[schemars(range(min = 1, max = 200))]
        limit: Option<u32>,
        offset: i64,
        small: i16,
        ratio: f64,
        nested: Vec<Inner>,
    }

    #[derive(schemars::JsonSchema, serde::Serialize)]
    struct Inner {
        column: u32,
    }

    #[test]
    fn formats_become_bounds_and_declared_ranges_stay() {
        let schema = input_schema::<Numbers>();
        let props = &schema["properties"];
        assert_eq!(props["count"], json!({"type": "integer", "minimum": 0}));
        assert_eq!(
            props["line"],
            json!({"type": "integer", "minimum": 0, "maximum": 4294967295u32})
        );
        assert_eq!(
            props["limit"],
            json!({"type": "integer", "minimum": 1, "maximum": 200})
        );
        assert_eq!(props["offset"], json!({"type": "integer"}));
        assert_eq!(
            props["small"],
            json!({"type": "integer", "minimum": -32768, "maximum": 32767})
        );
        assert_eq!(props["ratio"], json!({"type": "number"}));
        assert_eq!(
            schema["$defs"]["Inner"]["properties"]["column"],
            json!({"type": "integer", "minimum": 0, "maximum": 4294967295u32})
        );
        assert!(!schema.contains_key("title"));
    }

    #[test]
    fn output_schemas_are_standard_too_and_keep_null() {
        let schema = output_schema::<Numbers>();
        assert!(
            !serde_json::to_string(&*schema)
                .unwrap()
                .contains("\"format\"")
        );
        // A result always writes its `Option` fields, as `null` when empty.
        assert_eq!(
            schema["properties"]["limit"],
            json!({"type": ["integer", "null"], "minimum": 1, "maximum": 200})
        );
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Choice {
        A,
        B,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Optionals {
        /// A name.
        needed: Option<String>,
        /// A choice.
        choice: Option<Choice>,
        names: Option<Vec<String>>,
    }

    #[test]
    fn optional_arguments_are_not_nullable() {
        let mut schema = input_schema::<Optionals>().as_ref().clone();
        let props = schema.remove("properties").unwrap();
        assert_eq!(
            props,
            json!({
                "needed": {"type": "string", "description": "A name."},
                "choice": {"$ref": "#/$defs/Choice", "description": "A choice."},
                "names": {"type": "array", "items": {"type": "string"}},
            })
        );
    }
}
