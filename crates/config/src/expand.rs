//! `${VAR}` expansion in mcp.json strings (command, args, env values, cwd, url, header values).
//!
//! Grammar (only `${` starts an expansion; any other `$` is literal, so passwords that contain
//! `$` survive untouched):
//! - `${NAME}` — the variable; unset is an error. `${env:NAME}` is the same (Cursor's spelling).
//! - `${NAME:-default}` — `default` when NAME is unset or empty (POSIX semantics).
//! - `${userHome}` — `$HOME`; `${workspaceFolder}` — the project root for a project file, the
//!   current directory otherwise (both Cursor's).
//! - `$${` — a literal `${`.
//!
//! Invariant: errors carry variable names only, never values (values are often secrets).

use std::path::Path;

use crate::env::EnvLookup;

/// Why a `${…}` could not be expanded. Carries names, never values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarProblem {
    /// `${NAME}` with NAME unset and no `:-default`.
    Unset {
        /// The variable's name.
        var: String,
    },
    /// `${` without a closing `}`.
    Unterminated,
    /// The text between `${` and `}` is not a variable name.
    BadName {
        /// The text as written.
        name: String,
    },
}

/// Whether variables are resolved or only checked for syntax (used when `coyote mcp add`
/// stores `${VAR}` that need not be set at the time of writing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExpandMode {
    Resolve,
    SyntaxOnly,
}

pub(crate) struct ExpandContext<'a> {
    pub env: &'a dyn EnvLookup,
    /// Value of `${workspaceFolder}`.
    pub workspace: &'a Path,
    pub mode: ExpandMode,
}

impl ExpandContext<'_> {
    /// Expands every `${…}` in `input`. In `SyntaxOnly` mode the input is returned unchanged
    /// after its syntax was checked.
    pub fn expand(&self, input: &str) -> Result<String, VarProblem> {
        let mut out = String::with_capacity(input.len());
        let mut rest = input;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            if let Some(tail) = after.strip_prefix("${") {
                out.push_str("${");
                rest = tail;
                continue;
            }
            let Some(body_and_tail) = after.strip_prefix('{') else {
                out.push('$');
                rest = after;
                continue;
            };
            let end = body_and_tail.find('}').ok_or(VarProblem::Unterminated)?;
            let body = &body_and_tail[..end];
            rest = &body_and_tail[end + 1..];
            let (name, default) = match body.find(":-") {
                Some(j) => (&body[..j], Some(&body[j + 2..])),
                None => (body, None),
            };
            let value = self.lookup(name)?;
            match (value, default) {
                (Some(v), Some(d)) if v.is_empty() => out.push_str(d),
                (Some(v), _) => out.push_str(&v),
                (None, Some(d)) => out.push_str(d),
                (None, None) if self.mode == ExpandMode::SyntaxOnly => {}
                (None, None) => {
                    return Err(VarProblem::Unset {
                        var: display_name(name),
                    });
                }
            }
        }
        out.push_str(rest);
        match self.mode {
            ExpandMode::Resolve => Ok(out),
            ExpandMode::SyntaxOnly => Ok(input.to_owned()),
        }
    }

    fn lookup(&self, name: &str) -> Result<Option<String>, VarProblem> {
        match name {
            "userHome" => Ok(self.env.var("HOME")),
            "workspaceFolder" => Ok(Some(self.workspace.to_string_lossy().into_owned())),
            _ => {
                let var = name.strip_prefix("env:").unwrap_or(name);
                if !is_var_name(var) {
                    return Err(VarProblem::BadName {
                        name: name.to_owned(),
                    });
                }
                Ok(self.env.var(var))
            }
        }
    }
}

/// The variable a user must set for `name` (`userHome` is `HOME`, `env:X` is `X`).
fn display_name(name: &str) -> String {
    match name {
        "userHome" => "HOME".to_owned(),
        _ => name.strip_prefix("env:").unwrap_or(name).to_owned(),
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*` — the portable shell variable name.
pub(crate) fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
#[path = "expand_tests.rs"]
mod tests;
