//! MCP tool schemas (JSON Schema) turned into the OpenAPI-3.0 subset Gemini's function
//! declarations accept, reporting what had to be dropped instead of failing the request.
//!
//! Conversions: local `$ref`s (`#/$defs/…`, `#/definitions/…`) are inlined (a recursive one
//! becomes an untyped value); `type: [T, "null"]` becomes `type: T, nullable: true`; several
//! types and `oneOf` become `anyOf`; `const` becomes a one-value `enum`; an `allOf` of objects is
//! merged; `required` keeps only declared properties; `enum`s of non-strings are dropped (Gemini
//! takes string enums only). Keywords outside the subset are dropped; the ones that change what
//! a valid argument is (`additionalProperties: false`, `pattern` on non-strings, `not`, …) are
//! named in the report. Limits: <https://ai.google.dev/api/caching#Schema>.

use serde_json::{Map, Value, json};

/// Keywords Gemini's `Schema` accepts as they are.
const KEPT: [&str; 15] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
];

/// Keywords dropped silently: annotations and defaults that do not change validity.
const ANNOTATIONS: [&str; 9] = [
    "$schema",
    "$id",
    "$comment",
    "$defs",
    "definitions",
    "examples",
    "default",
    "readOnly",
    "writeOnly",
];

/// How deep `$ref`s are inlined before giving up.
const MAX_DEPTH: usize = 16;

/// A converted schema and what could not be expressed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Converted {
    pub schema: Value,
    /// One line per dropped constraint, with its location (`properties.x.additionalProperties`).
    pub dropped: Vec<String>,
}

/// Converts a tool's parameter schema.
pub(crate) fn convert(schema: &Value) -> Converted {
    let mut converter = Converter {
        root: schema,
        dropped: Vec::new(),
    };
    let mut out = converter.node(schema, "", 0, &mut Vec::new());
    if out.get("type").is_none() {
        out.insert("type".into(), json!("object"));
        out.entry("properties").or_insert_with(|| json!({}));
    }
    Converted {
        schema: Value::Object(out),
        dropped: converter.dropped,
    }
}

struct Converter<'a> {
    root: &'a Value,
    dropped: Vec<String>,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl<'a> Converter<'a> {
    fn drop(&mut self, path: &str, key: &str, why: &str) {
        self.dropped.push(format!("{}: {why}", join(path, key)));
    }

    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer)
    }

    fn node(
        &mut self,
        schema: &Value,
        path: &str,
        depth: usize,
        refs: &mut Vec<String>,
    ) -> Map<String, Value> {
        let Value::Object(map) = schema else {
            // `true` / `{}`: any value.
            return Map::new();
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if refs.iter().any(|r| r == reference) || depth >= MAX_DEPTH {
                self.drop(
                    path,
                    "$ref",
                    "a recursive reference; any value is accepted there",
                );
                return Map::new();
            }
            let Some(target) = self.resolve(reference) else {
                self.drop(
                    path,
                    "$ref",
                    "a reference outside the schema; any value is accepted there",
                );
                return Map::new();
            };
            refs.push(reference.to_string());
            let mut out = self.node(target, path, depth + 1, refs);
            refs.pop();
            if let Some(description) = map.get("description") {
                out.insert("description".into(), description.clone());
            }
            return out;
        }
        let mut out = Map::new();
        for (key, value) in map {
            match key.as_str() {
                "type" => self.types(value, path, &mut out),
                "enum" => self.enumeration(value, path, &mut out),
                "const" => match value {
                    Value::String(_) => {
                        out.insert("enum".into(), json!([value]));
                    }
                    _ => self.drop(path, key, "a non-string constant"),
                },
                "properties" => {
                    let mut properties = Map::new();
                    for (name, property) in value.as_object().into_iter().flatten() {
                        let at = join(path, &format!("properties.{name}"));
                        properties.insert(
                            name.clone(),
                            Value::Object(self.node(property, &at, depth + 1, refs)),
                        );
                    }
                    out.insert("properties".into(), Value::Object(properties));
                }
                "items" => {
                    let at = join(path, "items");
                    out.insert(
                        "items".into(),
                        Value::Object(self.node(value, &at, depth + 1, refs)),
                    );
                }
                "anyOf" | "oneOf" => {
                    let options: Vec<Value> = value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .enumerate()
                        .map(|(i, option)| {
                            let at = join(path, &format!("{key}[{i}]"));
                            Value::Object(self.node(option, &at, depth + 1, refs))
                        })
                        .collect();
                    out.insert("anyOf".into(), Value::Array(options));
                }
                "allOf" => {
                    for (i, part) in value.as_array().into_iter().flatten().enumerate() {
                        let at = join(path, &format!("allOf[{i}]"));
                        let part = self.node(part, &at, depth + 1, refs);
                        merge(&mut out, part);
                    }
                }
                "required" | "$ref" => {}
                "additionalProperties" if value == &json!(true) => {}
                "additionalProperties" => {
                    self.drop(path, key, "Gemini cannot restrict or type extra properties")
                }
                k if KEPT.contains(&k) => {
                    out.insert(key.clone(), value.clone());
                }
                k if ANNOTATIONS.contains(&k) => {}
                _ => self.drop(path, key, "not supported by Gemini"),
            }
        }
        if let Some(required) = map.get("required").and_then(Value::as_array) {
            let declared = out.get("properties").and_then(Value::as_object);
            let kept: Vec<Value> = required
                .iter()
                .filter(|r| {
                    r.as_str()
                        .is_some_and(|name| declared.is_some_and(|d| d.contains_key(name)))
                })
                .cloned()
                .collect();
            if !kept.is_empty() {
                out.insert("required".into(), Value::Array(kept));
            }
        }
        if out.get("type").and_then(Value::as_str) == Some("object")
            && out.get("properties").is_none()
        {
            // Gemini refuses an object without properties in some places; an empty map is
            // accepted everywhere.
            out.insert("properties".into(), json!({}));
        }
        out
    }

    fn types(&mut self, value: &Value, path: &str, out: &mut Map<String, Value>) {
        match value {
            Value::String(_) => {
                out.insert("type".into(), value.clone());
            }
            Value::Array(types) => {
                let named: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
                let real: Vec<&str> = named.iter().copied().filter(|t| *t != "null").collect();
                if real.len() < named.len() {
                    out.insert("nullable".into(), json!(true));
                }
                match real.as_slice() {
                    [] => {}
                    [one] => {
                        out.insert("type".into(), json!(one));
                    }
                    many => {
                        let options = many.iter().map(|t| json!({"type": t})).collect();
                        out.insert("anyOf".into(), Value::Array(options));
                    }
                }
            }
            _ => self.drop(path, "type", "not a type name"),
        }
    }

    fn enumeration(&mut self, value: &Value, path: &str, out: &mut Map<String, Value>) {
        match value.as_array() {
            Some(values) if values.iter().all(Value::is_string) => {
                out.insert("enum".into(), value.clone());
            }
            Some(values) if values.iter().all(|v| v.is_string() || v.is_null()) => {
                let strings: Vec<Value> =
                    values.iter().filter(|v| v.is_string()).cloned().collect();
                out.insert("enum".into(), Value::Array(strings));
                out.insert("nullable".into(), json!(true));
            }
            _ => self.drop(path, "enum", "Gemini takes only string enums"),
        }
    }
}

/// Merges an `allOf` part into `out`: properties and `required` are united, other keys kept
/// from the first part that sets them.
fn merge(out: &mut Map<String, Value>, part: Map<String, Value>) {
    for (key, value) in part {
        match (key.as_str(), out.get_mut(&key)) {
            ("properties", Some(Value::Object(existing))) => {
                if let Value::Object(more) = value {
                    existing.extend(more);
                }
            }
            ("required", Some(Value::Array(existing))) => {
                if let Value::Array(more) = value {
                    existing.extend(more);
                }
            }
            (_, Some(_)) => {}
            (_, None) => {
                out.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mcp_schema_with_refs_unions_and_constraints_is_converted_and_reported() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "$defs": {"path": {"type": "string", "description": "a path"}},
            "properties": {
                "file": {"$ref": "#/$defs/path"},
                "mode": {"const": "fast"},
                "limit": {"type": ["integer", "null"], "default": 10},
                "level": {"enum": [1, 2, 3]},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                "either": {"oneOf": [{"type": "string"}, {"type": "number"}]},
                "meta": {"type": "object", "additionalProperties": {"type": "string"}}
            },
            "required": ["file", "ghost"],
            "additionalProperties": false
        });
        let converted = convert(&schema);
        assert_eq!(
            converted.schema,
            json!({
                "type": "object",
                "properties": {
                    "file": {"type": "string", "description": "a path"},
                    "mode": {"enum": ["fast"]},
                    "limit": {"type": "integer", "nullable": true},
                    "level": {},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "either": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                    "meta": {"type": "object", "properties": {}}
                },
                "required": ["file"]
            })
        );
        assert_eq!(
            converted.dropped,
            vec![
                "properties.level.enum: Gemini takes only string enums",
                "properties.tags.uniqueItems: not supported by Gemini",
                "properties.meta.additionalProperties: Gemini cannot restrict or type extra properties",
                "additionalProperties: Gemini cannot restrict or type extra properties",
            ]
        );
    }

    #[test]
    fn a_recursive_reference_becomes_any_value() {
        let schema = json!({
            "type": "object",
            "definitions": {"node": {"type": "object", "properties": {"child": {"$ref": "#/definitions/node"}}}},
            "properties": {"tree": {"$ref": "#/definitions/node"}}
        });
        let converted = convert(&schema);
        assert_eq!(
            converted.schema["properties"]["tree"],
            json!({"type": "object", "properties": {"child": {}}})
        );
        assert_eq!(
            converted.dropped,
            vec![
                "properties.tree.properties.child.$ref: a recursive reference; any value is accepted there"
            ]
        );
    }

    #[test]
    fn an_empty_or_missing_schema_is_an_empty_object() {
        assert_eq!(
            convert(&json!({})).schema,
            json!({"type": "object", "properties": {}})
        );
    }
}
