//! `config.yaml`: which model to talk to and how to reach it, plus global chat defaults.
//!
//! ```yaml
//! model: local:qwen2.5-coder        # <client>:<model>; the model part may contain colons
//! max_tool_rounds: 25
//! clients:
//!   - type: openai-compatible        # or: anthropic
//!     name: local
//!     api_base: http://127.0.0.1:8080/v1
//!     api_key_env: LOCAL_LLM_KEY     # optional; keys are never stored in the file
//!     models:
//!       - name: qwen2.5-coder
//!         max_tokens: 2048
//!         context_window: 32768
//! ```
//!
//! Parsed Raw → validated [`AppConfig`] in one conversion ([`parse_app_config`]); unknown keys are
//! errors (a typo must not silently use a default). Clients detected from the environment
//! (`OPENAI_API_KEY`/`OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `OLLAMA_HOST`, see
//! [`coyote_llm::detect_providers`]) are added after the configured ones unless a configured
//! client has the same name. API keys are resolved from `api_key_env` when the config is loaded,
//! and a missing variable is reported only when that client is used, so one unset key never
//! breaks the others. Invariant: no error message or `Debug` output contains a key's value.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use coyote_llm::{
    ANTHROPIC_API_BASE, ApiKey, ModelConfig, OPENAI_API_BASE, ProviderConfig, ProviderKind,
    detect_providers,
};
use coyote_protocol::Exposure;
use serde::Deserialize;

use crate::env::EnvLookup;
use crate::paths::ConfigPaths;

/// Tool rounds per turn when config.yaml does not say (issue 4).
pub const DEFAULT_MAX_TOOL_ROUNDS: u32 = 25;

/// Where the chat model's name came from (selects the wording of errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelOrigin {
    /// `-m/--model` on the command line.
    CommandLine,
    /// `model:` in config.yaml.
    ConfigFile,
    /// Nothing named one: the first model of the first client.
    Default,
}

/// Which MCP servers a conversation may use (`enabled_mcp_servers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerList {
    All,
    /// These names (aliases from `mapping_mcp_servers` not yet expanded); empty = none.
    Names(Vec<String>),
}

/// Where a client entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientOrigin {
    ConfigFile,
    /// Detected from environment variables (zero-config).
    Environment,
}

/// Whether the client's API key is available.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyStatus {
    /// The client needs no key (local servers).
    NotNeeded,
    /// Resolved into [`ClientEntry::provider`]'s `api_key`.
    Resolved { variable: String },
    /// `api_key_env` names this variable, which is unset or empty.
    Missing { variable: String },
}

/// One usable client.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientEntry {
    /// Ready for `coyote_llm::build_provider` (once [`KeyStatus`] is not `Missing`).
    pub provider: ProviderConfig,
    pub key: KeyStatus,
    pub origin: ClientOrigin,
}

/// The validated contents of config.yaml plus the zero-config clients.
#[derive(Debug, Clone, PartialEq)]
pub struct AppConfig {
    /// The file read; `None` when it does not exist (zero-config).
    pub source: Option<PathBuf>,
    /// The file coyote reads (for messages even when it does not exist yet).
    pub path: PathBuf,
    /// `model:` as written (`client:model`).
    pub model: Option<String>,
    pub temperature: Option<f64>,
    pub max_tool_rounds: u32,
    /// Configured clients first, then detected ones.
    pub clients: Vec<ClientEntry>,
    pub enabled_mcp_servers: Option<ServerList>,
    /// Aliases: `git: [github, gitlab]`.
    pub mapping_mcp_servers: BTreeMap<String, Vec<String>>,
    /// Default tool exposure for servers that do not set `expose` (issue 7).
    pub expose: Exposure,
}

/// A model to chat with, ready to build a provider from.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedModel {
    pub provider: ProviderConfig,
    pub model: ModelConfig,
    pub origin: ModelOrigin,
}

impl ResolvedModel {
    /// `client:model`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.provider.name, self.model.name)
    }
}

/// Everything that can be wrong with config.yaml or a model choice. Messages name the file,
/// the key and the fix.
#[derive(Debug, thiserror::Error)]
pub enum AppConfigError {
    #[error("cannot read {}: {source}. Fix: check that you may read the file", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// YAML syntax or shape (wrong type, unknown key); `message` carries the key path and the
    /// line/column from the YAML parser.
    #[error(
        "{}: {message}. Fix: correct that entry (the format is described in docs/chat.md)",
        path.display()
    )]
    Syntax { path: PathBuf, message: String },

    #[error("{}: `{key}`: {problem}. Fix: {fix}", path.display())]
    Invalid {
        path: PathBuf,
        key: String,
        problem: String,
        fix: String,
    },

    #[error(
        "no model configured. Fix: set `model: <client>:<model>` with a `clients:` entry in {}, \
         or export OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST, or pass -m <client>:<model> \
         (see docs/chat.md)",
        path.display()
    )]
    NoModel { path: PathBuf },

    #[error(
        "{}: no client named \"{client}\"; {}. Fix: use one of those names, or add the client \
         to `clients:` in {}",
        origin_label(*origin, path),
        known_clients(known),
        path.display()
    )]
    UnknownClient {
        path: PathBuf,
        origin: ModelOrigin,
        client: String,
        known: Vec<String>,
    },

    #[error(
        "{}: \"{requested}\" names no model and client \"{client}\" lists none. Fix: write it \
         as {client}:<model>, or list the client's models under `models:` in {}",
        origin_label(*origin, path),
        path.display()
    )]
    NoModelForClient {
        path: PathBuf,
        origin: ModelOrigin,
        requested: String,
        client: String,
    },

    #[error(
        "client \"{client}\" reads its API key from ${variable} (`api_key_env` in {}), which is \
         not set. Fix: export {variable}=<your key>, or choose another model with -m",
        path.display()
    )]
    MissingKey {
        path: PathBuf,
        client: String,
        variable: String,
    },
}

fn origin_label(origin: ModelOrigin, path: &Path) -> String {
    match origin {
        ModelOrigin::CommandLine => "-m/--model".to_owned(),
        ModelOrigin::ConfigFile => format!("{}: `model`", path.display()),
        ModelOrigin::Default => "the default model".to_owned(),
    }
}

fn known_clients(known: &[String]) -> String {
    if known.is_empty() {
        "no clients are configured".to_owned()
    } else {
        format!("clients: {}", known.join(", "))
    }
}

// ---- Raw shapes (exactly what the file may say) ----

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAppConfig {
    model: Option<String>,
    temperature: Option<f64>,
    max_tool_rounds: Option<u32>,
    #[serde(default)]
    clients: Vec<RawClient>,
    enabled_mcp_servers: Option<RawServerList>,
    #[serde(default)]
    mapping_mcp_servers: BTreeMap<String, RawServerList>,
    expose: Option<Exposure>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClient {
    #[serde(rename = "type")]
    kind: ProviderKind,
    name: String,
    api_base: Option<String>,
    api_key_env: Option<String>,
    #[serde(default)]
    models: Vec<RawModel>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    name: String,
    max_tokens: Option<u32>,
    context_window: Option<u32>,
}

/// `all`, `a,b`, `[a, b]`, `[]` or null.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawServerList {
    Text(String),
    List(Vec<String>),
}

impl RawServerList {
    fn into_list(self) -> ServerList {
        match self {
            RawServerList::Text(t) if t.trim() == "all" => ServerList::All,
            RawServerList::Text(t) => ServerList::Names(
                t.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            ),
            RawServerList::List(names) => ServerList::Names(names),
        }
    }
}

/// Loads `<config>/config.yaml` (absent = zero-config) and adds clients detected from `env`.
pub fn load_app_config(
    paths: &ConfigPaths,
    env: &dyn EnvLookup,
) -> Result<AppConfig, AppConfigError> {
    let path = paths.config_yaml();
    match std::fs::read_to_string(&path) {
        Ok(text) => parse_app_config(&text, &path, Some(path.clone()), env),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            parse_app_config("", &path, None, env)
        }
        Err(source) => Err(AppConfigError::Read { path, source }),
    }
}

/// Parses config.yaml text (`path` for messages; `source` is `None` when there is no file).
pub fn parse_app_config(
    text: &str,
    path: &Path,
    source: Option<PathBuf>,
    env: &dyn EnvLookup,
) -> Result<AppConfig, AppConfigError> {
    let raw: RawAppConfig = if text.trim().is_empty() {
        RawAppConfig::default()
    } else {
        // An empty document or only comments deserializes as null: treat it as empty too.
        match serde_yaml_ng::from_str::<Option<RawAppConfig>>(text) {
            Ok(raw) => raw.unwrap_or_default(),
            Err(e) => {
                return Err(AppConfigError::Syntax {
                    path: path.to_owned(),
                    message: e.to_string(),
                });
            }
        }
    };
    Validator { path, env }.validate(raw, source)
}

struct Validator<'a> {
    path: &'a Path,
    env: &'a dyn EnvLookup,
}

impl Validator<'_> {
    fn invalid(
        &self,
        key: impl Into<String>,
        problem: impl Into<String>,
        fix: impl Into<String>,
    ) -> AppConfigError {
        AppConfigError::Invalid {
            path: self.path.to_owned(),
            key: key.into(),
            problem: problem.into(),
            fix: fix.into(),
        }
    }

    fn validate(
        &self,
        raw: RawAppConfig,
        source: Option<PathBuf>,
    ) -> Result<AppConfig, AppConfigError> {
        if let Some(model) = &raw.model
            && (model.trim().is_empty() || model.starts_with(':'))
        {
            return Err(self.invalid(
                "model",
                "is empty or has no client name",
                "write it as <client>:<model>, e.g. openai:gpt-4.1-mini",
            ));
        }
        if let Some(t) = raw.temperature
            && !(0.0..=2.0).contains(&t)
        {
            return Err(self.invalid(
                "temperature",
                format!("{t} is outside 0 to 2"),
                "use a value between 0 and 2, or remove the key",
            ));
        }
        if raw.max_tool_rounds == Some(0) {
            return Err(self.invalid(
                "max_tool_rounds",
                "is 0, so the model could never use a tool",
                format!("use a number of rounds of at least 1 (default {DEFAULT_MAX_TOOL_ROUNDS})"),
            ));
        }
        let mut clients = Vec::new();
        let mut names = BTreeSet::new();
        for (i, client) in raw.clients.into_iter().enumerate() {
            let entry = self.client(i, client)?;
            if !names.insert(entry.provider.name.clone()) {
                return Err(self.invalid(
                    format!("clients[{i}].name"),
                    format!("\"{}\" is used by an earlier client", entry.provider.name),
                    "give every client its own name",
                ));
            }
            clients.push(entry);
        }
        let lookup = |name: &str| self.env.var(name);
        for detected in detect_providers(&lookup) {
            if names.insert(detected.name.clone()) {
                let key = match detected.api_key.as_ref().map(|k| k.source().clone()) {
                    Some(coyote_llm::KeySource::Env(variable)) => KeyStatus::Resolved { variable },
                    Some(coyote_llm::KeySource::Provided) => KeyStatus::Resolved {
                        variable: String::new(),
                    },
                    None => KeyStatus::NotNeeded,
                };
                clients.push(ClientEntry {
                    provider: detected,
                    key,
                    origin: ClientOrigin::Environment,
                });
            }
        }
        let mut mapping = BTreeMap::new();
        for (alias, list) in raw.mapping_mcp_servers {
            match list.into_list() {
                ServerList::Names(names) => {
                    mapping.insert(alias, names);
                }
                ServerList::All => {
                    return Err(self.invalid(
                        format!("mapping_mcp_servers.{alias}"),
                        "an alias cannot stand for `all`",
                        "list the server names, e.g. [github, gitlab]",
                    ));
                }
            }
        }
        Ok(AppConfig {
            source,
            path: self.path.to_owned(),
            model: raw.model,
            temperature: raw.temperature,
            max_tool_rounds: raw.max_tool_rounds.unwrap_or(DEFAULT_MAX_TOOL_ROUNDS),
            clients,
            enabled_mcp_servers: raw.enabled_mcp_servers.map(RawServerList::into_list),
            mapping_mcp_servers: mapping,
            expose: raw.expose.unwrap_or_default(),
        })
    }

    fn client(&self, i: usize, raw: RawClient) -> Result<ClientEntry, AppConfigError> {
        let key = |field: &str| format!("clients[{i}].{field}");
        if !is_client_name(&raw.name) {
            return Err(self.invalid(
                key("name"),
                format!("\"{}\" is not a usable client name", raw.name),
                "use letters, digits, `_`, `-` and `.` only (it is typed before the colon in -m name:model)",
            ));
        }
        let api_base = match raw.api_base {
            Some(base) => {
                check_api_base(&base).map_err(|problem| {
                    self.invalid(
                        key("api_base"),
                        problem,
                        "write the server's base URL, e.g. http://127.0.0.1:8080/v1",
                    )
                })?;
                base.trim_end_matches('/').to_owned()
            }
            None => match raw.kind {
                ProviderKind::OpenAiCompatible => OPENAI_API_BASE.to_owned(),
                ProviderKind::Anthropic => ANTHROPIC_API_BASE.to_owned(),
            },
        };
        let mut models = Vec::new();
        for (j, m) in raw.models.into_iter().enumerate() {
            if m.name.trim().is_empty() {
                return Err(self.invalid(
                    key(&format!("models[{j}].name")),
                    "is empty",
                    "write the model id the server knows, e.g. gpt-4.1-mini",
                ));
            }
            if m.max_tokens == Some(0) {
                return Err(self.invalid(
                    key(&format!("models[{j}].max_tokens")),
                    "is 0",
                    "use a positive output limit, or remove the key",
                ));
            }
            models.push(ModelConfig {
                name: m.name,
                max_tokens: m.max_tokens,
                context_window: m.context_window,
            });
        }
        let mut provider = ProviderConfig::new(raw.kind, raw.name, api_base).with_models(models);
        let status = match raw.api_key_env {
            None => KeyStatus::NotNeeded,
            Some(variable) => {
                if !is_env_name(&variable) {
                    return Err(self.invalid(
                        key("api_key_env"),
                        format!("\"{variable}\" is not an environment variable name"),
                        "write the variable's name (e.g. OPENAI_API_KEY), never the key itself",
                    ));
                }
                match self.env.var(&variable).filter(|v| !v.trim().is_empty()) {
                    Some(secret) => {
                        provider.api_key = Some(ApiKey::from_env(variable.clone(), secret.trim()));
                        KeyStatus::Resolved { variable }
                    }
                    None => KeyStatus::Missing { variable },
                }
            }
        };
        Ok(ClientEntry {
            provider,
            key: status,
            origin: ClientOrigin::ConfigFile,
        })
    }
}

fn is_client_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The base must be an absolute http(s) URL. The problem text never repeats the URL (it may
/// carry credentials).
fn check_api_base(base: &str) -> Result<(), String> {
    match url::Url::parse(base.trim()) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => Ok(()),
        Ok(url) => Err(format!(
            "the URL's scheme is \"{}\"; only http and https are supported",
            url.scheme()
        )),
        Err(e) => Err(format!("is not a URL ({e})")),
    }
}

impl AppConfig {
    pub fn client(&self, name: &str) -> Option<&ClientEntry> {
        self.clients.iter().find(|c| c.provider.name == name)
    }

    pub fn client_names(&self) -> Vec<String> {
        self.clients
            .iter()
            .map(|c| c.provider.name.clone())
            .collect()
    }

    /// `enabled_mcp_servers` with `mapping_mcp_servers` aliases expanded, duplicates dropped,
    /// in first-mention order; `None` means every server (the key is absent or `all`).
    pub fn enabled_server_names(&self) -> Option<Vec<String>> {
        let names = match &self.enabled_mcp_servers {
            None | Some(ServerList::All) => return None,
            Some(ServerList::Names(names)) => names,
        };
        let mut out: Vec<String> = Vec::new();
        for name in names {
            let expanded = match self.mapping_mcp_servers.get(name) {
                Some(members) => members.clone(),
                None => vec![name.clone()],
            };
            for member in expanded {
                if !out.contains(&member) {
                    out.push(member);
                }
            }
        }
        Some(out)
    }

    /// Picks the chat model: `requested` (from `-m`), else `model:`, else the first model of
    /// the first client that lists one. Forms: `client:model` (the model may contain colons),
    /// `client` (its first model), or `model` alone when exactly that model is listed by a
    /// client. A model not listed under the client is allowed (servers offer more than the
    /// file lists) with default options.
    pub fn resolve_model(&self, requested: Option<&str>) -> Result<ResolvedModel, AppConfigError> {
        let (text, origin) = match (requested, &self.model) {
            (Some(r), _) => (r.trim().to_owned(), ModelOrigin::CommandLine),
            (None, Some(m)) => (m.trim().to_owned(), ModelOrigin::ConfigFile),
            (None, None) => return self.default_model(),
        };
        let (client_name, model_name) = match text.split_once(':') {
            Some((c, m)) => (c.to_owned(), Some(m.to_owned()).filter(|m| !m.is_empty())),
            None if self.client(&text).is_some() => (text.clone(), None),
            None => match self
                .clients
                .iter()
                .find(|c| c.provider.model(&text).is_some())
            {
                Some(c) => (c.provider.name.clone(), Some(text.clone())),
                None => {
                    return Err(AppConfigError::UnknownClient {
                        path: self.path.clone(),
                        origin,
                        client: text,
                        known: self.client_names(),
                    });
                }
            },
        };
        let Some(client) = self.client(&client_name) else {
            return Err(AppConfigError::UnknownClient {
                path: self.path.clone(),
                origin,
                client: client_name,
                known: self.client_names(),
            });
        };
        let model = match model_name {
            Some(name) => client
                .provider
                .model(&name)
                .cloned()
                .unwrap_or_else(|| ModelConfig::named(name)),
            None => match client.provider.models.first() {
                Some(m) => m.clone(),
                None => {
                    return Err(AppConfigError::NoModelForClient {
                        path: self.path.clone(),
                        origin,
                        requested: text,
                        client: client_name,
                    });
                }
            },
        };
        self.resolved(client, model, origin)
    }

    fn default_model(&self) -> Result<ResolvedModel, AppConfigError> {
        let found = self
            .clients
            .iter()
            .find_map(|c| c.provider.models.first().map(|m| (c, m.clone())));
        match found {
            Some((client, model)) => self.resolved(client, model, ModelOrigin::Default),
            None => Err(AppConfigError::NoModel {
                path: self.path.clone(),
            }),
        }
    }

    fn resolved(
        &self,
        client: &ClientEntry,
        model: ModelConfig,
        origin: ModelOrigin,
    ) -> Result<ResolvedModel, AppConfigError> {
        if let KeyStatus::Missing { variable } = &client.key {
            return Err(AppConfigError::MissingKey {
                path: self.path.clone(),
                client: client.provider.name.clone(),
                variable: variable.clone(),
            });
        }
        Ok(ResolvedModel {
            provider: client.provider.clone(),
            model,
            origin,
        })
    }
}

impl fmt::Display for ClientOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClientOrigin::ConfigFile => "config.yaml",
            ClientOrigin::Environment => "environment",
        })
    }
}

#[cfg(test)]
#[path = "app_config_tests.rs"]
mod tests;
