//! Turns `key=value` strings from the command line into a JSON arguments object, typed by the
//! tool's `inputSchema`: integers/numbers parse as numbers, booleans as booleans, objects and
//! arrays as JSON, everything else stays a string. Unknown keys are kept as strings (the server
//! decides), so a schema-less tool still works.

use serde_json::{Map, Value};

/// One argument that could not be coerced: names the key, the expected type and the fix.
#[derive(Debug, PartialEq)]
pub struct CoerceError(pub String);

pub fn coerce_args(
    schema: &Value,
    pairs: Vec<(String, String)>,
) -> Result<Map<String, Value>, CoerceError> {
    let props = schema.get("properties").and_then(Value::as_object);
    let mut out = Map::new();
    for (key, raw) in pairs {
        let ty = props
            .and_then(|p| p.get(&key))
            .map(schema_type)
            .unwrap_or(SchemaType::Unknown);
        out.insert(key.clone(), coerce_one(&key, &raw, ty)?);
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum SchemaType {
    String,
    Integer,
    Number,
    Boolean,
    Json,
    Unknown,
}

fn schema_type(prop: &Value) -> SchemaType {
    let ty = match prop.get("type") {
        Some(Value::String(s)) => Some(s.as_str()),
        // ["integer", "null"] and the like: take the first non-null type.
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    };
    match ty {
        Some("string") => SchemaType::String,
        Some("integer") => SchemaType::Integer,
        Some("number") => SchemaType::Number,
        Some("boolean") => SchemaType::Boolean,
        Some("object") | Some("array") => SchemaType::Json,
        _ => SchemaType::Unknown,
    }
}

fn coerce_one(key: &str, raw: &str, ty: SchemaType) -> Result<Value, CoerceError> {
    let bad = |what: &str| {
        CoerceError(format!(
            "argument `{key}` must be {what} (got `{raw}`); pass e.g. {key}={}",
            match what {
                "an integer" => "42",
                "a number" => "4.2",
                "true or false" => "true",
                _ => "'{\"k\":1}'",
            }
        ))
    };
    match ty {
        SchemaType::String | SchemaType::Unknown => Ok(Value::String(raw.to_string())),
        SchemaType::Integer => raw
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| bad("an integer")),
        SchemaType::Number => raw
            .parse::<f64>()
            .ok()
            .and_then(|f| {
                // Keep integers exact when they are written as integers.
                raw.parse::<i64>()
                    .map(Value::from)
                    .ok()
                    .or_else(|| serde_json::Number::from_f64(f).map(Value::Number))
            })
            .ok_or_else(|| bad("a number")),
        SchemaType::Boolean => match raw {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(bad("true or false")),
        },
        SchemaType::Json => serde_json::from_str(raw).map_err(|_| bad("JSON (an object or array)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn coerces_by_schema() {
        let schema = json!({"properties": {
            "a": {"type": "number"}, "n": {"type": "integer"}, "b": {"type": "boolean"},
            "o": {"type": "object"}, "s": {"type": "string"}, "opt": {"type": ["integer", "null"]}
        }});
        let got = coerce_args(
            &schema,
            pairs(&[
                ("a", "1.5"),
                ("n", "7"),
                ("b", "true"),
                ("o", r#"{"x":[1]}"#),
                ("s", "42"),
                ("opt", "3"),
                ("extra", "v"),
            ]),
        )
        .unwrap();
        assert_eq!(
            Value::Object(got),
            json!({"a": 1.5, "n": 7, "b": true, "o": {"x": [1]}, "s": "42", "opt": 3, "extra": "v"})
        );
    }

    #[test]
    fn integer_valued_number_stays_integer() {
        let schema = json!({"properties": {"a": {"type": "number"}}});
        let got = coerce_args(&schema, pairs(&[("a", "2")])).unwrap();
        assert_eq!(got["a"], json!(2));
    }

    #[test]
    fn bad_values_name_key_and_fix() {
        let schema = json!({"properties": {"n": {"type": "integer"}, "b": {"type": "boolean"}}});
        let e = coerce_args(&schema, pairs(&[("n", "x")])).unwrap_err();
        assert_eq!(
            e.0,
            "argument `n` must be an integer (got `x`); pass e.g. n=42"
        );
        let e = coerce_args(&schema, pairs(&[("b", "yes")])).unwrap_err();
        assert_eq!(
            e.0,
            "argument `b` must be true or false (got `yes`); pass e.g. b=true"
        );
    }
}
