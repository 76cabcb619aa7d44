//! The widgets of an elicitation form, one per field type, drawn with `inquire`:
//!
//! - every optional field can be skipped with Enter, and says so ("skip"): a text or number
//!   left empty, a yes/no or a choice whose list starts with `skip`, a multiple choice with
//!   nothing ticked — a skipped field is absent from the answer;
//! - a select without a default starts on `skip` (an optional field) or on the first choice;
//!   with a default it starts there;
//! - a default of a text or number field is pre-filled and can be cleared;
//! - Esc or Ctrl-C in any field cancels the whole form (the caller answers `cancel`).
//!
//! Labels, descriptions and choice titles come from the server: they pass the terminal
//! sanitizer; the values sent back are the schema's own.

use inquire::InquireError;
use inquire::validator::Validation;

use super::form::{self, Answer, Choice, Field, FieldKind};
use crate::term::sanitize;

/// The option that leaves an optional field out.
pub const SKIP: &str = "skip";

/// Asks one field; `Err` when the user pressed Esc or Ctrl-C (or the terminal failed).
pub fn ask_field(field: &Field) -> Result<Answer, InquireError> {
    let label = sanitize(&field.label()).into_owned();
    let description = field
        .description
        .as_deref()
        .map(|d| sanitize(d).into_owned());
    let help = |extra: &str| match &description {
        Some(d) if extra.is_empty() => d.clone(),
        Some(d) => format!("{d} — {extra}"),
        None => extra.to_owned(),
    };
    match &field.kind {
        FieldKind::Boolean => ask_boolean(field, &label, &help),
        FieldKind::Choice(choices) => ask_choice(field, choices, &label, &help),
        FieldKind::MultiChoice(choices) => ask_multi(field, choices, &label, &help),
        FieldKind::Number {
            integer,
            minimum,
            maximum,
        } => {
            let (integer, minimum, maximum) = (*integer, *minimum, *maximum);
            let text = ask_text(field, &label, &help(skip_hint(field)), move |t| {
                form::parse_number(t, integer, minimum, maximum)
            })?;
            if text.trim().is_empty() {
                return Ok(Answer::Skipped);
            }
            form::parse_number(&text, integer, minimum, maximum)
                .map(Answer::Number)
                .map_err(|e| InquireError::Custom(e.into()))
        }
        FieldKind::Text {
            min_length,
            max_length,
            format,
        } => {
            let (min, max) = (*min_length, *max_length);
            let mut extra = skip_hint(field).to_owned();
            if let Some(format) = format {
                extra = [format!("format: {}", sanitize(format)), extra]
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join(", ");
            }
            let text = ask_text(field, &label, &help(&extra), move |t| {
                let len = t.chars().count() as u64;
                if min.is_some_and(|m| len < m) {
                    Err(format!("at least {} characters", min.unwrap_or(0)))
                } else if max.is_some_and(|m| len > m) {
                    Err(format!("at most {} characters", max.unwrap_or(0)))
                } else {
                    Ok(())
                }
            })?;
            Ok(if text.is_empty() {
                Answer::Skipped
            } else {
                Answer::Text(text)
            })
        }
    }
}

fn skip_hint(field: &Field) -> &'static str {
    if field.required {
        ""
    } else {
        "Enter on an empty field = skip"
    }
}

/// A text line checked by `check` when not empty; empty is allowed only for optional fields.
fn ask_text<T>(
    field: &Field,
    label: &str,
    help: &str,
    check: impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static,
) -> Result<String, InquireError> {
    let required = field.required;
    let default = field.default.as_ref().map(|d| match d {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    let mut prompt = inquire::Text::new(label).with_validator(move |text: &str| {
        Ok(match (text.trim().is_empty(), required) {
            (true, true) => Validation::Invalid("required".into()),
            (true, false) => Validation::Valid,
            (false, _) => match check(text) {
                Ok(_) => Validation::Valid,
                Err(e) => Validation::Invalid(e.into()),
            },
        })
    });
    if !required {
        prompt = prompt.with_placeholder(SKIP).with_formatter(&|text| {
            if text.is_empty() {
                SKIP.to_owned()
            } else {
                text.to_owned()
            }
        });
    }
    if let Some(default) = default.as_deref() {
        prompt = prompt.with_initial_value(default);
    }
    if !help.is_empty() {
        prompt = prompt.with_help_message(help);
    }
    prompt.prompt()
}

fn ask_boolean(
    field: &Field,
    label: &str,
    help: &dyn Fn(&str) -> String,
) -> Result<Answer, InquireError> {
    let default = field.default.as_ref().and_then(serde_json::Value::as_bool);
    let mut options: Vec<&str> = Vec::new();
    if !field.required {
        options.push(SKIP);
    }
    options.extend(["yes", "no"]);
    let start = match default {
        Some(true) => options.iter().position(|o| *o == "yes"),
        Some(false) => options.iter().position(|o| *o == "no"),
        None => Some(0),
    }
    .unwrap_or(0);
    let text = help("");
    let mut prompt = inquire::Select::new(label, options).with_starting_cursor(start);
    if !text.is_empty() {
        prompt = prompt.with_help_message(&text);
    }
    Ok(match prompt.prompt()? {
        "yes" => Answer::Boolean(true),
        "no" => Answer::Boolean(false),
        _ => Answer::Skipped,
    })
}

fn ask_choice(
    field: &Field,
    choices: &[Choice],
    label: &str,
    help: &dyn Fn(&str) -> String,
) -> Result<Answer, InquireError> {
    let offset = usize::from(!field.required);
    let mut shown: Vec<String> = Vec::with_capacity(choices.len() + offset);
    if offset == 1 {
        shown.push(SKIP.to_owned());
    }
    shown.extend(choices.iter().map(|c| sanitize(&c.label).into_owned()));
    let start = field.default_choice().map_or(0, |i| i + offset);
    let text = help("");
    let mut prompt = inquire::Select::new(label, shown.clone()).with_starting_cursor(start);
    if !text.is_empty() {
        prompt = prompt.with_help_message(&text);
    }
    let picked = prompt.raw_prompt()?;
    Ok(match picked.index.checked_sub(offset) {
        None => Answer::Skipped,
        Some(i) => choices
            .get(i)
            .map_or(Answer::Skipped, |c| Answer::Choice(c.value.clone())),
    })
}

fn ask_multi(
    field: &Field,
    choices: &[Choice],
    label: &str,
    help: &dyn Fn(&str) -> String,
) -> Result<Answer, InquireError> {
    let shown: Vec<String> = choices
        .iter()
        .map(|c| sanitize(&c.label).into_owned())
        .collect();
    let defaults: Vec<usize> = match field.default.as_ref() {
        Some(serde_json::Value::Array(values)) => choices
            .iter()
            .enumerate()
            .filter(|(_, c)| values.iter().any(|v| v.as_str() == Some(c.value.as_str())))
            .map(|(i, _)| i)
            .collect(),
        _ => Vec::new(),
    };
    let extra = if field.required {
        ""
    } else {
        "space ticks a choice; nothing ticked = skip"
    };
    let text = help(extra);
    let mut prompt = inquire::MultiSelect::new(label, shown)
        .with_default(&defaults)
        .with_formatter(&|picked| {
            if picked.is_empty() {
                SKIP.to_owned()
            } else {
                picked
                    .iter()
                    .map(|p| p.value.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        });
    if !text.is_empty() {
        prompt = prompt.with_help_message(&text);
    }
    let picked = prompt.raw_prompt()?;
    if picked.is_empty() && !field.required {
        return Ok(Answer::Skipped);
    }
    Ok(Answer::MultiChoice(
        picked
            .iter()
            .filter_map(|p| choices.get(p.index))
            .map(|c| c.value.clone())
            .collect(),
    ))
}
