//! The words of `coyote mcp …` (clap derive): one variant per subcommand, with its help text.

use clap::{Subcommand, ValueEnum};

use super::{KindArg, OutputArgs};

/// The after-help of `coyote mcp batch`.
const BATCH_HELP: &str = "\
One command per line, read until the end of FILE or stdin:
  - the words of a `coyote mcp` command, split like a shell does (quotes, backslashes),
    with or without the leading `coyote mcp`; blank lines and `#` comments are skipped;
  - or a JSON object {\"id\": ANY, \"argv\": [\"call\", \"everything\", \"echo\", \"message=hi\"]}.
Global options (--config-dir, --trust-project, …) go before `batch` and hold for every line.
Without --json each command prints what it prints alone. With --json each command runs as
with its own --json and prints one line {\"id\", \"exit\", \"stdout\", \"stderr\"}: `stdout` is
its JSON document (null when it printed nothing, a string when it printed other text), `id`
the JSON line's id or the line number.
A failing command does not stop the batch unless --fail-fast; the batch exits with the
highest exit code seen.
Example:
  printf '%s\\n' 'tools everything' 'call everything echo message=hi' | coyote mcp batch --json";

/// The after-help of `coyote mcp session`.
const SESSION_HELP: &str = "\
The daemon listens on a socket (0600) in $XDG_RUNTIME_DIR/coyote/, else $TMPDIR/coyote-$UID/,
else /tmp/coyote-$UID/ (0700), one per config dir. A command uses it only when its
configuration is the daemon's (same mcp.json entries and project files, git root, global
options); otherwise it runs alone, as it always does. Output and exit codes are the same
either way. A server's question (a form, a page to open, sampling consent) is asked on the
terminal of the command that is running; without one it is declined. Nothing starts a session
but `coyote mcp session start`.
Examples:
  coyote mcp session start --idle-timeout 600
  coyote mcp session status
  coyote mcp session stop";

/// `coyote mcp session …`.
#[derive(Debug, Subcommand)]
pub enum SessionAction {
    /// Start the daemon (detached) and its servers; returns when they are ready.
    Start {
        /// Exit after this many seconds without a command.
        #[arg(long, value_name = "SECS", default_value_t = 1800)]
        idle_timeout: u64,
        /// Serve in this process (what `start` runs, detached).
        #[arg(long, hide = true)]
        daemon: bool,
    },
    /// Stop the daemon: its servers are shut down.
    Stop,
    /// Show whether a daemon serves this config dir, and its servers (exit 1 when none).
    Status {
        /// Print JSON: {"running", "pid", "socket", "config_dir", "idle_timeout_secs", "servers", "served"}.
        #[arg(long)]
        json: bool,
    },
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
        /// With --json: each row also carries `declarations`, the functions (name,
        /// description, JSON Schema) the model is given for that server now — what the
        /// `declared` column counts.
        #[arg(long, requires = "json")]
        declarations: bool,
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
    /// List the skills servers publish (the io.modelcontextprotocol/skills extension): name,
    /// description, files and SKILL.md URI. Lists only; no skill file is fetched.
    Skills {
        server: Option<String>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// A server's MCP tasks (long tool calls it runs in the background): list them, show one,
    /// fetch its result, cancel it. A stdio server's tasks live as long as its process: use it
    /// within `coyote mcp session` (or against an HTTP server).
    Tasks {
        server: String,
        /// `list` (default): every task; `get ID`: one task's state; `result ID`: its result,
        /// printed as `call` prints one (waits for a task still running); `cancel ID`: ask the
        /// server to stop it.
        action: Option<TasksAction>,
        /// The task id (for get, result and cancel).
        id: Option<String>,
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
                      Example:\n  coyote mcp watch everything demo://resource/static/document/features.md --count 3 --call toggle-subscriber-updates"
    )]
    Watch {
        server: String,
        /// The resource URI.
        uri: String,
        /// Exit 0 after this many updates.
        #[arg(long, value_name = "N")]
        count: Option<u64>,
        /// After subscribing, call this tool of the server once (no arguments) in the same
        /// session — for servers that start sending updates only then.
        #[arg(long, value_name = "TOOL")]
        call: Option<String>,
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
    /// Run many `coyote mcp` commands in one process: each server starts once, on first use,
    /// and serves every later command.
    #[command(after_help = BATCH_HELP)]
    Batch {
        /// One JSON line per command: {"id", "exit", "stdout", "stderr"}, where stdout is the
        /// command's own --json document.
        #[arg(long)]
        json: bool,
        /// Stop at the first command that exits non-zero.
        #[arg(long)]
        fail_fast: bool,
        /// Read the commands from FILE (default, or `-`: stdin).
        #[arg(value_name = "FILE")]
        file: Option<std::path::PathBuf>,
    },
    /// Keep the configured servers running for this shell: while the session runs, every
    /// `coyote mcp` command with the same configuration is served by it.
    #[command(after_help = SESSION_HELP)]
    Session {
        #[command(subcommand)]
        action: SessionAction,
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
    /// Sign out of a remote server: revoke its tokens at the authorization server (where it
    /// offers revocation) and forget them.
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

/// What `coyote mcp tasks SERVER` does (default: `list`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TasksAction {
    /// Every task the server reports (`tasks/list`).
    List,
    /// One task's state (`tasks/get`).
    Get,
    /// A task's result (`tasks/result`).
    Result,
    /// Ask the server to stop a task (`tasks/cancel`).
    Cancel,
}
