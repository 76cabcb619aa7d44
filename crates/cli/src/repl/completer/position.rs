//! Where the cursor is in a REPL line, for completion: which [`Stage`] the word under it is
//! (a dot-command, its arguments, a `.prompt` stage, an `@` mention) and the partial word to
//! complete. Pure: no I/O; the parent module turns a position into candidates.

use std::collections::{BTreeMap, BTreeSet};

use super::super::commands::CommandName;
use super::super::words::split_words;
use super::mentions;

/// What the word under the cursor is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// Nothing to complete (plain chat text, inside quotes, past the last argument).
    None,
    /// `@…` in a chat line: servers, then that server's resources and templates.
    Mention,
    /// A dot-command word.
    Command,
    ListTarget,
    McpSubcommand,
    /// `.mcp restart|enable|disable <TAB>`: any configured server (local state).
    McpServer,
    /// `.session <TAB>`.
    SessionSubcommand,
    /// `.role <TAB>`, `.macro <TAB>`, `.session load|save <TAB>`: names from the config dir.
    Definition(DefinitionDir),
    /// `.prompt <TAB>`.
    PromptServer,
    /// `.prompt srv <TAB>`.
    PromptName {
        server: String,
    },
    /// `.prompt srv name … <TAB>`.
    PromptArgKey {
        server: String,
        prompt: String,
        typed_keys: BTreeSet<String>,
    },
    /// `.prompt srv name … key=<TAB>`: the server's values (`completion/complete`).
    PromptArgValue {
        server: String,
        prompt: String,
        key: String,
        /// The other arguments typed, sent as context.
        given: BTreeMap<String, String>,
    },
}

/// Which definitions a name is completed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionDir {
    Roles,
    Macros,
    Sessions,
}

/// The `.session` subcommands.
pub(super) const SESSION_SUBCOMMANDS: [&str; 4] = ["new", "save", "load", "list"];

/// Where the completion happens: the stage and the partial word (from `start` to the cursor).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub stage: Stage,
    pub start: usize,
    pub partial: String,
}

/// Works out what is being completed in `line[..pos]`.
pub fn position(line: &str, pos: usize) -> Position {
    let before = &line[..pos.min(line.len())];
    if let Some(start) = mentions::mention_start(before) {
        return Position {
            stage: Stage::Mention,
            start,
            partial: before[start..].to_owned(),
        };
    }
    let none = |start: usize, partial: &str| Position {
        stage: Stage::None,
        start,
        partial: partial.to_owned(),
    };
    let Some(words) = split_words(before) else {
        return none(pos, "");
    };
    let (done, partial, start) = match words.last() {
        Some(last) if last.end == before.len() => {
            (&words[..words.len() - 1], last.text.clone(), last.start)
        }
        _ => (&words[..], String::new(), before.len()),
    };
    let stage = match done
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] if partial.starts_with('.') => Stage::Command,
        [cmd, rest @ ..] => match (CommandName::lookup(cmd), rest) {
            (Some(CommandName::List), []) => Stage::ListTarget,
            (Some(CommandName::Mcp), []) => Stage::McpSubcommand,
            (Some(CommandName::Mcp), ["restart" | "enable" | "disable" | "login"])
            | (Some(CommandName::Watch | CommandName::Unwatch | CommandName::Skills), []) => {
                Stage::McpServer
            }
            (Some(CommandName::Role), []) => Stage::Definition(DefinitionDir::Roles),
            (Some(CommandName::Macro), []) => Stage::Definition(DefinitionDir::Macros),
            (Some(CommandName::Session), []) => Stage::SessionSubcommand,
            (Some(CommandName::Session), ["load" | "save"]) => {
                Stage::Definition(DefinitionDir::Sessions)
            }
            (Some(CommandName::Prompt), []) => Stage::PromptServer,
            (Some(CommandName::Prompt), [server]) => Stage::PromptName {
                server: (*server).to_owned(),
            },
            (Some(CommandName::Prompt), [server, prompt, args @ ..]) => {
                let given: BTreeMap<String, String> = args
                    .iter()
                    .filter_map(|a| a.split_once('='))
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect();
                match partial.split_once('=') {
                    None => Stage::PromptArgKey {
                        server: (*server).to_owned(),
                        prompt: (*prompt).to_owned(),
                        typed_keys: given.into_keys().collect(),
                    },
                    Some((key, _)) => Stage::PromptArgValue {
                        server: (*server).to_owned(),
                        prompt: (*prompt).to_owned(),
                        key: key.to_owned(),
                        given,
                    },
                }
            }
            _ => Stage::None,
        },
        _ => Stage::None,
    };
    Position {
        stage,
        start,
        partial,
    }
}
