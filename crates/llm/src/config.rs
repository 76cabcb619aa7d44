//! Plain-data client configuration (what `coyote-config` produces from config.yaml) and the
//! zero-config detection from environment variables. No file or env access happens here: the
//! caller resolves secrets and passes an env lookup in, so tests never touch the real
//! environment. [`ApiKey`]'s `Debug` never shows the secret.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::names::FunctionNameRules;

/// Default OpenAI endpoint when `OPENAI_BASE_URL` is unset.
pub const OPENAI_API_BASE: &str = "https://api.openai.com/v1";
/// Default Anthropic endpoint when `ANTHROPIC_BASE_URL` is unset.
pub const ANTHROPIC_API_BASE: &str = "https://api.anthropic.com";
/// Model offered by zero-config OpenAI (overridable with `-m`).
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1-mini";
/// Model offered by zero-config Anthropic (overridable with `-m`).
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
/// Output limit sent to Anthropic when neither the request nor the model config sets one
/// (the API requires the field; 4096 is accepted by every Claude model).
pub const DEFAULT_ANTHROPIC_MAX_TOKENS: u32 = 4096;

/// The wire protocol a client speaks (`type:` in config.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ProviderKind {
    /// OpenAI chat completions: OpenAI, Ollama `/v1`, vLLM, llama.cpp server, LM Studio,
    /// OpenRouter, Groq…
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
    /// Anthropic Messages API.
    #[serde(rename = "anthropic")]
    Anthropic,
}

impl ProviderKind {
    /// The config-file spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAiCompatible => "openai-compatible",
            ProviderKind::Anthropic => "anthropic",
        }
    }
}

impl ProviderKind {
    /// The function names this wire protocol accepts (see [`FunctionNameRules`]).
    pub fn function_name_rules(self) -> FunctionNameRules {
        match self {
            ProviderKind::OpenAiCompatible | ProviderKind::Anthropic => FunctionNameRules::PORTABLE,
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a key came from, so error messages can say which variable to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// Read from this environment variable (`api_key_env`, or a zero-config variable).
    Env(String),
    /// Handed over by the caller some other way.
    Provided,
}

/// A resolved API key. Its `Debug` is redacted and it has no `Serialize`, so it cannot leak into
/// logs, `--json` output or config dumps by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey {
    secret: String,
    source: KeySource,
}

impl ApiKey {
    pub fn new(secret: impl Into<String>) -> Self {
        ApiKey {
            secret: secret.into(),
            source: KeySource::Provided,
        }
    }

    pub fn from_env(variable: impl Into<String>, secret: impl Into<String>) -> Self {
        ApiKey {
            secret: secret.into(),
            source: KeySource::Env(variable.into()),
        }
    }

    /// The secret, for the request header only.
    pub fn expose_secret(&self) -> &str {
        &self.secret
    }

    pub fn source(&self) -> &KeySource {
        &self.source
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            KeySource::Env(var) => write!(f, "ApiKey(<redacted> from ${var})"),
            KeySource::Provided => f.write_str("ApiKey(<redacted>)"),
        }
    }
}

/// One model a client offers (`models:` entries in config.yaml).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ModelConfig {
    pub name: String,
    /// Output limit sent with every request to this model.
    pub max_tokens: Option<u32>,
    /// Context window in tokens, for budgeting (informational for the provider).
    pub context_window: Option<u32>,
}

impl ModelConfig {
    pub fn named(name: impl Into<String>) -> Self {
        ModelConfig {
            name: name.into(),
            ..Self::default()
        }
    }
}

/// Bounds on every network wait of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpTimeouts {
    pub connect: Duration,
    /// Until the response status arrives (local models may process a long prompt first).
    pub response: Duration,
    /// Between two pieces of the body (streamed or not).
    pub idle: Duration,
}

impl Default for HttpTimeouts {
    fn default() -> Self {
        HttpTimeouts {
            connect: Duration::from_secs(10),
            response: Duration::from_secs(600),
            idle: Duration::from_secs(300),
        }
    }
}

/// One configured client (`clients:` entry in config.yaml, or a zero-config detection).
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// The client name users type before the colon in `-m name:model`.
    pub name: String,
    /// Base URL: `…/v1` for OpenAI-compatible servers, the host root for Anthropic.
    pub api_base: String,
    /// `None` for local servers that need no key.
    pub api_key: Option<ApiKey>,
    pub models: Vec<ModelConfig>,
    pub timeouts: HttpTimeouts,
}

impl ProviderConfig {
    pub fn new(kind: ProviderKind, name: impl Into<String>, api_base: impl Into<String>) -> Self {
        ProviderConfig {
            kind,
            name: name.into(),
            api_base: api_base.into(),
            api_key: None,
            models: Vec::new(),
            timeouts: HttpTimeouts::default(),
        }
    }

    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    pub fn with_models(mut self, models: Vec<ModelConfig>) -> Self {
        self.models = models;
        self
    }

    pub fn with_timeouts(mut self, timeouts: HttpTimeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    pub fn model(&self, name: &str) -> Option<&ModelConfig> {
        self.models.iter().find(|m| m.name == name)
    }
}

/// Clients available without a config file, from `OPENAI_API_KEY`/`OPENAI_BASE_URL`,
/// `ANTHROPIC_API_KEY` (+ `ANTHROPIC_BASE_URL`) and `OLLAMA_HOST`, in that order. `env` looks a
/// variable up; empty values count as unset.
pub fn detect_providers(env: &dyn Fn(&str) -> Option<String>) -> Vec<ProviderConfig> {
    let get = |name: &str| {
        env(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let mut found = Vec::new();

    let openai_key = get("OPENAI_API_KEY");
    let openai_base = get("OPENAI_BASE_URL");
    if openai_key.is_some() || openai_base.is_some() {
        let custom_base = openai_base.is_some();
        let base = openai_base.unwrap_or_else(|| OPENAI_API_BASE.to_string());
        let mut config = ProviderConfig::new(ProviderKind::OpenAiCompatible, "openai", base);
        config.api_key = openai_key.map(|k| ApiKey::from_env("OPENAI_API_KEY", k));
        // A custom base serves models we cannot guess; the user names one with `-m`.
        if !custom_base {
            config.models = vec![ModelConfig::named(DEFAULT_OPENAI_MODEL)];
        }
        found.push(config);
    }

    if let Some(key) = get("ANTHROPIC_API_KEY") {
        let base = get("ANTHROPIC_BASE_URL").unwrap_or_else(|| ANTHROPIC_API_BASE.to_string());
        found.push(
            ProviderConfig::new(ProviderKind::Anthropic, "anthropic", base)
                .with_api_key(ApiKey::from_env("ANTHROPIC_API_KEY", key))
                .with_models(vec![ModelConfig::named(DEFAULT_ANTHROPIC_MODEL)]),
        );
    }

    if let Some(host) = get("OLLAMA_HOST") {
        found.push(ProviderConfig::new(
            ProviderKind::OpenAiCompatible,
            "ollama",
            ollama_api_base(&host),
        ));
    }
    found
}

/// `OLLAMA_HOST` as Ollama itself reads it (`host`, `host:port`, or a URL; `0.0.0.0` is a bind
/// address, so clients use loopback) turned into its OpenAI-compatible base.
fn ollama_api_base(host: &str) -> String {
    // Like Ollama: a bare host gets port 11434; an explicit scheme keeps its default port.
    let (scheme, rest, default_port) = match host.split_once("://") {
        Some((scheme, rest)) => (scheme, rest, None),
        None => ("http", host, Some(11434)),
    };
    let rest = rest.trim_end_matches('/');
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let authority = match authority.strip_prefix("0.0.0.0") {
        Some(port) => format!("127.0.0.1{port}"),
        None => authority.to_string(),
    };
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
        && !authority.ends_with(']');
    let authority = match default_port {
        Some(port) if !has_port => format!("{authority}:{port}"),
        _ => authority,
    };
    format!("{scheme}://{authority}{path}/v1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn detect(pairs: &[(&str, &str)]) -> Vec<ProviderConfig> {
        let env: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        detect_providers(&|name| env.get(name).cloned())
    }

    #[test]
    fn nothing_set_detects_nothing() {
        assert_eq!(detect(&[("OPENAI_API_KEY", " ")]), vec![]);
    }

    #[test]
    fn all_three_in_order() {
        let found = detect(&[
            ("OPENAI_API_KEY", "sk-o"),
            ("ANTHROPIC_API_KEY", "sk-a"),
            ("OLLAMA_HOST", "0.0.0.0:11434"),
        ]);
        let expected = vec![
            ProviderConfig::new(ProviderKind::OpenAiCompatible, "openai", OPENAI_API_BASE)
                .with_api_key(ApiKey::from_env("OPENAI_API_KEY", "sk-o"))
                .with_models(vec![ModelConfig::named(DEFAULT_OPENAI_MODEL)]),
            ProviderConfig::new(ProviderKind::Anthropic, "anthropic", ANTHROPIC_API_BASE)
                .with_api_key(ApiKey::from_env("ANTHROPIC_API_KEY", "sk-a"))
                .with_models(vec![ModelConfig::named(DEFAULT_ANTHROPIC_MODEL)]),
            ProviderConfig::new(
                ProviderKind::OpenAiCompatible,
                "ollama",
                "http://127.0.0.1:11434/v1",
            ),
        ];
        assert_eq!(found, expected);
    }

    #[test]
    fn openai_base_url_alone_is_a_keyless_local_server() {
        let found = detect(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")]);
        assert_eq!(
            found,
            vec![ProviderConfig::new(
                ProviderKind::OpenAiCompatible,
                "openai",
                "http://127.0.0.1:8080/v1"
            )]
        );
    }

    #[test]
    fn ollama_host_forms() {
        let cases = [
            ("localhost", "http://localhost:11434/v1"),
            ("example.test:9000", "http://example.test:9000/v1"),
            (
                "https://ollama.example.test/",
                "https://ollama.example.test/v1",
            ),
            ("http://[::1]:11434", "http://[::1]:11434/v1"),
            ("0.0.0.0", "http://127.0.0.1:11434/v1"),
            (
                "http://0.0.0.0:8000/prefix",
                "http://127.0.0.1:8000/prefix/v1",
            ),
        ];
        for (host, base) in cases {
            assert_eq!(ollama_api_base(host), base, "{host}");
        }
    }

    #[test]
    fn api_key_debug_is_redacted() {
        let config = ProviderConfig::new(ProviderKind::Anthropic, "a", ANTHROPIC_API_BASE)
            .with_api_key(ApiKey::from_env("ANTHROPIC_API_KEY", "sk-secret-123"));
        let debug = format!("{config:?}");
        assert!(!debug.contains("sk-secret-123"), "{debug}");
        assert!(
            debug.contains("ApiKey(<redacted> from $ANTHROPIC_API_KEY)"),
            "{debug}"
        );
    }
}
