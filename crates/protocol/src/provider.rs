//! Plain-data client configuration: what `coyote-config` produces from config.yaml (or detects
//! from the environment) and `coyote-llm` builds a provider from. No file or env access happens
//! here: the caller resolves secrets. [`ApiKey`]'s `Debug` never shows the secret.

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
    /// A key the caller handed over ([`KeySource::Provided`]).
    pub fn new(secret: impl Into<String>) -> Self {
        ApiKey {
            secret: secret.into(),
            source: KeySource::Provided,
        }
    }

    /// A key read from environment variable `variable`.
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

    /// Where the key came from (named in messages, never the secret).
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
    /// The model name as the provider knows it.
    pub name: String,
    /// Output limit sent with every request to this model.
    pub max_tokens: Option<u32>,
    /// Context window in tokens, for budgeting (informational for the provider).
    pub context_window: Option<u32>,
    /// Whether the model takes images (`supports_images` in config.yaml); `None`: the
    /// provider's default ([`ProviderConfig::supports_images`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_images: Option<bool>,
}

impl ModelConfig {
    /// A model with no token limits set.
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
    /// Until the TCP (and TLS) connection is up.
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
    /// Which wire protocol the client speaks.
    pub kind: ProviderKind,
    /// The client name users type before the colon in `-m name:model`.
    pub name: String,
    /// Base URL: `…/v1` for OpenAI-compatible servers, the host root for Anthropic.
    pub api_base: String,
    /// `None` for local servers that need no key.
    pub api_key: Option<ApiKey>,
    /// The models it offers, as configured.
    pub models: Vec<ModelConfig>,
    /// Bounds on each request's network waits.
    pub timeouts: HttpTimeouts,
}

impl ProviderConfig {
    /// Whether `model` of this client takes images: its `supports_images`, else true for
    /// Anthropic and for OpenAI itself (`api.openai.com`), false for other OpenAI-compatible
    /// servers (most local models do not).
    pub fn supports_images(&self, model: &ModelConfig) -> bool {
        model.supports_images.unwrap_or(match self.kind {
            ProviderKind::Anthropic => true,
            ProviderKind::OpenAiCompatible => {
                self.api_base.trim_end_matches('/') == OPENAI_API_BASE
            }
        })
    }

    /// A client with no key, no models and the default timeouts.
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

    /// Sets the API key.
    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    /// Sets the offered models.
    pub fn with_models(mut self, models: Vec<ModelConfig>) -> Self {
        self.models = models;
        self
    }

    /// Sets the network timeouts.
    pub fn with_timeouts(mut self, timeouts: HttpTimeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// The configured model named `name`, if any.
    pub fn model(&self, name: &str) -> Option<&ModelConfig> {
        self.models.iter().find(|m| m.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn images_default_to_anthropic_and_openai_only() {
        let model = ModelConfig::named("m");
        let anthropic = ProviderConfig::new(ProviderKind::Anthropic, "c", ANTHROPIC_API_BASE);
        let openai = ProviderConfig::new(ProviderKind::OpenAiCompatible, "o", OPENAI_API_BASE);
        let local = ProviderConfig::new(
            ProviderKind::OpenAiCompatible,
            "l",
            "http://127.0.0.1:8080/v1",
        );
        assert!(anthropic.supports_images(&model));
        assert!(openai.supports_images(&model));
        assert!(!local.supports_images(&model));
        let told = ModelConfig {
            supports_images: Some(true),
            ..ModelConfig::named("vision")
        };
        assert!(local.supports_images(&told));
        let blind = ModelConfig {
            supports_images: Some(false),
            ..ModelConfig::named("text-only")
        };
        assert!(!anthropic.supports_images(&blind));
    }
}
