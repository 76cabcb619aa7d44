//! Macros in the REPL: `.macro NAME ARGS…`, bare `.NAME ARGS…` (only when no builtin has that
//! name — the line classifier dispatches builtins first), `.list macros`, and the start-up
//! warning for macros shadowed by a builtin.
//!
//! Invariants:
//! - A macro's steps are the user's own lines and run one by one exactly like typed lines
//!   ([`UserLine::from_macro`]); a step that fails is reported and the remaining steps still
//!   run, except that `.exit` ends the REPL.
//! - Nesting is bounded by [`MAX_MACRO_DEPTH`] (a macro calling itself stops there).
//! - Prompts are never run by bare name: only macro files are looked up here.

use coyote_config::{DefinitionError, list_macros, load_macro};

use super::commands::{CommandError, REPL_COMMANDS};
use super::line::UserLine;
use super::{Flow, Repl};
use crate::output::Table;

/// How deep macros may call macros.
pub const MAX_MACRO_DEPTH: usize = 4;

/// The builtin command names without the dot (what a macro must not be called).
pub fn builtin_names() -> Vec<&'static str> {
    REPL_COMMANDS
        .iter()
        .map(|c| c.word.trim_start_matches('.'))
        .collect()
}

/// How a macro was invoked (selects the message for a missing one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invocation {
    /// `.macro NAME`.
    Explicit,
    /// `.NAME` with no builtin of that name.
    Bare,
}

impl Repl {
    /// Runs macro `name` with `args` (positional, quotes group words).
    pub(super) fn run_macro(&mut self, name: &str, args: &str, how: Invocation) -> Flow {
        let Some(paths) = self.paths.as_ref() else {
            self.screen
                .line("coyote: no configuration directory is known");
            return Flow::Continue;
        };
        let definition = match load_macro(&paths.macros_dir(), name, &builtin_names()) {
            Ok(m) => m,
            Err(DefinitionError::NotFound { .. } | DefinitionError::InvalidName { .. })
                if how == Invocation::Bare =>
            {
                let unknown = CommandError::Unknown {
                    word: format!(".{name}"),
                };
                self.screen.line(&format!("coyote: {unknown}"));
                return Flow::Continue;
            }
            Err(e) => {
                self.screen.line(&format!("coyote: {e}"));
                return Flow::Continue;
            }
        };
        let args = match split_args(args) {
            Ok(args) => args,
            Err(problem) => {
                self.screen
                    .line(&format!("coyote: macro `{name}`: {problem}"));
                return Flow::Continue;
            }
        };
        let steps = match definition.expand(&args) {
            Ok(steps) => steps,
            Err(e) => {
                self.screen.line(&format!("coyote: {e}"));
                return Flow::Continue;
            }
        };
        if self.macro_depth >= MAX_MACRO_DEPTH {
            self.screen.line(&format!(
                "coyote: macro `{name}` not run: macros nest at most {MAX_MACRO_DEPTH} deep \
                 (does it call itself?)"
            ));
            return Flow::Continue;
        }
        self.macro_depth += 1;
        let mut flow = Flow::Continue;
        for step in steps {
            self.screen.line(&format!("» {step}"));
            flow = self.handle_line(UserLine::from_macro(step));
            if flow == Flow::Exit {
                break;
            }
        }
        self.macro_depth -= 1;
        flow
    }

    /// `.list macros`: shadowed macros are marked; broken files are listed with their error.
    pub(super) fn list_macros(&self) -> String {
        let Some(paths) = self.paths.as_ref() else {
            return "No configuration directory is known.\n".to_owned();
        };
        let dir = paths.macros_dir();
        let listing = list_macros(&dir, &builtin_names());
        if listing.items.is_empty() && listing.errors.is_empty() {
            return format!(
                "No macros in {}; create NAME.yaml there (see `coyote help agents`).\n",
                dir.display()
            );
        }
        let mut table = Table::new(vec!["macro", "usage", "description"]);
        for m in &listing.items {
            let name = if m.shadowed_by_builtin {
                format!(
                    "{} (shadowed by .{}; run with .macro {})",
                    m.name, m.name, m.name
                )
            } else {
                m.name.clone()
            };
            let usage = if m.shadowed_by_builtin {
                m.usage().replacen('.', ".macro ", 1)
            } else {
                m.usage()
            };
            table.row(vec![name, usage, m.description.clone().unwrap_or_default()]);
        }
        let mut out = table.render();
        for error in &listing.errors {
            out.push_str(&format!("error: {error}\n"));
        }
        out
    }

    /// Warnings printed once when the REPL starts: macros shadowed by a builtin, macro and
    /// role files that do not load.
    pub fn startup_warnings(&self) -> Vec<String> {
        let Some(paths) = self.paths.as_ref() else {
            return Vec::new();
        };
        let macros = list_macros(&paths.macros_dir(), &builtin_names());
        let mut out: Vec<String> = macros
            .items
            .iter()
            .flat_map(|m| m.warnings.iter().map(ToString::to_string))
            .collect();
        out.extend(macros.errors.iter().map(ToString::to_string));
        let roles = coyote_config::list_roles(&paths.roles_dir());
        out.extend(roles.errors.iter().map(ToString::to_string));
        out
    }
}

/// Splits macro arguments at whitespace; `"…"` and `'…'` group words (no escapes inside
/// single quotes, `\"` inside double quotes).
pub fn split_args(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                in_word = true;
                let quote = c;
                loop {
                    match chars.next() {
                        None => return Err(format!("unclosed {quote} quote; close it")),
                        Some(c) if c == quote => break,
                        Some('\\') if quote == '"' => match chars.next() {
                            Some(escaped) => current.push(escaped),
                            None => return Err("a trailing \\ escapes nothing".to_owned()),
                        },
                        Some(c) => current.push(c),
                    }
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        out.push(current);
    }
    Ok(out)
}

#[cfg(test)]
#[path = "macro_cmd_tests.rs"]
mod tests;
