//! JSON text exactly as the reference server renders it (`JSON.stringify(v, null, 2)`).
//!
//! Invariants: key order is the insertion order (serde_json `preserve_order`), non-ASCII is
//! not escaped, and integral floats render without a fraction (`1.0` → `1`), as in JS.

use serde_json::{Number, Value};

/// Two-space pretty JSON, JS-style numbers.
pub fn pretty(value: &Value) -> String {
    let normalised = js_numbers(value.clone());
    serde_json::to_string_pretty(&normalised).unwrap_or_else(|_| "null".into())
}

/// Compact JSON, JS-style numbers.
pub fn compact(value: &Value) -> String {
    let normalised = js_numbers(value.clone());
    serde_json::to_string(&normalised).unwrap_or_else(|_| "null".into())
}

/// A string as a JSON string literal (what the log tools return).
pub fn string_literal(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A JS number as JSON: integral values within the safe range become integers, so they
/// compare and render like the numbers a client sent.
pub fn number(f: f64) -> Value {
    js_numbers(serde_json::json!(f))
}

/// A value as JS template interpolation renders it (`${v}`): strings raw, numbers as
/// `String(n)`, arrays joined with `,`, objects as `[object Object]`.
pub fn js_string(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(_) => compact(value),
        Value::Array(items) => items
            .iter()
            .map(|v| {
                if v.is_null() {
                    String::new()
                } else {
                    js_string(v)
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

fn js_numbers(value: Value) -> Value {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => {
                Value::Number(Number::from(f as i64))
            }
            _ => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(js_numbers).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, js_numbers(v))).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_like_json_stringify() {
        let v = json!({"b": 1.0, "a": [], "c": {}, "d": "é\n", "e": 1.5});
        assert_eq!(
            pretty(&v),
            "{\n  \"b\": 1,\n  \"a\": [],\n  \"c\": {},\n  \"d\": \"é\\n\",\n  \"e\": 1.5\n}"
        );
        assert_eq!(
            compact(&json!({"version": "1", "name": "x"})),
            "{\"version\":\"1\",\"name\":\"x\"}"
        );
    }
}
