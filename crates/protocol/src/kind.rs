//! Which wire protocol a client speaks ([`ProviderKind`]), which OpenAI API it uses
//! ([`WireApi`]), and the vendors' default endpoints and models. The floor under `preset` (the
//! table of named client types) and `provider` (a configured client).

use std::fmt;

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

/// The wire protocol a client speaks (`type:` in config.yaml, after presets are resolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ProviderKind {
    /// OpenAI chat completions or Responses: OpenAI, vLLM, llama.cpp server, LM Studio, and
    /// the hosted presets (OpenRouter, Groq, …).
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
    /// Anthropic Messages API.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// Ollama's native `/api/chat`.
    #[serde(rename = "ollama")]
    Ollama,
    /// Azure OpenAI: deployment URLs, `api-version`, `api-key` or Entra ID bearer tokens.
    #[serde(rename = "azure-openai")]
    AzureOpenAi,
    /// Google Gemini `generateContent` / `streamGenerateContent`.
    #[serde(rename = "gemini")]
    Gemini,
    /// Amazon Bedrock Converse, SigV4-signed.
    #[serde(rename = "bedrock")]
    Bedrock,
}

impl ProviderKind {
    /// Every kind, in the order docs list them.
    pub const ALL: [ProviderKind; 6] = [
        ProviderKind::OpenAiCompatible,
        ProviderKind::Anthropic,
        ProviderKind::Ollama,
        ProviderKind::AzureOpenAi,
        ProviderKind::Gemini,
        ProviderKind::Bedrock,
    ];

    /// The config-file spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAiCompatible => "openai-compatible",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Ollama => "ollama",
            ProviderKind::AzureOpenAi => "azure-openai",
            ProviderKind::Gemini => "gemini",
            ProviderKind::Bedrock => "bedrock",
        }
    }

    /// The kind spelled `text` in config.yaml.
    pub fn parse(text: &str) -> Option<ProviderKind> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// The function names this wire protocol accepts (see [`FunctionNameRules`]).
    pub fn function_name_rules(self) -> FunctionNameRules {
        match self {
            ProviderKind::OpenAiCompatible
            | ProviderKind::Anthropic
            | ProviderKind::Ollama
            | ProviderKind::AzureOpenAi
            | ProviderKind::Gemini
            | ProviderKind::Bedrock => FunctionNameRules::PORTABLE,
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which OpenAI API an OpenAI-compatible or Azure client uses (`api:` in config.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WireApi {
    /// Chat completions (`/chat/completions`), what every compatible server speaks.
    #[default]
    Chat,
    /// The Responses API (`/responses`), OpenAI's newer API.
    Responses,
}

impl WireApi {
    /// The config-file spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            WireApi::Chat => "chat",
            WireApi::Responses => "responses",
        }
    }
}
