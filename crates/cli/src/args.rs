//! Command-line grammar (clap derive). Only parsing lives here: each subcommand's behaviour is
//! in its own module. Help texts are written for people reading `--help`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod mcp_command;
pub use mcp_command::{CacheAction, McpCommand, SessionAction, TasksAction};

#[derive(Debug, Parser)]
#[command(
    name = "coyote",
    version,
    disable_help_subcommand = true,
    about = "An LLM command-line client with a complete MCP client",
    long_about = "coyote talks to MCP servers configured in mcp.json (Claude Desktop format).\n\
                  `coyote mcp …` runs every MCP operation from the shell, without an LLM.",
    after_help = "Config (mcp.json, config.yaml): --config-dir, else $COYOTE_CONFIG_DIR, else\n\
                  $XDG_CONFIG_HOME/coyote, else ~/.config/coyote.\n\
                  Log: $COYOTE_STATE_DIR, else $XDG_STATE_HOME/coyote, else ~/.local/state/coyote,\n\
                  then logs/coyote.log (level: --log-level or $COYOTE_LOG).\n\
                  MCP protocol: 2026-07-28 where a server speaks it, else 2025-11-25;\n\
                  $COYOTE_MCP_PROTOCOL=2025-11-25|2026-07-28 pins one.\n\
                  Exit codes: 0 ok, 1 model/server/tool error, 2 usage or configuration error,\n\
                  130 interrupted."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// One-shot chat (used when no subcommand is given).
    #[command(flatten)]
    pub chat: ChatArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `coyote [OPTIONS] [TEXT…]`: one question to the model, answered and done.
#[derive(Debug, Args, Clone, Default)]
pub struct ChatArgs {
    /// The model, CLIENT:MODEL (see `coyote models`); default: `model:` in config.yaml.
    #[arg(short = 'm', long, value_name = "CLIENT:MODEL")]
    pub model: Option<String>,
    /// Fetch the whole answer at once instead of streaming it.
    #[arg(long)]
    pub no_stream: bool,
    /// Print one JSON object per line (text deltas, tool calls, usage) instead of the answer.
    #[arg(long)]
    pub json: bool,
    /// Run tool calls that need approval (destructive tools) without asking.
    #[arg(long)]
    pub yes: bool,
    /// Attach a file (repeatable): text is inlined with its path (up to 1 MiB), a PNG, JPEG,
    /// GIF or WebP image is sent as an image (up to 20 MiB) to models that take images;
    /// `-f -` attaches stdin.
    #[arg(short = 'f', long = "file", value_name = "PATH")]
    pub files: Vec<String>,
    /// Show the model's reasoning (dimmed, on stderr) when it streams any.
    #[arg(long)]
    pub show_reasoning: bool,
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// The message. Piped stdin is added after it (`git diff | coyote "review this"`).
    #[arg(value_name = "TEXT")]
    pub text: Vec<String>,
}

#[derive(Debug, Args, Clone)]
pub struct GlobalArgs {
    /// Use DIR instead of the default config directory (holds mcp.json).
    #[arg(long, global = true, env = "COYOTE_CONFIG_DIR", value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// Trust the project-local .coyote/mcp.json without asking (it can start programs).
    #[arg(long, global = true)]
    pub trust_project: bool,
    /// Log level for the log file (error, warn, info, debug, trace); default info.
    #[arg(long, global = true, env = "COYOTE_LOG", value_name = "LEVEL")]
    pub log_level: Option<String>,
    /// Colours for a dark or light terminal background; `auto` asks the terminal (default:
    /// config.yaml `theme`, else auto).
    #[arg(long, global = true, value_enum, value_name = "THEME")]
    pub theme: Option<crate::markdown::ThemeChoice>,
    /// Show the model's answers as the Markdown it wrote, without rendering.
    #[arg(long, global = true)]
    pub raw: bool,
    /// Level of the log messages MCP servers send and coyote shows (`logging/setLevel`):
    /// debug, info, notice, warning, error, critical, alert, emergency; default warning.
    /// Not coyote's own log file (that is --log-level).
    #[arg(long, global = true, value_name = "LEVEL", value_parser = parse_mcp_log_level)]
    pub mcp_log_level: Option<coyote_mcp::McpLogLevel>,
    /// Let MCP servers ask the model to answer (sampling) without asking you each time.
    /// Without it a terminal asks; without a terminal the request is declined. (`--yes` does
    /// not allow sampling: it approves tools, not model spending.)
    #[arg(long, global = true)]
    pub allow_sampling: bool,
    /// The model that answers MCP servers' sampling requests when none of the configured
    /// models matches the server's hints (default: `model:` in config.yaml).
    #[arg(long, global = true, value_name = "CLIENT:MODEL")]
    pub sampling_model: Option<String>,
}

fn parse_mcp_log_level(text: &str) -> Result<coyote_mcp::McpLogLevel, String> {
    text.parse()
        .map_err(|e: coyote_mcp::UnknownLogLevel| e.to_string())
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run MCP operations against configured servers (no LLM involved).
    #[command(subcommand)]
    Mcp(McpCommand),
    /// List the configured clients and models (config.yaml and environment); no secrets.
    /// With CLIENT: the models that client's server serves (asks the server).
    Models {
        /// A client name: list the models its server serves.
        #[arg(value_name = "CLIENT")]
        client: Option<String>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Start the interactive REPL (also what `coyote` alone does on a terminal).
    Repl(ReplArgs),
    /// Show the help of a command (`coyote help mcp call`) or a topic of the manual
    /// (`coyote help configuration`); without arguments, the list of topics.
    Help {
        /// A command path or a topic.
        #[arg(value_name = "TOPIC")]
        topic: Vec<String>,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "Install, e.g.:\n  \
        bash: coyote completions bash > ~/.local/share/bash-completion/completions/coyote\n  \
        zsh:  coyote completions zsh > ~/.zfunc/_coyote   (with fpath+=~/.zfunc before compinit)\n  \
        fish: coyote completions fish > ~/.config/fish/completions/coyote.fish")]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout, or write one page per command into DIR.
    Man {
        /// Write coyote.1, coyote-mcp.1, coyote-mcp-call.1, … into this directory.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// Options of the REPL.
#[derive(Debug, Args, Clone, Default)]
pub struct ReplArgs {
    /// The model to chat with, `client:model` (default: `model:` in config.yaml).
    #[arg(short = 'm', long, value_name = "CLIENT:MODEL")]
    pub model: Option<String>,
    #[command(flatten)]
    pub scope: ScopeArgs,
}

/// What a conversation runs as, for the one-shot chat and the REPL alike (docs/agents.md).
#[derive(Debug, Args, Clone, Default)]
pub struct ScopeArgs {
    /// Use a role: <config>/roles/NAME.md (system prompt, model, MCP servers).
    #[arg(short = 'r', long, value_name = "NAME")]
    pub role: Option<String>,
    /// The saved session NAME: loaded (or created) and saved after every turn.
    #[arg(long, value_name = "NAME")]
    pub session: Option<String>,
    /// Run as agent NAME: <config>/agents/NAME/ (instructions, model, own MCP servers,
    /// delegates; in the REPL leave it with `.agent`).
    #[arg(short = 'a', long, value_name = "NAME")]
    pub agent: Option<String>,
    /// A value for one of the agent's `variables`, NAME=VALUE (repeatable; on a terminal
    /// missing ones are asked).
    #[arg(long = "var", value_name = "NAME=VALUE", requires = "agent")]
    pub vars: Vec<String>,
}

/// Output format of listings.
#[derive(Debug, Args, Clone, Copy)]
pub struct OutputArgs {
    /// Print JSON (one document) instead of a table, for scripts.
    #[arg(long)]
    pub json: bool,
    /// Show every table cell whole, however wide the table gets (default: fit the terminal,
    /// or $COLUMNS, cutting descriptions with …).
    #[arg(long, conflicts_with = "json")]
    pub wide: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    Tool,
    Resource,
    #[value(alias = "template")]
    ResourceTemplate,
    Prompt,
}

impl ChatArgs {
    /// When no message is given on a terminal the REPL starts; one-shot options that cannot
    /// apply to it are a usage error instead of being silently ignored.
    pub fn repl_misfit(&self) -> Option<String> {
        let given = [
            (self.json, "--json"),
            (self.yes, "--yes"),
            (self.no_stream, "--no-stream"),
            (!self.files.is_empty(), "--file"),
            (self.show_reasoning, "--show-reasoning"),
        ];
        let (_, flag) = given.into_iter().find(|(set, _)| *set)?;
        Some(format!(
            "`{flag}` applies to a one-shot question, and no message was given (so the REPL \
             would start, which does not take it); pass the message: `coyote {flag} \"…\"`, or \
             leave out {flag} to start the REPL"
        ))
    }
}

impl Cli {
    /// The one-shot chat options (`-m`, `--json`, `--no-stream`, `--yes`) given before a
    /// subcommand would be silently ignored by it; say where they belong instead.
    pub fn misplaced_chat_option(&self) -> Option<String> {
        let command = match &self.command {
            None => return None,
            Some(Command::Mcp(_)) => "mcp …",
            Some(Command::Models { .. }) => "models",
            Some(Command::Repl(_)) => "repl",
            Some(Command::Help { .. }) => "help",
            Some(Command::Completions { .. }) => "completions",
            Some(Command::Man { .. }) => "man",
        };
        let chat = &self.chat;
        let given = [
            (chat.model.is_some(), "--model"),
            (chat.json, "--json"),
            (chat.no_stream, "--no-stream"),
            (chat.yes, "--yes"),
            (chat.scope.agent.is_some(), "--agent"),
            (!chat.files.is_empty(), "--file"),
            (chat.show_reasoning, "--show-reasoning"),
        ];
        let (_, flag) = given.into_iter().find(|(set, _)| *set)?;
        let takes_it = matches!(
            (&self.command, flag),
            (Some(Command::Repl(_)), "--model" | "--agent")
                | (
                    Some(Command::Models { .. }) | Some(Command::Mcp(_)),
                    "--json"
                )
        );
        Some(if takes_it {
            format!(
                "`{flag}` is an option of the one-shot chat; for `coyote {command}` put it after \
                 the subcommand (e.g. `coyote {command} {flag}`)"
            )
        } else {
            format!(
                "`{flag}` is an option of the one-shot chat (`coyote [OPTIONS] TEXT`) and \
                 `coyote {command}` does not take it; remove it"
            )
        })
    }
}
