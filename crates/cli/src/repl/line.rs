//! What the user typed, classified once, and what goes to the model.
//!
//! Invariants (structural, not by convention):
//! - [`classify`] — the only place that gives `.` and `!` a meaning — accepts a [`UserLine`]
//!   and nothing else. A `UserLine` is made only from the line editor's output
//!   ([`UserLine::typed`]).
//! - The turn loop accepts a [`UserMessage`]. A `.prompt` result becomes a `UserMessage`
//!   directly ([`UserMessage::from_prompt`]); there is no conversion from `UserMessage` (or
//!   from a prompt result) to `UserLine`, so server-controlled prompt text starting with `!`
//!   or `.` can only ever be chatted, never executed.

use super::commands::{Command, CommandError, parse_command};

/// A line the person typed at the REPL prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserLine(String);

impl UserLine {
    /// Wraps the line editor's output. Do not call this with text from anywhere else (a
    /// server, a file): such text must become a [`UserMessage`].
    pub fn typed(text: String) -> Self {
        UserLine(text)
    }

    /// A step of one of the user's own macro files (`<config>/macros/NAME.yaml`): written by
    /// the person, so it runs like a typed line. Never use it for server-provided text.
    pub fn from_macro(step: String) -> Self {
        UserLine(step)
    }
}

/// Where a chat message came from (shown in logs; the model sees only the text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageOrigin {
    /// Typed by the person.
    Typed,
    /// The flattened result of `.prompt SERVER NAME`.
    Prompt { server: String, name: String },
}

/// A user message for the turn loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserMessage {
    text: String,
    origin: MessageOrigin,
}

impl UserMessage {
    /// A flattened prompt result (already labelled by `coyote_mcp::prompt`). Submitted as-is.
    pub fn from_prompt(server: &str, name: &str, flattened: String) -> Self {
        UserMessage {
            text: flattened,
            origin: MessageOrigin::Prompt {
                server: server.to_owned(),
                name: name.to_owned(),
            },
        }
    }

    #[cfg(test)]
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn origin(&self) -> &MessageOrigin {
        &self.origin
    }

    pub fn into_text(self) -> String {
        self.text
    }
}

/// What a typed line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineAction {
    /// Blank line: nothing happens.
    Nothing,
    /// A dot-command.
    Command(Command),
    /// `!cmd`: run in the shell (the text after `!`).
    Shell(String),
    /// Anything else: send to the model.
    Chat(UserMessage),
    /// `.NAME ARGS…` where NAME is no builtin: a macro, if one has that name (builtins are
    /// dispatched first, so a macro named like a builtin never gets here). Prompts are
    /// never dispatched by bare name.
    Macro { name: String, args: String },
}

/// Gives a typed line its meaning. The only place where a leading `.` or `!` is special.
pub fn classify(line: UserLine) -> Result<LineAction, CommandError> {
    let text = line.0;
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(LineAction::Nothing);
    }
    if let Some(command) = trimmed.strip_prefix('!') {
        return Ok(LineAction::Shell(command.trim().to_owned()));
    }
    // `.` followed by a letter is a command; `...` or `.5` is ordinary text.
    if trimmed.starts_with('.') && trimmed[1..].starts_with(|c: char| c.is_ascii_alphabetic()) {
        return match parse_command(trimmed) {
            Ok(command) => Ok(LineAction::Command(command)),
            Err(CommandError::Unknown { word }) => {
                let args = trimmed[word.len()..].trim().to_owned();
                Ok(LineAction::Macro {
                    name: word[1..].to_owned(),
                    args,
                })
            }
            Err(error) => Err(error),
        };
    }
    Ok(LineAction::Chat(UserMessage {
        text,
        origin: MessageOrigin::Typed,
    }))
}

#[cfg(test)]
#[path = "line_tests.rs"]
mod tests;
