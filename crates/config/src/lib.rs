//! coyote's configuration: where files live ([`ConfigPaths`]), the MCP server list from
//! `mcp.json` in the Claude Desktop format ([`McpLoader`], [`parse_mcp_json`]), trust of
//! project-local files ([`TrustStore`]), `coyote mcp add/remove` edits ([`add_server`],
//! [`remove_server`]) and `coyote mcp import` ([`import_servers`]). No globals and no printing: every function takes what it reads from
//! (paths, an [`EnvLookup`]) and returns values, warnings included.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod agents;
mod app_config;
mod bounded;
mod definition;
mod dupes;
mod edit;
mod entry;
mod env;
mod error;
mod expand;
mod fsutil;
mod import;
mod json_path;
mod keys;
mod loader;
mod macros;
mod mcp_json;
mod paths;
mod roles;
mod selection;
mod serde_words;
mod sessions_store;
mod sign_in;
mod trust;
mod warning;

pub use agents::{
    AGENT_FILE, AGENT_MCP_FILE, Agent, AgentVariable, DelegateProblem, MAX_DELEGATE_DEPTH,
    MissingVariables, check_delegates, list_agents, list_agents_with_defaults, load_agent,
    load_agent_with_defaults, parse_agent, shadowed_app_servers,
};
pub use app_config::{
    AppConfig, AppConfigError, ClientEntry, ClientOrigin, DEFAULT_COMPACT_THRESHOLD,
    DEFAULT_MAX_TOOL_ROUNDS, KeyStatus, ModelOrigin, ResolvedModel, ServerList, ThemeSetting,
    client_types, detect_providers, load_app_config, parse_app_config,
};
pub use bounded::{MAX_CONFIG_FILE_BYTES, MAX_SESSION_FILE_BYTES, MAX_YAML_DEPTH, ReadLimit};
pub use definition::{
    DefinitionError, DefinitionKind, DefinitionWarning, DefinitionWarningKind, Listing,
};
pub use edit::{
    AddOutcome, HttpEntry, HttpTransport, IfExists, ServerEntry, StdioEntry, add_server,
    parse_env_assignment, parse_header, remove_server,
};
pub use env::{EnvLookup, MapEnv, ProcessEnv};
pub use error::{
    ConfigError, Expected, IoOp, MAX_SERVER_NAME_BYTES, MAX_TIMEOUT_SECS, NameProblem, Problem,
    ProblemKind,
};
pub use expand::VarProblem;
pub use import::{ImportReport, ImportSource, ImportedServer, SkippedServer, import_servers};
pub use json_path::JsonPath;
pub use loader::{
    McpConfig, McpLoader, PROJECT_DIR, PROJECT_MCP_FILE, ProjectFiles, SHARED_PROJECT_FILE,
    find_project_file, find_project_files,
};
pub use macros::{
    Macro, MacroArgsError, MacroVariable, expand_placeholders, list_macros, load_macro,
    parse_macro, placeholders,
};
pub use mcp_json::{
    BrokenServer, DisabledServer, McpFile, McpFileContext, ServerDefaults, check_server_name,
    load_mcp_file, parse_mcp_json,
};
pub use paths::{ConfigPaths, PathOverrides};
pub use roles::{Role, list_roles, load_role, parse_role};
pub use selection::{
    ALL_SERVERS, ResolvedSelection, Selection, SelectionLayers, SelectionSource, ServerListValue,
    Toggle, expand_server_list, resolve_selection,
};
pub use sessions_store::{
    SESSION_FILE_VERSION, SessionEntry, SessionFile, SessionFormat, SessionMeta, SessionStore,
    SessionStoreError,
};
pub use sign_in::{DEFAULT_LOGIN_TIMEOUT, SignInSettings, TOKEN_STORE_ENV, TokenStoreKind};
pub use trust::{ProjectFile, TrustDecision, TrustStatus, TrustStore, sha256_hex};
pub use warning::{ConfigWarning, WarningKind};
