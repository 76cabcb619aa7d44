//! Command-line grammar (clap derive). Only parsing lives here: each subcommand's behaviour is
//! in its own module. Help texts are written for people reading `--help`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "coyote",
    version,
    disable_help_subcommand = true,
    about = "An LLM command-line client with a complete MCP client",
    long_about = "coyote talks to MCP servers configured in mcp.json (Claude Desktop format).\n\
                  `coyote mcp …` runs every MCP operation from the shell, without an LLM.",
    after_help = "Config: $COYOTE_CONFIG_DIR or ~/.config/coyote (mcp.json). Logs: the state dir's coyote.log.\n\
                  Exit codes: 0 ok, 1 model/server/tool error, 2 usage or configuration error, 130 interrupted."
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
    Models {
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

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Show every configured server: transport, state, protocol, capabilities, counts.
    Servers {
        #[command(flatten)]
        out: OutputArgs,
        /// Only the configured names, one per line, without starting any server (used by
        /// the shell completion scripts).
        #[arg(long, hide = true, conflicts_with = "json")]
        names: bool,
    },
    /// List tools (of one server, or of all).
    Tools {
        server: Option<String>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// List resources.
    Resources {
        server: Option<String>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// List resource templates.
    Templates {
        server: Option<String>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// List prompts with their arguments.
    Prompts {
        server: Option<String>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Search a server's catalog (tools, resources, templates, prompts) with BM25.
    Search {
        server: String,
        query: String,
        /// Number of results (1–20).
        #[arg(long, default_value_t = 5)]
        top_k: usize,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// What the `retrieve` exposure would declare of a server for a user message: the tools
    /// by rank, mention or use, with their function names and estimated tokens.
    Retrieve {
        server: String,
        /// The user's message to rank the server's tools against.
        text: String,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Describe one catalog item (default kind: tool).
    Describe {
        server: String,
        id: String,
        #[arg(long, value_enum, default_value = "tool")]
        kind: KindArg,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Call a tool. Arguments are key=value (coerced by the tool's inputSchema) or --json-args.
    #[command(
        after_help = "Examples:\n  coyote mcp call everything echo message=hi\n  \
                            coyote mcp call everything get-sum --json-args '{\"a\":1,\"b\":2}'\n\
                            A result with isError exits 1."
    )]
    Call {
        server: String,
        tool: String,
        /// key=value pairs; values may be quoted. Numbers/booleans/JSON follow the schema.
        args: Vec<String>,
        /// All arguments as one JSON object (instead of key=value pairs).
        #[arg(long, value_name = "JSON", conflicts_with = "args")]
        json_args: Option<String>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Read a resource (text to stdout; binaries are spilled to the cache and described).
    Read {
        server: String,
        /// A resource URI, or a template with {var} placeholders filled by --arg.
        uri: String,
        /// Template variable, key=value (repeatable).
        #[arg(long = "arg", value_name = "K=V")]
        template_args: Vec<String>,
        /// Only lines matching this regex, with 2 lines of context (like `rg -n -C2`).
        #[arg(long)]
        pattern: Option<String>,
        /// Byte offset into the (filtered) text.
        #[arg(long)]
        offset: Option<u64>,
        /// Bytes per page (default 51200, at most 204800).
        #[arg(long)]
        max_bytes: Option<u64>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Get a prompt and print it flattened into one labelled text block.
    Prompt {
        server: String,
        name: String,
        /// key=value arguments (strings).
        args: Vec<String>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Values a server offers for a prompt argument or template variable (`completion/complete`).
    #[command(
        after_help = "The first ARG=PREFIX is the argument completed; further ARG=VALUE pairs are \
                      the arguments already chosen, sent as context.\n\
                      Examples:\n  coyote mcp complete everything --prompt completable-prompt department=Eng\n  \
                      coyote mcp complete everything --prompt completable-prompt name= department=Engineering"
    )]
    Complete {
        server: String,
        /// Complete an argument of this prompt.
        #[arg(
            long,
            value_name = "NAME",
            conflicts_with = "template",
            required_unless_present = "template"
        )]
        prompt: Option<String>,
        /// Complete a variable of this resource template (its uriTemplate or name).
        #[arg(long, value_name = "URI")]
        template: Option<String>,
        /// ARG=PREFIX, then ARG=VALUE pairs as context.
        #[arg(required = true, value_name = "ARG=PREFIX")]
        args: Vec<String>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Subscribe to a resource and print one line per update (unsubscribes on exit).
    #[command(
        after_help = "Exits 0 after --count updates, 130 on Ctrl-C, 1 when the server does not \
                      offer subscriptions or goes away.\n\
                      Example:\n  coyote mcp watch everything demo://resource/static/document/features.md --count 3"
    )]
    Watch {
        server: String,
        /// The resource URI.
        uri: String,
        /// Exit 0 after this many updates.
        #[arg(long, value_name = "N")]
        count: Option<u64>,
        /// Read the resource again after each update and print it (the content policy applies).
        #[arg(long)]
        read: bool,
        /// One JSON object per update: {"type": "updated", "server", "uri", "time"[, "content"]}.
        #[arg(long)]
        json: bool,
    },
    /// Run a meta-function exactly as the model would: `meta mcp_search_srv '{"query":"x"}'`.
    Meta {
        function_name: String,
        /// Arguments as a JSON object.
        #[arg(default_value = "{}")]
        json_args: String,
        /// Print `{"function_name", "is_error", "text"}` as JSON instead of the text.
        #[arg(long)]
        json: bool,
    },
    /// Add a server to mcp.json: `add NAME [-e K=V…] -- CMD ARGS…` or `add NAME --url URL`.
    #[command(
        after_help = "Examples:\n  coyote mcp add everything -- npx -y @modelcontextprotocol/server-everything\n  \
                            coyote mcp add gh -e GITHUB_TOKEN='${GITHUB_TOKEN}' -- github-mcp-server stdio\n  \
                            coyote mcp add remote --url https://mcp.example.com/mcp --header 'X-Team: core'\n  \
                            coyote mcp add events --url https://events.example.com/sse --transport sse\n  \
                            coyote mcp add slack --url https://mcp.slack.com/mcp --client-id 123.456 --scope chat:write\n\
                            A remote server that asks for sign-in: `coyote mcp login NAME` (`coyote help remote-servers`)."
    )]
    Add {
        name: String,
        /// Environment variable for a stdio server, K=V (repeatable; `${VAR}` allowed).
        #[arg(short = 'e', long = "env", value_name = "K=V")]
        env: Vec<String>,
        /// URL of a streamable HTTP or legacy SSE server (instead of a command).
        #[arg(long, conflicts_with = "command")]
        url: Option<String>,
        /// Transport of the --url server: `http` (streamable HTTP, the default) or `sse`
        /// (legacy HTTP+SSE).
        #[arg(long, value_name = "http|sse", requires = "url", value_parser = ["http", "sse"])]
        transport: Option<String>,
        /// HTTP header, "K: V" (repeatable).
        #[arg(long = "header", value_name = "K:V", requires = "url")]
        headers: Vec<String>,
        /// OAuth client id registered with the server's authorization server (`oauth.clientId`).
        #[arg(long, value_name = "ID", requires = "url")]
        client_id: Option<String>,
        /// OAuth scope to ask for at sign-in (repeatable; `oauth.scopes`).
        #[arg(long = "scope", value_name = "SCOPE", requires = "url")]
        scopes: Vec<String>,
        /// Replace an existing entry of the same name.
        #[arg(long)]
        force: bool,
        /// Print `{"action", "name", "file"}` as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// The command and its arguments, after `--`.
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Copy servers other clients configured into mcp.json (names already there are skipped
    /// unless --force). Exit 0 when something was imported, else 1.
    #[command(
        after_help = "Sources:\n  claude-code     the project's .mcp.json, then ~/.claude.json\n  \
                      cursor          the project's .cursor/mcp.json, then ~/.cursor/mcp.json\n  \
                      claude-desktop  claude_desktop_config.json ($XDG_CONFIG_HOME/Claude or \
                      ~/.config/Claude; ~/Library/Application Support/Claude on macOS)\n  \
                      FILE            any file with an \"mcpServers\" object\n\
                      Without --from, every client source is read in that order."
    )]
    Import {
        /// Where from: claude-desktop, claude-code, cursor, or a FILE path.
        #[arg(long, value_name = "SOURCE")]
        from: Option<String>,
        /// Replace entries of the same name.
        #[arg(long)]
        force: bool,
        /// Print `{"file", "read", "imported", "skipped"}` as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Remove a server from mcp.json.
    Remove {
        name: String,
        /// Print `{"action", "name", "file"}` as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Sign in to a remote server (OAuth): opens $BROWSER (or xdg-open/open) and waits for the
    /// redirect on a loopback port; the tokens are stored for every later command.
    #[command(
        after_help = "The URL is always printed on stderr, so it can be opened on another machine \
                      (then forward the redirect port, or set \"redirectPort\"). See \
                      `coyote help remote-servers`."
    )]
    Login { name: String },
    /// Forget a remote server's sign-in (its stored tokens).
    Logout { name: String },
    /// Show the cached server catalogs a chat declares idle servers from, or delete them
    /// (`coyote mcp cache clear`).
    Cache {
        /// `clear` deletes every cached catalog.
        action: Option<CacheAction>,
        #[command(flatten)]
        out: OutputArgs,
    },
}

/// What `coyote mcp cache` does besides listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CacheAction {
    /// Delete every cached catalog.
    Clear,
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
