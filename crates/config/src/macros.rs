//! Macros: `<config>/macros/NAME.yaml` with `description`, positional `variables` (with
//! optional defaults) and `steps` (REPL lines), plus `{{var}}` expansion.
//!
//! Invariants:
//! - Every `{{name}}` in a step refers to a declared variable (checked at load time, so a typo
//!   is reported with the file and step, not when the macro runs).
//! - A macro named like a builtin REPL command is loaded but flagged `shadowed_by_builtin`
//!   with a warning: builtins are dispatched first, `.macro NAME` still runs it. The
//!   builtin names come from the caller (the REPL owns its command table).
//! - Prompts are never macros: nothing here knows about MCP.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_yaml_ng::Value;

use crate::definition::{
    DefinitionError, DefinitionKind, DefinitionWarning, DefinitionWarningKind, Fields, FileShape,
    Listing, check_definition_name, definition_names, parse_mapping, read_definition, scalar_text,
};

const MACRO_KEYS: &[&str] = &["description", "variables", "steps"];

/// One positional variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MacroVariable {
    /// The variable's name, as `{{name}}` in the steps.
    pub name: String,
    /// Used when the argument is not given; `None` = required.
    pub default: Option<String>,
}

/// One macro.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Macro {
    /// The macro's name (its file name without `.yaml`).
    pub name: String,
    /// Its file.
    pub file: PathBuf,
    /// `description:`, for `.list macros`.
    pub description: Option<String>,
    /// `variables:`, in the order arguments fill them.
    pub variables: Vec<MacroVariable>,
    /// REPL lines, unexpanded.
    pub steps: Vec<String>,
    /// `.NAME` runs the builtin of that name; mark it in `.list macros`.
    pub shadowed_by_builtin: bool,
    /// What was odd but usable in its file.
    pub warnings: Vec<DefinitionWarning>,
}

/// Wrong arguments to a macro.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MacroArgsError {
    /// A required variable has no argument.
    #[error("macro `{name}` needs `{variable}`; usage: {usage}")]
    Missing {
        /// The macro.
        name: String,
        /// The variable.
        variable: String,
        /// How to call the macro.
        usage: String,
    },
    /// More arguments than variables.
    #[error(
        "macro `{name}` takes {max} argument(s), got {given}; usage: {usage} (quote an argument containing spaces)"
    )]
    TooMany {
        /// The macro.
        name: String,
        /// How many it takes.
        max: usize,
        /// How many were given.
        given: usize,
        /// How to call the macro.
        usage: String,
    },
}

/// Loads `<macros_dir>/NAME.yaml`; `builtins` are the REPL's command names (without `.`).
pub fn load_macro(
    macros_dir: &Path,
    name: &str,
    builtins: &[&str],
) -> Result<Macro, DefinitionError> {
    check_definition_name(DefinitionKind::Macro, name)?;
    let file = macros_dir.join(format!("{name}.yaml"));
    let text = read_definition(DefinitionKind::Macro, macros_dir, name, &file, "yaml")?;
    parse_macro(name, &file, &text, builtins)
}

/// Every `*.yaml` macro of the directory; shadow warnings are in each macro's `warnings`.
pub fn list_macros(macros_dir: &Path, builtins: &[&str]) -> Listing<Macro> {
    let mut listing = Listing::default();
    for name in definition_names(macros_dir, FileShape::Extension("yaml")) {
        match load_macro(macros_dir, &name, builtins) {
            Ok(m) => listing.items.push(m),
            Err(e) => listing.errors.push(e),
        }
    }
    listing
}

/// Parses a macro file's text; `file` is used in messages.
pub fn parse_macro(
    name: &str,
    file: &Path,
    text: &str,
    builtins: &[&str],
) -> Result<Macro, DefinitionError> {
    let map = parse_mapping(file, text)?;
    let fields = Fields::new(file, &map);
    let mut warnings = fields.unknown_keys(MACRO_KEYS);
    let variables = parse_variables(&fields)?;
    let steps = fields.string_list("steps")?.unwrap_or_default();
    if steps.is_empty() {
        return Err(fields.wrong(
            "steps",
            "a macro needs at least one step",
            "add `steps: [\".role coder\", \"write a test\"]`",
        ));
    }
    let declared: Vec<&str> = variables.iter().map(|v| v.name.as_str()).collect();
    for (i, step) in steps.iter().enumerate() {
        for used in placeholders(step) {
            if !declared.contains(&used) {
                return Err(fields.wrong(
                    &format!("steps[{i}]"),
                    &format!("`{{{{{used}}}}}` is not a declared variable"),
                    &format!(
                        "declare it under `variables:` (`- name: {used}`) or fix the spelling"
                    ),
                ));
            }
        }
    }
    let shadowed_by_builtin = builtins.contains(&name);
    if shadowed_by_builtin {
        warnings.push(DefinitionWarning {
            file: file.to_owned(),
            kind: DefinitionWarningKind::MacroShadowedByBuiltin {
                name: name.to_owned(),
            },
        });
    }
    Ok(Macro {
        name: name.to_owned(),
        file: file.to_owned(),
        description: fields.string("description")?,
        variables,
        steps,
        shadowed_by_builtin,
        warnings,
    })
}

/// `variables: [{name: x, default: y}, …]`; a bare string item is a required variable.
fn parse_variables(fields: &Fields<'_>) -> Result<Vec<MacroVariable>, DefinitionError> {
    let items = match fields.get("variables") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Sequence(items)) => items,
        Some(_) => {
            return Err(fields.wrong(
                "variables",
                "expected a list",
                "write `variables:` then lines like `- name: path` / `  default: .`",
            ));
        }
    };
    let mut out: Vec<MacroVariable> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key = format!("variables[{i}]");
        let variable = match item {
            Value::String(name) => MacroVariable {
                name: name.clone(),
                default: None,
            },
            Value::Mapping(map) => {
                let item_fields = Fields::new(fields.file(), map);
                let Some(name) = item_fields.string("name")? else {
                    return Err(fields.wrong(
                        &format!("{key}.name"),
                        "missing",
                        "add `name: something`",
                    ));
                };
                let default = match map.get("default") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(scalar_text(v).ok_or_else(|| {
                        fields.wrong(
                            &format!("{key}.default"),
                            "expected a text value",
                            "write `default: some text`",
                        )
                    })?),
                };
                MacroVariable { name, default }
            }
            _ => {
                return Err(fields.wrong(
                    &key,
                    "expected `name: …` (and optional `default: …`)",
                    "write `- name: path`",
                ));
            }
        };
        if !is_variable_name(&variable.name) {
            return Err(fields.wrong(
                &format!("{key}.name"),
                &format!("`{}` is not a valid variable name", variable.name),
                "use letters, digits and `_`",
            ));
        }
        if out.iter().any(|v| v.name == variable.name) {
            return Err(fields.wrong(
                &format!("{key}.name"),
                &format!("`{}` is declared twice", variable.name),
                "rename one of them",
            ));
        }
        if variable.default.is_none() && out.iter().any(|v| v.default.is_some()) {
            return Err(fields.wrong(
                &format!("{key}.default"),
                "a required variable follows one with a default, so it could never be reached positionally",
                "give it a default or move it before the optional ones",
            ));
        }
        out.push(variable);
    }
    Ok(out)
}

fn is_variable_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Macro {
    /// `.NAME <a> [b=default]` for messages.
    pub fn usage(&self) -> String {
        let mut out = format!(".{}", self.name);
        for v in &self.variables {
            match &v.default {
                None => out.push_str(&format!(" <{}>", v.name)),
                Some(d) => out.push_str(&format!(" [{}={}]", v.name, d)),
            }
        }
        out
    }

    /// The steps with positional `args` substituted (missing ones take their default).
    pub fn expand(&self, args: &[String]) -> Result<Vec<String>, MacroArgsError> {
        if args.len() > self.variables.len() {
            return Err(MacroArgsError::TooMany {
                name: self.name.clone(),
                max: self.variables.len(),
                given: args.len(),
                usage: self.usage(),
            });
        }
        let mut values = BTreeMap::new();
        for (i, v) in self.variables.iter().enumerate() {
            let value = match (args.get(i), &v.default) {
                (Some(arg), _) => arg.clone(),
                (None, Some(default)) => default.clone(),
                (None, None) => {
                    return Err(MacroArgsError::Missing {
                        name: self.name.clone(),
                        variable: v.name.clone(),
                        usage: self.usage(),
                    });
                }
            };
            values.insert(v.name.clone(), value);
        }
        Ok(self
            .steps
            .iter()
            .map(|s| expand_placeholders(s, &values))
            .collect())
    }
}

/// Replaces each `{{name}}` whose name is in `values`; others are left as written.
pub fn expand_placeholders(text: &str, values: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) if values.contains_key(after[..end].trim()) => {
                out.push_str(&values[after[..end].trim()]);
                rest = &after[end + 2..];
            }
            _ => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The variable names used as `{{name}}` in `text`.
pub fn placeholders(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        let name = after[..end].trim();
        if is_variable_name(name) {
            out.push(name);
        }
        rest = &after[end + 2..];
    }
    out
}

#[cfg(test)]
#[path = "macros_tests.rs"]
mod tests;
