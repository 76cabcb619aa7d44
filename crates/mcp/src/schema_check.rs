//! Checks a tool's `structuredContent` against its `outputSchema` (MCP: a client SHOULD
//! validate). A JSON Schema subset that covers what tool output schemas use: `type` (one or a
//! list; `integer` is a whole number), `properties`, `required`, `additionalProperties`,
//! `items`, `enum`, `const`, the length, size and range bounds, `anyOf`/`oneOf`/`allOf`
//! (`oneOf` is read as `anyOf`), boolean schemas and local `$ref`s (`#/…`). A keyword outside
//! the subset is ignored, so an unusual schema never produces a false mismatch.
//!
//! Pure: no I/O, imports no other module of the crate.

use serde_json::Value;

/// Mismatches reported at most (the rest are counted).
const MAX_PROBLEMS: usize = 5;
/// Deeper schemas or values are not followed (a `$ref` loop ends here too).
const MAX_DEPTH: usize = 64;

/// What does not match, one line per mismatch (`/items/0/id: expected integer, got string`);
/// empty when `value` matches.
pub fn check(schema: &Value, value: &Value) -> Vec<String> {
    let mut found = Problems::default();
    walk(schema, schema, value, "", 0, &mut found);
    let mut lines = found.lines;
    if found.more > 0 {
        lines.push(format!("… and {} more", found.more));
    }
    lines
}

#[derive(Default)]
struct Problems {
    lines: Vec<String>,
    more: usize,
}

impl Problems {
    fn push(&mut self, path: &str, what: String) {
        if self.lines.len() < MAX_PROBLEMS {
            let at = if path.is_empty() { "/" } else { path };
            self.lines.push(format!("{at}: {what}"));
        } else {
            self.more += 1;
        }
    }

    fn count(&self) -> usize {
        self.lines.len() + self.more
    }
}

fn walk(root: &Value, schema: &Value, value: &Value, path: &str, depth: usize, out: &mut Problems) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = match schema {
        Value::Bool(true) => return,
        Value::Bool(false) => return out.push(path, "no value is allowed here".to_owned()),
        Value::Object(map) => map,
        _ => return,
    };
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        if let Some(resolved) = target.strip_prefix('#').and_then(|p| root.pointer(p)) {
            walk(root, resolved, value, path, depth + 1, out);
        }
        return;
    }
    if let Some(types) = schema.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.is_empty() && !allowed.iter().any(|t| has_type(value, t)) {
            return out.push(
                path,
                format!(
                    "expected {}, got {}",
                    allowed.join(" or "),
                    type_name(value)
                ),
            );
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        out.push(
            path,
            format!("{} is not one of the allowed values", short(value)),
        );
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        out.push(path, format!("expected {}", short(constant)));
    }
    combinators(root, schema, value, path, depth, out);
    match value {
        Value::Object(object) => check_object(root, schema, object, path, depth, out),
        Value::Array(items) => check_array(root, schema, items, path, depth, out),
        Value::String(text) => check_string(schema, text, path, out),
        Value::Number(n) => {
            if let Some(n) = n.as_f64() {
                check_number(schema, n, path, out);
            }
        }
        Value::Bool(_) | Value::Null => {}
    }
}

fn combinators(
    root: &Value,
    schema: &serde_json::Map<String, Value>,
    value: &Value,
    path: &str,
    depth: usize,
    out: &mut Problems,
) {
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for sub in all {
            walk(root, sub, value, path, depth + 1, out);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let matches = options.iter().any(|sub| {
                let mut trial = Problems::default();
                walk(root, sub, value, path, depth + 1, &mut trial);
                trial.count() == 0
            });
            if !matches && !options.is_empty() {
                out.push(path, format!("matches none of the {key} alternatives"));
            }
        }
    }
}

fn check_object(
    root: &Value,
    schema: &serde_json::Map<String, Value>,
    object: &serde_json::Map<String, Value>,
    path: &str,
    depth: usize,
    out: &mut Problems,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(name) {
                out.push(path, format!("required property \"{name}\" is missing"));
            }
        }
    }
    for (name, item) in object {
        let item_path = format!("{path}/{}", escape(name));
        match properties.and_then(|p| p.get(name)) {
            Some(sub) => walk(root, sub, item, &item_path, depth + 1, out),
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    out.push(path, format!("property \"{name}\" is not allowed"));
                }
                Some(sub @ Value::Object(_)) => walk(root, sub, item, &item_path, depth + 1, out),
                _ => {}
            },
        }
    }
}

fn check_array(
    root: &Value,
    schema: &serde_json::Map<String, Value>,
    items: &[Value],
    path: &str,
    depth: usize,
    out: &mut Problems,
) {
    bounds(
        schema,
        ("minItems", "maxItems"),
        items.len(),
        "items",
        path,
        out,
    );
    if let Some(sub) = schema
        .get("items")
        .filter(|s| s.is_object() || s.is_boolean())
    {
        for (i, item) in items.iter().enumerate() {
            walk(root, sub, item, &format!("{path}/{i}"), depth + 1, out);
        }
    }
}

fn check_string(
    schema: &serde_json::Map<String, Value>,
    text: &str,
    path: &str,
    out: &mut Problems,
) {
    let chars = text.chars().count();
    bounds(
        schema,
        ("minLength", "maxLength"),
        chars,
        "characters",
        path,
        out,
    );
}

fn bounds(
    schema: &serde_json::Map<String, Value>,
    (min_key, max_key): (&str, &str),
    len: usize,
    unit: &str,
    path: &str,
    out: &mut Problems,
) {
    let len = len as u64;
    if let Some(min) = schema
        .get(min_key)
        .and_then(Value::as_u64)
        .filter(|m| len < *m)
    {
        out.push(path, format!("{len} {unit}, at least {min} expected"));
    }
    if let Some(max) = schema
        .get(max_key)
        .and_then(Value::as_u64)
        .filter(|m| len > *m)
    {
        out.push(path, format!("{len} {unit}, at most {max} expected"));
    }
}

fn check_number(schema: &serde_json::Map<String, Value>, n: f64, path: &str, out: &mut Problems) {
    let limit = |key: &str| schema.get(key).and_then(Value::as_f64);
    if let Some(min) = limit("minimum").filter(|m| n < *m) {
        out.push(path, format!("{n} is less than the minimum {min}"));
    }
    if let Some(max) = limit("maximum").filter(|m| n > *m) {
        out.push(path, format!("{n} is more than the maximum {max}"));
    }
    if let Some(min) = limit("exclusiveMinimum").filter(|m| n <= *m) {
        out.push(path, format!("{n} is not more than {min}"));
    }
    if let Some(max) = limit("exclusiveMaximum").filter(|m| n >= *m) {
        out.push(path, format!("{n} is not less than {max}"));
    }
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => match value {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        // An unknown type name is outside the subset: never a mismatch.
        _ => true,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value in a message: short JSON (values can be long).
fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 40 {
        return text;
    }
    let cut: String = text.chars().take(40).collect();
    format!("{cut}…")
}

/// A property name as a JSON Pointer token.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
#[path = "schema_check_tests.rs"]
mod tests;
