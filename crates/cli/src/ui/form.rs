//! An elicitation's `requestedSchema` as a form: the fields the user fills in, and the
//! conversion of their answers into the JSON the server asked for. Pure (no terminal), so the
//! schema handling is tested without one; `questions.rs` draws the fields with `inquire`.
//!
//! Supported (MCP form elicitation, flat object of primitives): `string` (with `minLength`,
//! `maxLength`, `format` shown as a hint), `number`/`integer` (`minimum`, `maximum`),
//! `boolean`, single-choice enums (`enum` + optional `enumNames`, or `oneOf` of
//! `{const, title}`), and multi-choice arrays (`items.enum` / `items.anyOf`). Defaults are
//! pre-filled. Anything else makes the whole form unsupported, which the REPL declines with a
//! note — it never submits values the schema did not describe.

use serde_json::{Map, Value};

/// One choice of an enum field: the value sent and the label shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub value: String,
    pub label: String,
}

/// What kind of answer a field takes.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    Text {
        min_length: Option<u64>,
        max_length: Option<u64>,
        format: Option<String>,
    },
    Number {
        integer: bool,
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    Boolean,
    Choice(Vec<Choice>),
    MultiChoice(Vec<Choice>),
}

/// One field of the form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
    pub default: Option<Value>,
    pub kind: FieldKind,
}

impl Field {
    /// The question's text: title (or name), plus `(optional)`.
    pub fn label(&self) -> String {
        let base = self.title.clone().unwrap_or_else(|| self.name.clone());
        if self.required {
            base
        } else {
            format!("{base} (optional)")
        }
    }

    /// Index of the default among the choices, if any.
    pub fn default_choice(&self) -> Option<usize> {
        let FieldKind::Choice(choices) = &self.kind else {
            return None;
        };
        let default = self.default.as_ref()?.as_str()?;
        choices.iter().position(|c| c.value == default)
    }
}

/// A schema the form cannot represent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormError {
    #[error("the requested schema is not an object with `properties`")]
    NotAnObject,
    #[error("field {field:?} has a type this client cannot ask for ({detail})")]
    Unsupported { field: String, detail: String },
}

/// The fields of a `requestedSchema`, in the schema's order.
pub fn parse_schema(schema: &Value) -> Result<Vec<Field>, FormError> {
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .ok_or(FormError::NotAnObject)?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    properties
        .iter()
        .map(|(name, property)| {
            Ok(Field {
                name: name.clone(),
                title: text(property, "title"),
                description: text(property, "description"),
                required: required.contains(&name.as_str()),
                default: property.get("default").cloned(),
                kind: field_kind(name, property)?,
            })
        })
        .collect()
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn field_kind(name: &str, property: &Value) -> Result<FieldKind, FormError> {
    let unsupported = |detail: String| FormError::Unsupported {
        field: name.to_owned(),
        detail,
    };
    if let Some(choices) = choices(property) {
        return Ok(FieldKind::Choice(choices));
    }
    match property.get("type").and_then(Value::as_str) {
        Some("string") => Ok(FieldKind::Text {
            min_length: property.get("minLength").and_then(Value::as_u64),
            max_length: property.get("maxLength").and_then(Value::as_u64),
            format: text(property, "format"),
        }),
        Some(t @ ("number" | "integer")) => Ok(FieldKind::Number {
            integer: t == "integer",
            minimum: property.get("minimum").and_then(Value::as_f64),
            maximum: property.get("maximum").and_then(Value::as_f64),
        }),
        Some("boolean") => Ok(FieldKind::Boolean),
        Some("array") => property
            .get("items")
            .and_then(choices)
            .map(FieldKind::MultiChoice)
            .ok_or_else(|| unsupported("an array without enumerated items".to_owned())),
        Some(other) => Err(unsupported(format!("type {other:?}"))),
        None => Err(unsupported("no type".to_owned())),
    }
}

/// `enum` (+ `enumNames`) or `oneOf`/`anyOf` of `{const, title}`.
fn choices(property: &Value) -> Option<Vec<Choice>> {
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        let names = property.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let value = v.as_str()?.to_owned();
                    let label = names
                        .and_then(|n| n.get(i))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .unwrap_or_else(|| value.clone());
                    Some(Choice { value, label })
                })
                .collect(),
        );
    }
    let options = property
        .get("oneOf")
        .or_else(|| property.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        options
            .iter()
            .filter_map(|o| {
                let value = o.get("const")?.as_str()?.to_owned();
                let label = text(o, "title").unwrap_or_else(|| value.clone());
                Some(Choice { value, label })
            })
            .collect(),
    )
}

/// One answer as the user gave it.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Optional field left empty: not sent.
    Skipped,
    Text(String),
    Number(f64),
    Boolean(bool),
    Choice(String),
    MultiChoice(Vec<String>),
}

/// Checks and converts typed text for a number field; the error is shown to the user.
pub fn parse_number(
    text: &str,
    integer: bool,
    min: Option<f64>,
    max: Option<f64>,
) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if integer && value.fract() != 0.0 {
        return Err("a whole number is needed".to_owned());
    }
    if let Some(min) = min.filter(|m| value < *m) {
        return Err(format!("at least {min}"));
    }
    if let Some(max) = max.filter(|m| value > *m) {
        return Err(format!("at most {max}"));
    }
    Ok(value)
}

/// The `content` object of an accepted elicitation.
pub fn content(fields: &[Field], answers: Vec<Answer>) -> Map<String, Value> {
    let mut out = Map::new();
    for (field, answer) in fields.iter().zip(answers) {
        let value = match answer {
            Answer::Skipped => continue,
            Answer::Text(s) | Answer::Choice(s) => Value::String(s),
            Answer::Boolean(b) => Value::Bool(b),
            // A whole number is sent as an integer (`3`, not `3.0`) for both types.
            Answer::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => Value::from(n as i64),
            Answer::Number(n) => serde_json::Number::from_f64(n)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            Answer::MultiChoice(values) => {
                Value::Array(values.into_iter().map(Value::String).collect())
            }
        };
        out.insert(field.name.clone(), value);
    }
    out
}

#[cfg(test)]
#[path = "form_tests.rs"]
mod tests;
