//! `config.yaml`: which model to talk to and how to reach it, plus global chat defaults.
//!
//! ```yaml
//! model: local:qwen2.5-coder        # <client>:<model>; the model part may contain colons
//! max_tool_rounds: 25
//! compact_threshold: 80             # compact at this % of the model's context_window
//! token_store: keyring              # OAuth tokens: file (default) or keyring
//! oauth_login_timeout: 300          # seconds a browser sign-in may take
//! clients:
//!   - type: openai-compatible        # or: anthropic, or a preset (groq, gemini, …)
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
//! [`detect_providers`]) are added after the configured ones unless a configured
//! client has the same name. API keys are resolved from `api_key_env` when the config is loaded,
//! and a missing variable is reported only when that client is used, so one unset key never
//! breaks the others. Invariant: no error message or `Debug` output contains a key's value.

mod aws;
mod client;
mod detect;
mod errors;
mod parse;
mod validator;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use coyote_protocol::{Exposure, ModelConfig, ProviderConfig};

use crate::mcp_json::ServerDefaults;

pub use client::client_types;
pub use detect::detect_providers;
pub use errors::AppConfigError;
pub use parse::{load_app_config, parse_app_config};

/// Compact a conversation at this share of the model's context window (percent).
pub const DEFAULT_COMPACT_THRESHOLD: u8 = 80;

/// Tool rounds per turn when config.yaml does not say.
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
    /// Every configured server.
    All,
    /// These names (aliases from `mapping_mcp_servers` not yet expanded); empty = none.
    Names(Vec<String>),
}

/// Where a client entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientOrigin {
    /// A `clients:` entry of config.yaml.
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
    Resolved {
        /// The variable it came from.
        variable: String,
    },
    /// `api_key_env` names this variable, which is unset or empty.
    Missing {
        /// The variable, which is unset or empty.
        variable: String,
    },
    /// `api_key_cmd`: the provider runs this command for the key when it needs it.
    Command {
        /// The command.
        command: String,
    },
    /// Bedrock: AWS credentials found.
    Aws {
        /// `environment` or `profile NAME (PATH)`.
        source: String,
    },
    /// Bedrock: no AWS credentials in the environment nor in this profile.
    MissingAws {
        /// The profile looked in.
        profile: String,
    },
}

/// One usable client.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientEntry {
    /// Ready for `coyote_llm::build_provider` (once [`KeyStatus`] is not `Missing`).
    pub provider: ProviderConfig,
    /// Whether its API key is there.
    pub key: KeyStatus,
    /// Where the entry came from.
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
    /// `temperature:`; `None` leaves each provider's default.
    pub temperature: Option<f64>,
    /// `max_tool_rounds:`, tool-call rounds per turn.
    pub max_tool_rounds: u32,
    /// Configured clients first, then detected ones.
    pub clients: Vec<ClientEntry>,
    /// `enabled_mcp_servers:`; `None` enables every server.
    pub enabled_mcp_servers: Option<ServerList>,
    /// Aliases: `git: [github, gitlab]`.
    pub mapping_mcp_servers: BTreeMap<String, Vec<String>>,
    /// Default tool exposure for servers that do not set `expose`.
    pub expose: Exposure,
    /// `compact_threshold`: compact at this percentage of the context window.
    pub compact_threshold: u8,
    /// `token_store` (or `$COYOTE_TOKEN_STORE`) and `oauth_login_timeout`.
    pub sign_in: crate::SignInSettings,
    /// `theme`: the background the terminal renderer draws answers for.
    pub theme: ThemeSetting,
}

/// config.yaml `theme:` — `auto` (detect the terminal's background), `dark` or `light`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThemeSetting {
    /// Detect the background.
    #[default]
    Auto,
    /// A dark background.
    Dark,
    /// A light background.
    Light,
}

/// A model to chat with, ready to build a provider from.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedModel {
    /// The client, key resolved.
    pub provider: ProviderConfig,
    /// The model within it.
    pub model: ModelConfig,
    /// What chose it.
    pub origin: ModelOrigin,
}

impl ResolvedModel {
    /// `client:model`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.provider.name, self.model.name)
    }
}

impl AppConfig {
    /// What mcp.json entries inherit from config.yaml when they leave a key out: `expose`.
    /// Pass it to [`crate::McpLoader::defaults`]; an entry's own `"expose"` always wins (the
    /// one place that resolves it is the entry reader).
    pub fn server_defaults(&self) -> ServerDefaults {
        ServerDefaults {
            expose: self.expose,
            ..ServerDefaults::default()
        }
    }

    /// The client named `name`, if configured or detected.
    pub fn client(&self, name: &str) -> Option<&ClientEntry> {
        self.clients.iter().find(|c| c.provider.name == name)
    }

    /// The client named `name` ready to build a provider from: known, and its key (or AWS
    /// credentials) available.
    pub fn usable_client(&self, name: &str) -> Result<&ProviderConfig, AppConfigError> {
        let Some(client) = self.client(name) else {
            return Err(AppConfigError::UnknownClient {
                path: self.path.clone(),
                origin: ModelOrigin::CommandLine,
                client: name.to_owned(),
                known: self.client_names(),
            });
        };
        self.resolved(client, ModelConfig::named(""), ModelOrigin::CommandLine)?;
        Ok(&client.provider)
    }

    /// Every client name, configured ones first.
    pub fn client_names(&self) -> Vec<String> {
        self.clients
            .iter()
            .map(|c| c.provider.name.clone())
            .collect()
    }

    /// `enabled_mcp_servers` with `mapping_mcp_servers` aliases expanded, duplicates dropped,
    /// in first-mention order; `None` means every server (the key is absent or `all`). Uses
    /// the one selection helper ([`crate::expand_server_list`]), so it cannot drift from it.
    pub fn enabled_server_names(&self) -> Option<Vec<String>> {
        let list = self.enabled_mcp_servers.as_ref()?;
        match crate::selection::expand_server_list(list, &self.mapping_mcp_servers) {
            crate::selection::Selection::All => None,
            crate::selection::Selection::Only(names) => Some(names),
        }
    }

    /// Picks the chat model: `requested` (from `-m`), else `model:`, else the first model of
    /// the first client that lists one. Forms: `client:model` (the model may contain colons),
    /// `client` (its first model), or `model` alone when exactly that model is listed by a
    /// client. A model not listed under the client is allowed (servers offer more than the
    /// file lists) with default options.
    pub fn resolve_model(&self, requested: Option<&str>) -> Result<ResolvedModel, AppConfigError> {
        let (client, model, origin) = self.select_model(requested)?;
        self.resolved(client, model, origin)
    }

    /// The model [`Self::resolve_model`] would pick, whether or not its client's API key is
    /// set: what limits derived from the model (its context window) are computed from, so
    /// they never depend on credentials.
    pub fn selected_model(&self, requested: Option<&str>) -> Result<ModelConfig, AppConfigError> {
        self.select_model(requested).map(|(_, model, _)| model)
    }

    /// The client and model for `requested` (see [`Self::resolve_model`]), key not checked.
    fn select_model(
        &self,
        requested: Option<&str>,
    ) -> Result<(&ClientEntry, ModelConfig, ModelOrigin), AppConfigError> {
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
        Ok((client, model, origin))
    }

    fn default_model(&self) -> Result<(&ClientEntry, ModelConfig, ModelOrigin), AppConfigError> {
        let found = self
            .clients
            .iter()
            .find_map(|c| c.provider.models.first().map(|m| (c, m.clone())));
        match found {
            Some((client, model)) => Ok((client, model, ModelOrigin::Default)),
            None if !self.clients.is_empty() => Err(AppConfigError::ModellessClients {
                path: self.path.clone(),
                clients: self.client_names(),
            }),
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
        if let KeyStatus::MissingAws { profile } = &client.key {
            return Err(AppConfigError::MissingAwsCredentials {
                client: client.provider.name.clone(),
                profile: profile.clone(),
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
