//! Tool arguments: typed accessors over the JSON object, and the schema check that stands
//! in for the reference SDK's zod validation (`Input validation error: …`, `isError`).
//!
//! Invariant: unknown properties are ignored (the reference strips them); `instance` is
//! removed before a handler runs, so it is never forwarded upstream.

use serde_json::{Map, Value};

/// The arguments of one call.
#[derive(Debug, Clone, Default)]
pub struct Args(pub Map<String, Value>);

impl Args {
    /// The value of `key`, unless absent or `null`.
    pub fn value(&self, key: &str) -> Option<&Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }
    /// `key` as a string, if it is one.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }
    /// A string that is present and non-empty (JS truthiness for the guards).
    pub fn nonempty(&self, key: &str) -> Option<&str> {
        self.str(key).filter(|s| !s.is_empty())
    }
    /// `key` as a boolean, if it is one.
    pub fn bool(&self, key: &str) -> Option<bool> {
        self.0.get(key).and_then(Value::as_bool)
    }
    /// `key` as a number, if it is one.
    pub fn num(&self, key: &str) -> Option<f64> {
        self.0.get(key).and_then(Value::as_f64)
    }
    /// A number as a non-negative integer (paging, line counts).
    pub fn u64(&self, key: &str) -> Option<u64> {
        self.num(key).filter(|n| *n >= 0.0).map(|n| n as u64)
    }
    /// A number rendered as JS would in a query string (`100`, `2.5`).
    pub fn num_text(&self, key: &str) -> Option<String> {
        self.0
            .get(key)
            .filter(|v| v.is_number())
            .map(crate::json::compact)
    }
}

/// Check arguments against a tool's input schema; `Err` carries the full
/// `Input validation error: …` text.
pub fn validate(
    tool: &str,
    schema: &Map<String, Value>,
    args: &Map<String, Value>,
) -> Result<(), String> {
    let fail = |path: &str, msg: String| {
        Err(format!(
            "Input validation error: Invalid arguments for tool {tool}: {path}: {msg}"
        ))
    };
    let props = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = props else { return Ok(()) };
    for (name, prop) in props {
        match args.get(name) {
            None => {
                if required.contains(&name.as_str()) {
                    let expected = expected_type(prop);
                    return fail(
                        name,
                        format!("Invalid input: expected {expected}, received undefined"),
                    );
                }
            }
            Some(v) => {
                if let Err(msg) = check(prop, v) {
                    return fail(name, msg);
                }
            }
        }
    }
    Ok(())
}

fn expected_type(prop: &Value) -> String {
    match prop.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ if prop.get("enum").is_some() => "string".into(),
        _ => "value".into(),
    }
}

fn received(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn check(prop: &Value, v: &Value) -> Result<(), String> {
    if let Some(options) = prop.get("enum").and_then(Value::as_array) {
        if !options.contains(v) {
            let list: Vec<String> = options.iter().map(|o| o.to_string()).collect();
            return Err(format!(
                "Invalid option: expected one of {}",
                list.join("|")
            ));
        }
        return Ok(());
    }
    let types: Vec<&str> = match prop.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    let ok = types.iter().any(|t| match *t {
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    });
    if !ok {
        return Err(format!(
            "Invalid input: expected {}, received {}",
            types.join(" | "),
            received(v)
        ));
    }
    if let (Some(min), Some(n)) = (
        prop.get("exclusiveMinimum").and_then(Value::as_f64),
        v.as_f64(),
    ) && n <= min
    {
        return Err(format!("Too small: expected number to be >{min}"));
    }
    if let (Some(items), Some(arr)) = (prop.get("items"), v.as_array()) {
        for (i, item) in arr.iter().enumerate() {
            if let Some(obj_props) = items.get("properties").and_then(Value::as_object) {
                let req: Vec<&str> = items
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let Some(obj) = item.as_object() else {
                    return Err(format!(
                        "[{i}]: Invalid input: expected object, received {}",
                        received(item)
                    ));
                };
                for (k, p) in obj_props {
                    match obj.get(k) {
                        None if req.contains(&k.as_str()) => {
                            return Err(format!(
                                "[{i}].{k}: Invalid input: expected {}, received undefined",
                                expected_type(p)
                            ));
                        }
                        Some(x) => check(p, x).map_err(|m| format!("[{i}].{k}: {m}"))?,
                        None => {}
                    }
                }
            } else {
                check(items, item).map_err(|m| format!("[{i}]: {m}"))?;
            }
        }
    }
    Ok(())
}
