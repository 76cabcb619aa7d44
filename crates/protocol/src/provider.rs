//! Plain-data client configuration: what `coyote-config` produces from config.yaml (or detects
//! from the environment) and `coyote-llm` builds a provider from. No file or env access happens
//! here: the caller resolves secrets (a `key_command` is run by the provider, not here).
//! [`ApiKey`]'s `Debug` never shows the secret.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use crate::kind::{
    ANTHROPIC_API_BASE, DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, OPENAI_API_BASE,
    ProviderKind, WireApi,
};
pub use crate::preset::{
    MaxTokensField, PRESETS, ParallelToolCalls, Preset, Quirks, StreamUsage, bedrock_runtime_base,
    preset,
};

/// How an Azure OpenAI client authenticates (`auth:` in config.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AzureAuth {
    /// The resource key in an `api-key` header.
    #[default]
    ApiKey,
    /// A Microsoft Entra ID access token as `Authorization: Bearer`.
    Entra,
}

/// AWS credentials for SigV4 signing (Bedrock). `Debug` never shows the secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsCredentials {
    /// `AWS_ACCESS_KEY_ID` (not secret on its own; shown in messages).
    pub access_key_id: String,
    /// `AWS_SECRET_ACCESS_KEY`.
    pub secret_access_key: ApiKey,
    /// `AWS_SESSION_TOKEN`, for temporary credentials.
    pub session_token: Option<ApiKey>,
}

/// Where and as whom a Bedrock client signs its requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsAuth {
    /// The region (`us-east-1`), part of the signature's scope.
    pub region: String,
    /// The credentials.
    pub credentials: AwsCredentials,
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
    /// Chat completions or Responses (OpenAI-compatible and Azure clients).
    pub api: WireApi,
    /// The server's differences from the plain wire protocol (see [`Quirks`]).
    pub quirks: Quirks,
    /// The preset the client was configured with (`type: groq`), for display.
    pub preset: Option<&'static str>,
    /// Azure's `api-version` query parameter.
    pub api_version: Option<String>,
    /// A shell command whose standard output is the key or token (`api_key_cmd`); run by the
    /// provider when it first needs the key and again when the cached value is old.
    pub key_command: Option<String>,
    /// Azure: `api-key` header or Entra ID bearer token.
    pub azure_auth: AzureAuth,
    /// Bedrock: region and credentials.
    pub aws: Option<AwsAuth>,
}

impl ProviderConfig {
    /// Whether `model` of this client takes images: its `supports_images`, else true for
    /// Anthropic and for OpenAI itself (`api.openai.com`), false for other OpenAI-compatible
    /// servers (most local models do not).
    pub fn supports_images(&self, model: &ModelConfig) -> bool {
        model.supports_images.unwrap_or(self.quirks.images)
    }

    /// The model's context window: its `context_window`, else the preset's.
    pub fn context_window(&self, model: &ModelConfig) -> Option<u32> {
        model.context_window.or(self.quirks.context_window)
    }

    /// A client with no key, no models and the default timeouts.
    pub fn new(kind: ProviderKind, name: impl Into<String>, api_base: impl Into<String>) -> Self {
        let api_base = api_base.into();
        ProviderConfig {
            kind,
            name: name.into(),
            quirks: Quirks::for_endpoint(kind, &api_base),
            api_base,
            api_key: None,
            models: Vec::new(),
            timeouts: HttpTimeouts::default(),
            api: WireApi::Chat,
            preset: None,
            api_version: None,
            key_command: None,
            azure_auth: AzureAuth::ApiKey,
            aws: None,
        }
    }

    /// Sets chat completions or Responses.
    pub fn with_api(mut self, api: WireApi) -> Self {
        self.api = api;
        self
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
    fn a_preset_context_window_applies_when_the_model_sets_none() {
        let mut config = ProviderConfig::new(
            ProviderKind::OpenAiCompatible,
            "deepseek",
            "https://api.deepseek.com",
        );
        config.quirks = crate::preset::preset("deepseek").unwrap().quirks;
        assert_eq!(
            config.context_window(&ModelConfig::named("m")),
            Some(128_000)
        );
        let set = ModelConfig {
            context_window: Some(64_000),
            ..ModelConfig::named("m")
        };
        assert_eq!(config.context_window(&set), Some(64_000));
        let local = ProviderConfig::new(ProviderKind::Ollama, "o", "http://127.0.0.1:11434");
        assert_eq!(local.context_window(&ModelConfig::named("m")), None);
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
