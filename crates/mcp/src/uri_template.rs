//! RFC 6570 Level 1 URI templates: `{var}` is replaced by the variable's value,
//! percent-encoded so only unreserved characters (`A-Z a-z 0-9 - . _ ~`) stay literal.
//! Anything beyond Level 1 — operators `+ # . / ; ? &`, several variables in one expression,
//! `*` or `:n` modifiers — is rejected with a teaching error instead of being half-expanded
//! into a wrong URI. All missing variables are reported at once.

use std::collections::BTreeMap;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Everything except RFC 3986 unreserved characters is encoded.
const LEVEL1_ENCODE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Why a template cannot be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// A Level 2+ expression (operator, modifier or list).
    #[error(
        "template {template:?} uses `{{{expression}}}`, an RFC 6570 {feature} (Level 2 or higher); \
         only Level 1 `{{name}}` placeholders are expanded. Expand the URI yourself and pass it \
         as `uri` without `arguments`"
    )]
    Unsupported {
        /// The template.
        template: String,
        /// The expression, without braces.
        expression: String,
        /// What the expression uses, e.g. reserved expansion `+`.
        feature: &'static str,
    },
    /// A `{` is never closed.
    #[error("template {template:?} has an unclosed `{{` at byte {at}; close it with `}}`")]
    Unclosed {
        /// The template.
        template: String,
        /// Byte offset of the `{`.
        at: usize,
    },
    /// A `}` has no `{`.
    #[error("template {template:?} has a `}}` without an opening `{{` at byte {at}")]
    StrayClose {
        /// The template.
        template: String,
        /// Byte offset of the `}`.
        at: usize,
    },
    /// A variable name holds characters names may not.
    #[error(
        "template {template:?} has an invalid variable name {name:?}; names use letters, digits, \
         `_`, `.` and %-escapes"
    )]
    BadName {
        /// The template.
        template: String,
        /// The name as written.
        name: String,
    },
    /// Variables have no value.
    #[error(
        "template {template:?} needs {}; pass them in `arguments` (given: {})",
        list(missing),
        if provided.is_empty() { "none".to_string() } else { list(provided) }
    )]
    MissingVariables {
        /// The template.
        template: String,
        /// The variables without a value.
        missing: Vec<String>,
        /// The names that were given.
        provided: Vec<String>,
    },
}

fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

/// A parsed Level 1 template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses a Level 1 template (`{name}` placeholders only).
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = template;
        let mut offset = 0;
        while let Some(i) = rest.find(['{', '}']) {
            let at = offset + i;
            if rest.as_bytes()[i] == b'}' {
                return Err(TemplateError::StrayClose {
                    template: template.into(),
                    at,
                });
            }
            literal.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let close = after.find('}').ok_or(TemplateError::Unclosed {
                template: template.into(),
                at,
            })?;
            let expression = &after[..close];
            if after[..close].contains('{') {
                return Err(TemplateError::Unclosed {
                    template: template.into(),
                    at,
                });
            }
            check_level1(template, expression)?;
            if !literal.is_empty() {
                parts.push(Part::Literal(std::mem::take(&mut literal)));
            }
            parts.push(Part::Variable(expression.to_string()));
            offset = at + 1 + close + 1;
            rest = &after[close + 1..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(UriTemplate {
            source: template.to_string(),
            parts,
        })
    }

    /// The template as given.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Variable names in order of first appearance.
    pub fn variables(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for part in &self.parts {
            if let Part::Variable(name) = part
                && !names.contains(&name.as_str())
            {
                names.push(name);
            }
        }
        names
    }

    /// Expands with `values`; every variable must have a value (extra values are ignored).
    pub fn expand(&self, values: &BTreeMap<String, String>) -> Result<String, TemplateError> {
        let missing: Vec<String> = self
            .variables()
            .into_iter()
            .filter(|v| !values.contains_key(*v))
            .map(str::to_string)
            .collect();
        if !missing.is_empty() {
            return Err(TemplateError::MissingVariables {
                template: self.source.clone(),
                missing,
                provided: values.keys().cloned().collect(),
            });
        }
        let mut out = String::with_capacity(self.source.len());
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Variable(name) => {
                    let value = values.get(name).map(String::as_str).unwrap_or_default();
                    out.extend(utf8_percent_encode(value, LEVEL1_ENCODE));
                }
            }
        }
        Ok(out)
    }
}

/// Does `uri` contain a template expression (so `arguments` are needed)?
pub fn is_template(uri: &str) -> bool {
    uri.contains('{')
}

/// Parses and expands in one step.
pub fn expand(template: &str, values: &BTreeMap<String, String>) -> Result<String, TemplateError> {
    UriTemplate::parse(template)?.expand(values)
}

fn check_level1(template: &str, expression: &str) -> Result<(), TemplateError> {
    let unsupported = |feature| TemplateError::Unsupported {
        template: template.to_string(),
        expression: expression.to_string(),
        feature,
    };
    match expression.chars().next() {
        Some('+') => return Err(unsupported("reserved expansion `+`")),
        Some('#') => return Err(unsupported("fragment expansion `#`")),
        Some('.') => return Err(unsupported("label expansion `.`")),
        Some('/') => return Err(unsupported("path segment expansion `/`")),
        Some(';') => return Err(unsupported("path-style parameter expansion `;`")),
        Some('?') => return Err(unsupported("form-style query expansion `?`")),
        Some('&') => return Err(unsupported("form-style query continuation `&`")),
        Some('=' | ',' | '!' | '@' | '|') => return Err(unsupported("reserved operator")),
        _ => {}
    }
    if expression.contains(',') {
        return Err(unsupported("list of several variables"));
    }
    if expression.ends_with('*') {
        return Err(unsupported("explode modifier `*`"));
    }
    if expression.contains(':') {
        return Err(unsupported("prefix modifier `:n`"));
    }
    if !is_varname(expression) {
        return Err(TemplateError::BadName {
            template: template.into(),
            name: expression.into(),
        });
    }
    Ok(())
}

/// RFC 6570 `varname = varchar *( ["."] varchar )`, `varchar = ALPHA / DIGIT / "_" / pct-encoded`.
fn is_varname(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes[0] == b'.' || bytes[bytes.len() - 1] == b'.' {
        return false;
    }
    let mut i = 0;
    let mut prev_dot = false;
    while i < bytes.len() {
        match bytes[i] {
            b'.' if prev_dot => return false,
            b'.' => prev_dot = true,
            b'%' => {
                let hex = bytes.get(i + 1..i + 3);
                if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                    return false;
                }
                i += 2;
                prev_dot = false;
            }
            b if b.is_ascii_alphanumeric() || b == b'_' => prev_dot = false,
            _ => return false,
        }
        i += 1;
    }
    true
}

#[cfg(test)]
#[path = "uri_template_tests.rs"]
mod tests;
