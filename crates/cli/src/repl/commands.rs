//! The REPL's dot-commands: ONE table ([`REPL_COMMANDS`]) that drives parsing, `.help` and
//! stage-0 completion, so a command cannot exist in one place and be missing in another.
//!
//! Invariants:
//! - Every [`CommandName`] has exactly one row in [`REPL_COMMANDS`] (a unit test checks it).
//! - Parsing a command never looks at anything but the typed line; what a command does lives
//!   in the [`super::Repl`] methods (`repl/mod.rs` and the `*_cmd.rs` files). The `.help`
//!   text is generated from the table in `help.rs`.

use std::fmt;

/// The name of a dot-command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommandName {
    Help,
    Model,
    Info,
    List,
    Mcp,
    Prompt,
    Clear,
    Exit,
    Role,
    Macro,
    Session,
    Compact,
    Agent,
    File,
    Reasoning,
    Roots,
    Watch,
    Unwatch,
    Skills,
}

/// One row of the command table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandSpec {
    pub name: CommandName,
    /// What the user types, with the leading dot.
    pub word: &'static str,
    /// Argument synopsis for `.help`.
    pub usage: &'static str,
    pub description: &'static str,
    /// When the command can be used (shown by `.help`).
    pub validity: Validity,
}

/// When a command is valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validity {
    /// Any time at the prompt.
    Always,
    /// Needs at least one running (Ready) MCP server to do anything useful.
    NeedsServers,
}

/// The command table. Order is the `.help` order.
pub const REPL_COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: CommandName::Help,
        word: ".help",
        usage: "",
        description: "Show this help",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Model,
        word: ".model",
        usage: "[CLIENT:MODEL]",
        description: "Show the model, or switch to another configured one",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Info,
        word: ".info",
        usage: "",
        description: "Model, MCP servers with their state, token usage (secrets redacted)",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::List,
        word: ".list",
        usage: "tools|prompts|resources|mcp-servers|roles|macros|agents",
        description: "List what the MCP servers offer (a failing server is reported), or roles, macros, agents",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Mcp,
        word: ".mcp",
        usage: "status | restart|enable|disable|login NAME | log NAME LEVEL",
        description: "Show server states; restart a server, enable/disable it for this session, sign in to it, or set the level of the log messages it sends",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Roots,
        word: ".roots",
        usage: "list | add DIR | remove DIR",
        description: "Show or change the directories MCP servers are told they may work in (roots)",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Prompt,
        word: ".prompt",
        usage: "SERVER NAME [key=value …]",
        description: "Send a server's prompt as your message (missing required arguments are asked)",
        validity: Validity::NeedsServers,
    },
    CommandSpec {
        name: CommandName::Skills,
        word: ".skills",
        usage: "[SERVER]",
        description: "List the skills MCP servers publish; a skill's files are fetched (and verified) only when the model uses it",
        validity: Validity::NeedsServers,
    },
    CommandSpec {
        name: CommandName::Watch,
        word: ".watch",
        usage: "[SERVER URI]",
        description: "Watch a resource: its updates are listed to the model with your next message; without arguments show the watches",
        validity: Validity::NeedsServers,
    },
    CommandSpec {
        name: CommandName::Unwatch,
        word: ".unwatch",
        usage: "[SERVER URI]",
        description: "Stop watching a resource (without arguments: every one)",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Role,
        word: ".role",
        usage: "[NAME]",
        description: "Use a role (system prompt, model, MCP servers); without NAME leave it",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Macro,
        word: ".macro",
        usage: "NAME [ARG …]",
        description: "Run a macro's steps (also `.NAME ARG …` when no builtin has that name)",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Session,
        word: ".session",
        usage: "new | save NAME | load NAME | list",
        description: "Start, save, load or list sessions (conversation, role, MCP selection)",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Compact,
        word: ".compact",
        usage: "",
        description: "Compact the conversation now (old tool results out, oldest turns summarised)",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Agent,
        word: ".agent",
        usage: "[NAME]",
        description: "Run as an agent (instructions, model, own MCP servers, delegates); without NAME leave it",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::File,
        word: ".file",
        usage: "PATH",
        description: "Attach a file to your next message (text inline, images to models that take them)",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Reasoning,
        word: ".reasoning",
        usage: "",
        description: "Show the whole reasoning of the last answer that streamed any",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Clear,
        word: ".clear",
        usage: "",
        description: "Start a new conversation (forget the messages so far)",
        validity: Validity::Always,
    },
    CommandSpec {
        name: CommandName::Exit,
        word: ".exit",
        usage: "",
        description: "Leave the REPL (Ctrl-D on an empty line does the same)",
        validity: Validity::Always,
    },
];

impl CommandName {
    #[expect(
        clippy::expect_used,
        reason = "REPL_COMMANDS has a row per CommandName; commands_tests checks every name"
    )]
    pub fn spec(self) -> &'static CommandSpec {
        REPL_COMMANDS
            .iter()
            .find(|c| c.name == self)
            .expect("every command has a row in REPL_COMMANDS")
    }

    /// Looks a typed word (`.list`) up in the table.
    pub fn lookup(word: &str) -> Option<CommandName> {
        REPL_COMMANDS
            .iter()
            .find(|c| c.word == word)
            .map(|c| c.name)
    }
}

impl fmt::Display for CommandName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spec().word)
    }
}

/// What `.list` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListTarget {
    Tools,
    Prompts,
    Resources,
    McpServers,
    Roles,
    Macros,
    Agents,
}

impl ListTarget {
    pub const ALL: &'static [(ListTarget, &'static str)] = &[
        (ListTarget::Tools, "tools"),
        (ListTarget::Prompts, "prompts"),
        (ListTarget::Resources, "resources"),
        (ListTarget::McpServers, "mcp-servers"),
        (ListTarget::Roles, "roles"),
        (ListTarget::Macros, "macros"),
        (ListTarget::Agents, "agents"),
    ];

    fn parse(word: &str) -> Option<ListTarget> {
        Self::ALL.iter().find(|(_, w)| *w == word).map(|(t, _)| *t)
    }
}

/// The `.mcp` subcommands.
pub const MCP_SUBCOMMANDS: &[&str] = &["status", "restart", "enable", "disable", "login", "log"];

/// `.roots …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootsCommand {
    List,
    Add(String),
    Remove(String),
}

/// `.session …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionCommand {
    New,
    Save(String),
    Load(String),
    List,
}

/// `.watch …` / `.unwatch …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchCommand {
    /// `.watch`: show the watches.
    List,
    /// `.watch SERVER URI`.
    Add { server: String, uri: String },
    /// `.unwatch [SERVER URI]` (`None`: every watch).
    Remove(Option<(String, String)>),
}

/// A parsed dot-command with its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Help,
    /// `None`: show the current model.
    Model(Option<String>),
    Info,
    List(ListTarget),
    McpStatus,
    McpRestart(String),
    /// `.mcp login NAME`: sign in to a remote server, then restart it.
    McpLogin(String),
    /// `.prompt` with everything after the command word, unparsed (quotes need the prompt
    /// argument parser, see `prompt_cmd.rs`).
    Prompt(String),
    Clear,
    Exit,
    /// `.mcp enable NAME` / `.mcp disable NAME`.
    McpToggle(coyote_config::Toggle),
    /// `.role NAME`; `None` leaves the role.
    Role(Option<String>),
    /// `.macro NAME ARGS…` (arguments unparsed: quotes are split by the macro runner).
    Macro {
        name: String,
        args: String,
    },
    Session(SessionCommand),
    Compact,
    /// `.agent NAME`; `None` leaves the agent.
    Agent(Option<String>),
    /// `.file PATH` (the rest of the line: paths may contain spaces).
    File(String),
    Reasoning,
    /// `.roots list|add DIR|remove DIR`.
    Roots(RootsCommand),
    /// `.watch` / `.unwatch`.
    Watch(WatchCommand),
    /// `.skills [SERVER]`.
    Skills(Option<String>),
    /// `.mcp log NAME LEVEL` (the level is checked when it runs).
    McpLog {
        server: String,
        level: String,
    },
}

/// A dot-command that does not parse; the message says how to write it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("unknown command {word}; type .help for the list of commands")]
    Unknown { word: String },
    #[error("usage: {} {}", .0.word, .0.usage)]
    Usage(&'static CommandSpec),
}

/// Parses a line that starts with `.` into a command.
pub fn parse_command(line: &str) -> Result<Command, CommandError> {
    let line = line.trim();
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    };
    let Some(name) = CommandName::lookup(word) else {
        return Err(CommandError::Unknown {
            word: word.to_owned(),
        });
    };
    let usage = || CommandError::Usage(name.spec());
    let args: Vec<&str> = rest.split_whitespace().collect();
    let no_args = |command: Command| {
        if args.is_empty() {
            Ok(command)
        } else {
            Err(usage())
        }
    };
    match name {
        CommandName::Help => no_args(Command::Help),
        CommandName::Info => no_args(Command::Info),
        CommandName::Clear => no_args(Command::Clear),
        CommandName::Exit => no_args(Command::Exit),
        CommandName::Compact => no_args(Command::Compact),
        CommandName::Reasoning => no_args(Command::Reasoning),
        CommandName::File if rest.is_empty() => Err(usage()),
        CommandName::File => Ok(Command::File(rest.to_owned())),
        CommandName::Agent => match args.as_slice() {
            [] => Ok(Command::Agent(None)),
            [name] => Ok(Command::Agent(Some((*name).to_owned()))),
            _ => Err(usage()),
        },
        CommandName::Skills => match args.as_slice() {
            [] => Ok(Command::Skills(None)),
            [server] => Ok(Command::Skills(Some((*server).to_owned()))),
            _ => Err(usage()),
        },
        CommandName::Role => match args.as_slice() {
            [] => Ok(Command::Role(None)),
            [name] => Ok(Command::Role(Some((*name).to_owned()))),
            _ => Err(usage()),
        },
        CommandName::Macro => match rest.split_once(char::is_whitespace) {
            _ if rest.is_empty() => Err(usage()),
            Some((name, args)) => Ok(Command::Macro {
                name: name.to_owned(),
                args: args.trim().to_owned(),
            }),
            None => Ok(Command::Macro {
                name: rest.to_owned(),
                args: String::new(),
            }),
        },
        CommandName::Session => match args.as_slice() {
            ["new"] => Ok(Command::Session(SessionCommand::New)),
            ["list"] => Ok(Command::Session(SessionCommand::List)),
            ["save", name] => Ok(Command::Session(SessionCommand::Save((*name).to_owned()))),
            ["load", name] => Ok(Command::Session(SessionCommand::Load((*name).to_owned()))),
            _ => Err(usage()),
        },
        CommandName::Model => match args.as_slice() {
            [] => Ok(Command::Model(None)),
            [model] => Ok(Command::Model(Some((*model).to_owned()))),
            _ => Err(usage()),
        },
        CommandName::List => match args.as_slice() {
            [target] => ListTarget::parse(target)
                .map(Command::List)
                .ok_or_else(usage),
            _ => Err(usage()),
        },
        CommandName::Mcp => match args.as_slice() {
            ["status"] => Ok(Command::McpStatus),
            ["restart", name] => Ok(Command::McpRestart((*name).to_owned())),
            ["login", name] => Ok(Command::McpLogin((*name).to_owned())),
            ["enable", name] => Ok(Command::McpToggle(coyote_config::Toggle::Enable(
                (*name).to_owned(),
            ))),
            ["disable", name] => Ok(Command::McpToggle(coyote_config::Toggle::Disable(
                (*name).to_owned(),
            ))),
            ["log", server, level] => Ok(Command::McpLog {
                server: (*server).to_owned(),
                level: (*level).to_owned(),
            }),
            _ => Err(usage()),
        },
        CommandName::Roots => match (args.first(), rest.split_once(char::is_whitespace)) {
            (Some(&"list"), _) if args.len() == 1 => Ok(Command::Roots(RootsCommand::List)),
            (Some(&"add"), Some((_, dir))) => {
                Ok(Command::Roots(RootsCommand::Add(dir.trim().to_owned())))
            }
            (Some(&"remove"), Some((_, dir))) => {
                Ok(Command::Roots(RootsCommand::Remove(dir.trim().to_owned())))
            }
            _ => Err(usage()),
        },
        CommandName::Watch | CommandName::Unwatch => {
            let pair = match args.as_slice() {
                [] => None,
                [server, uri] => Some(((*server).to_owned(), (*uri).to_owned())),
                _ => return Err(usage()),
            };
            Ok(Command::Watch(match (name, pair) {
                (CommandName::Watch, None) => WatchCommand::List,
                (CommandName::Watch, Some((server, uri))) => WatchCommand::Add { server, uri },
                (_, pair) => WatchCommand::Remove(pair),
            }))
        }
        CommandName::Prompt => {
            if args.is_empty() {
                Err(usage())
            } else {
                Ok(Command::Prompt(rest.to_owned()))
            }
        }
    }
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;
