//! config.yaml parsing: the Raw shapes (exactly what the file may say, unknown keys rejected)
//! and their one validating conversion into [`AppConfig`], with errors naming the key and fix.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use coyote_protocol::{Exposure, KeySource};
use serde::Deserialize;

use super::client::RawClient;
use super::detect::detect_providers;
use super::validator::Validator;
use super::{
    AppConfig, AppConfigError, ClientEntry, ClientOrigin, DEFAULT_COMPACT_THRESHOLD,
    DEFAULT_MAX_TOOL_ROUNDS, KeyStatus, ServerList, ThemeSetting,
};
use crate::env::EnvLookup;
use crate::paths::ConfigPaths;

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
    compact_threshold: Option<u8>,
    token_store: Option<crate::TokenStoreKind>,
    oauth_login_timeout: Option<u64>,
    theme: Option<ThemeSetting>,
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
    match crate::bounded::read_bounded_text(&path, crate::bounded::FileClass::Config) {
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
    if let Some(line) = crate::bounded::yaml_too_deep(text) {
        return Err(AppConfigError::Syntax {
            path: path.to_owned(),
            message: format!(
                "line {line}: the YAML is nested deeper than {} levels; flatten it",
                crate::bounded::MAX_YAML_DEPTH
            ),
        });
    }
    let raw: RawAppConfig = if text.trim().is_empty() {
        RawAppConfig::default()
    } else {
        // An empty document or only comments deserializes as null: treat it as empty too.
        match serde_yaml_ng::from_str::<Option<RawAppConfig>>(text) {
            Ok(raw) => raw.unwrap_or_default(),
            Err(e) => {
                return Err(AppConfigError::Syntax {
                    path: path.to_owned(),
                    message: crate::serde_words::plain(&e.to_string()),
                });
            }
        }
    };
    Validator { path, env }.validate(raw, source)
}

impl Validator<'_> {
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
        if let Some(t) = raw.compact_threshold
            && !(10..=100).contains(&t)
        {
            return Err(self.invalid(
                "compact_threshold",
                format!("{t} is outside 10 to 100 (percent of the model's context window)"),
                format!(
                    "use a percentage between 10 and 100 (default {DEFAULT_COMPACT_THRESHOLD}), \
                     or remove the key"
                ),
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
                    Some(KeySource::Env(variable)) => KeyStatus::Resolved { variable },
                    Some(KeySource::Provided) => KeyStatus::Resolved {
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
        let sign_in = self.sign_in(raw.token_store, raw.oauth_login_timeout)?;
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
            compact_threshold: raw.compact_threshold.unwrap_or(DEFAULT_COMPACT_THRESHOLD),
            sign_in,
            theme: raw.theme.unwrap_or_default(),
        })
    }

    /// `token_store` (overridden by `$COYOTE_TOKEN_STORE`) and `oauth_login_timeout`.
    fn sign_in(
        &self,
        token_store: Option<crate::TokenStoreKind>,
        timeout: Option<u64>,
    ) -> Result<crate::SignInSettings, AppConfigError> {
        let mut settings = crate::SignInSettings::default();
        if let Some(text) = self
            .env
            .var(crate::TOKEN_STORE_ENV)
            .filter(|t| !t.is_empty())
        {
            settings.token_store = crate::TokenStoreKind::parse(&text).ok_or_else(|| {
                self.invalid(
                    crate::TOKEN_STORE_ENV,
                    format!("\"{}\" is not a token store", text.escape_debug()),
                    "set it to file or keyring, or unset it",
                )
            })?;
        } else if let Some(kind) = token_store {
            settings.token_store = kind;
        }
        match timeout {
            Some(0) => {
                return Err(self.invalid(
                    "oauth_login_timeout",
                    "is 0, so no sign-in could ever finish",
                    "use a number of seconds (default 300), or remove the key",
                ));
            }
            Some(secs) => settings.login_timeout = std::time::Duration::from_secs(secs),
            None => {}
        }
        Ok(settings)
    }
}
