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
    /// `?page=&per_page=` as the reference's query builder writes them (`String(n)`).
    pub fn paging(&self) -> [(&'static str, Option<String>); 2] {
        [
            ("page", self.num_text("page")),
            ("per_page", self.num_text("per_page")),
        ]
    }
    /// JS truthiness of an argument (absent is falsy).
    pub fn truthy(&self, key: &str) -> bool {
        self.0.get(key).is_some_and(crate::projection::truthy)
    }
    /// Whether any of `keys` is absent or falsy (the reference's `!a || !b` guards).
    pub fn any_missing(&self, keys: &[&str]) -> bool {
        keys.iter().any(|k| !self.truthy(k))
    }
    /// A request body of the given keys in the given order; absent keys are dropped (JS
    /// `undefined`), an explicit `null` is kept.
    pub fn pick(&self, keys: &[&str]) -> Value {
        let mut out = Map::new();
        for k in keys {
            if let Some(v) = self.0.get(*k) {
                out.insert((*k).to_string(), v.clone());
            }
        }
        Value::Object(out)
    }
    /// Every argument except `skip`, in argument order (the server puts arguments in schema
    /// order first, as the reference's schema layer does).
    pub fn without(&self, skip: &[&str]) -> Map<String, Value> {
        self.0
            .iter()
            .filter(|(k, _)| !skip.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

/// Messages the reference's schema attaches to one rule of one field (zod's custom
/// `.max(n, message)`), which the published JSON schema does not carry.
const CUSTOM_MESSAGES: &[(&str, &str, &str, &str)] = &[(
    "scheduled_tasks",
    "command",
    "maxLength",
    "Coolify rejects scheduled-task commands longer than 255 chars — split the command or bake a script into the container image",
)];

/// A failed rule: the path below the argument (zod's `.0.key` form) and the message.
struct Failure {
    path: String,
    rule: &'static str,
    message: String,
}

impl Failure {
    fn new(rule: &'static str, message: String) -> Self {
        Self {
            path: String::new(),
            rule,
            message,
        }
    }
    fn under(mut self, segment: &str) -> Self {
        self.path = format!(".{segment}{}", self.path);
        self
    }
}

/// Check arguments against a tool's input schema; `Err` carries the full
/// `Input validation error: …` text.
pub fn validate(
    tool: &str,
    schema: &Map<String, Value>,
    args: &Map<String, Value>,
) -> Result<(), String> {
    let props = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = props else { return Ok(()) };
    for (name, prop) in props {
        let failure = match args.get(name) {
            None if required.contains(&name.as_str()) => Failure::new(
                "required",
                format!(
                    "Invalid input: expected {}, received undefined",
                    expected_type(prop)
                ),
            ),
            None => continue,
            Some(v) => match check(prop, v) {
                Ok(()) => continue,
                Err(f) => f,
            },
        };
        let message = CUSTOM_MESSAGES
            .iter()
            .find(|(t, f, rule, _)| {
                *t == tool && f == name && *rule == failure.rule && failure.path.is_empty()
            })
            .map_or(failure.message, |(_, _, _, m)| (*m).to_string());
        return Err(format!(
            "Input validation error: Invalid arguments for tool {tool}: {name}{}: {message}",
            failure.path
        ));
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

fn check(prop: &Value, v: &Value) -> Result<(), Failure> {
    if let Some(options) = prop.get("enum").and_then(Value::as_array) {
        if !options.contains(v) {
            let list: Vec<String> = options.iter().map(|o| o.to_string()).collect();
            return Err(Failure::new(
                "enum",
                format!("Invalid option: expected one of {}", list.join("|")),
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
        return Err(Failure::new(
            "type",
            format!(
                "Invalid input: expected {}, received {}",
                types.join(" | "),
                received(v)
            ),
        ));
    }
    if let (Some(min), Some(n)) = (
        prop.get("exclusiveMinimum").and_then(Value::as_f64),
        v.as_f64(),
    ) && n <= min
    {
        return Err(Failure::new(
            "exclusiveMinimum",
            format!("Too small: expected number to be >{min}"),
        ));
    }
    if let Some(s) = v.as_str() {
        check_length(prop, s)?;
    }
    if let (Some(items), Some(arr)) = (prop.get("items"), v.as_array()) {
        for (i, item) in arr.iter().enumerate() {
            check_item(items, item).map_err(|f| f.under(&i.to_string()))?;
        }
    }
    Ok(())
}

/// `minLength`/`maxLength` in UTF-16 units, as JS counts a string.
fn check_length(prop: &Value, s: &str) -> Result<(), Failure> {
    let len = s.encode_utf16().count() as f64;
    if let Some(max) = prop.get("maxLength").and_then(Value::as_f64)
        && len > max
    {
        return Err(Failure::new(
            "maxLength",
            format!("Too big: expected string to have <={max} characters"),
        ));
    }
    if let Some(min) = prop.get("minLength").and_then(Value::as_f64)
        && len < min
    {
        return Err(Failure::new(
            "minLength",
            format!("Too small: expected string to have >={min} characters"),
        ));
    }
    Ok(())
}

/// One array element: an object checked field by field, or a value checked as `items`.
fn check_item(items: &Value, item: &Value) -> Result<(), Failure> {
    let Some(obj_props) = items.get("properties").and_then(Value::as_object) else {
        return check(items, item);
    };
    let Some(obj) = item.as_object() else {
        return Err(Failure::new(
            "type",
            format!(
                "Invalid input: expected object, received {}",
                received(item)
            ),
        ));
    };
    let req: Vec<&str> = items
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (k, p) in obj_props {
        match obj.get(k) {
            None if req.contains(&k.as_str()) => {
                return Err(Failure::new(
                    "required",
                    format!(
                        "Invalid input: expected {}, received undefined",
                        expected_type(p)
                    ),
                )
                .under(k));
            }
            Some(x) => check(p, x).map_err(|f| f.under(k))?,
            None => {}
        }
    }
    Ok(())
}
