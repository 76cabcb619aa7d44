//! Named client types as data: what `type: groq` (or `gemini`, `ollama`, …) in config.yaml
//! fills in — the wire protocol, the base URL, the variable holding the key — and the
//! [`Quirks`] a server differs in from its wire protocol's reference implementation. Providers
//! read quirks from here instead of testing host names in code, so a new host is a new row.
//!
//! Each row names the public page its base URL and key variable come from.

use crate::kind::{OPENAI_API_BASE, ProviderKind};

/// Which field carries the output limit in a chat-completions request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MaxTokensField {
    /// `max_tokens`: what compatible servers read.
    MaxTokens,
    /// `max_completion_tokens`: OpenAI and Azure (their reasoning models refuse `max_tokens`).
    MaxCompletionTokens,
}

/// Whether a streamed chat-completions request asks for usage with `stream_options`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamUsage {
    /// Send `stream_options: {include_usage: true}` (OpenAI's only way to get usage).
    Ask,
    /// The server refuses the field (it reports usage in the last chunk on its own).
    Unsupported,
}

/// Whether a chat-completions request with declarations says `parallel_tool_calls: true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParallelToolCalls {
    /// Send it: llama.cpp's server otherwise takes one call per message and answers a second
    /// with HTTP 500.
    Ask,
    /// Leave the server's default (OpenAI's reasoning models refuse the field).
    ServerDefault,
}

/// How a server differs from its wire protocol's reference, as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Quirks {
    /// The output-limit field (chat completions).
    pub max_tokens_field: MaxTokensField,
    /// `stream_options.include_usage` (chat completions).
    pub stream_usage: StreamUsage,
    /// `parallel_tool_calls` (chat completions).
    pub parallel_tool_calls: ParallelToolCalls,
    /// Whether models take images unless a model entry says otherwise.
    pub images: bool,
    /// Context window assumed when a model entry sets none.
    pub context_window: Option<u32>,
}

impl Quirks {
    /// A compatible server we know nothing about (local servers): `max_tokens`, usage asked
    /// for, parallel calls asked for, no images.
    pub const COMPATIBLE: Quirks = Quirks {
        max_tokens_field: MaxTokensField::MaxTokens,
        stream_usage: StreamUsage::Ask,
        parallel_tool_calls: ParallelToolCalls::Ask,
        images: false,
        context_window: None,
    };

    /// OpenAI's own API (and Azure OpenAI).
    pub const OPENAI: Quirks = Quirks {
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        stream_usage: StreamUsage::Ask,
        parallel_tool_calls: ParallelToolCalls::ServerDefault,
        images: true,
        context_window: None,
    };

    /// A hosted OpenAI-compatible service: like [`Quirks::COMPATIBLE`] but leaving parallel
    /// calls to the server.
    pub const HOSTED: Quirks = Quirks {
        parallel_tool_calls: ParallelToolCalls::ServerDefault,
        ..Quirks::COMPATIBLE
    };

    /// The native APIs that take images (Anthropic, Gemini, Bedrock).
    pub const NATIVE_WITH_IMAGES: Quirks = Quirks {
        images: true,
        ..Quirks::COMPATIBLE
    };

    /// The quirks of a client of `kind` at `api_base` configured without a preset.
    pub fn for_endpoint(kind: ProviderKind, api_base: &str) -> Quirks {
        match kind {
            ProviderKind::OpenAiCompatible if api_base.trim_end_matches('/') == OPENAI_API_BASE => {
                Quirks::OPENAI
            }
            ProviderKind::OpenAiCompatible | ProviderKind::Ollama => Quirks::COMPATIBLE,
            ProviderKind::AzureOpenAi => Quirks::OPENAI,
            ProviderKind::Anthropic | ProviderKind::Gemini | ProviderKind::Bedrock => {
                Quirks::NATIVE_WITH_IMAGES
            }
        }
    }
}

/// One named client type (`type: <name>` in config.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// The `type:` spelling.
    pub name: &'static str,
    /// The wire protocol.
    pub kind: ProviderKind,
    /// Default `api_base`; empty when the user must give one (Azure) or it is derived
    /// (Bedrock, from the region).
    pub api_base: &'static str,
    /// Default `api_key_env`; `None` for servers that need no key.
    pub key_env: Option<&'static str>,
    /// The server's quirks.
    pub quirks: Quirks,
    /// Where the base URL and key variable are documented.
    pub source: &'static str,
}

const fn compatible(
    name: &'static str,
    api_base: &'static str,
    key_env: Option<&'static str>,
    quirks: Quirks,
    source: &'static str,
) -> Preset {
    Preset {
        name,
        kind: ProviderKind::OpenAiCompatible,
        api_base,
        key_env,
        quirks,
        source,
    }
}

/// Every named client type besides the plain `openai-compatible` and `anthropic`.
pub const PRESETS: &[Preset] = &[
    compatible(
        "openai",
        OPENAI_API_BASE,
        Some("OPENAI_API_KEY"),
        Quirks::OPENAI,
        "https://platform.openai.com/docs/api-reference/authentication",
    ),
    compatible(
        "openrouter",
        "https://openrouter.ai/api/v1",
        Some("OPENROUTER_API_KEY"),
        Quirks {
            images: true,
            ..Quirks::HOSTED
        },
        "https://openrouter.ai/docs/quickstart",
    ),
    compatible(
        "groq",
        "https://api.groq.com/openai/v1",
        Some("GROQ_API_KEY"),
        Quirks::HOSTED,
        "https://console.groq.com/docs/openai",
    ),
    compatible(
        "deepseek",
        "https://api.deepseek.com",
        Some("DEEPSEEK_API_KEY"),
        Quirks {
            context_window: Some(128_000),
            ..Quirks::HOSTED
        },
        "https://api-docs.deepseek.com/",
    ),
    compatible(
        "mistral",
        "https://api.mistral.ai/v1",
        Some("MISTRAL_API_KEY"),
        // Mistral rejects request fields it does not know and reports usage on its own.
        Quirks {
            stream_usage: StreamUsage::Unsupported,
            ..Quirks::HOSTED
        },
        "https://docs.mistral.ai/api/",
    ),
    compatible(
        "together",
        "https://api.together.xyz/v1",
        Some("TOGETHER_API_KEY"),
        Quirks::HOSTED,
        "https://docs.together.ai/docs/openai-api-compatibility",
    ),
    compatible(
        "fireworks",
        "https://api.fireworks.ai/inference/v1",
        Some("FIREWORKS_API_KEY"),
        Quirks::HOSTED,
        "https://docs.fireworks.ai/tools-sdks/openai-compatibility",
    ),
    compatible(
        "xai",
        "https://api.x.ai/v1",
        Some("XAI_API_KEY"),
        Quirks {
            images: true,
            ..Quirks::HOSTED
        },
        "https://docs.x.ai/docs/api-reference",
    ),
    compatible(
        "perplexity",
        "https://api.perplexity.ai",
        Some("PERPLEXITY_API_KEY"),
        Quirks {
            stream_usage: StreamUsage::Unsupported,
            ..Quirks::HOSTED
        },
        "https://docs.perplexity.ai/api-reference/chat-completions-post",
    ),
    compatible(
        "cerebras",
        "https://api.cerebras.ai/v1",
        Some("CEREBRAS_API_KEY"),
        Quirks::HOSTED,
        "https://inference-docs.cerebras.ai/resources/openai",
    ),
    compatible(
        "lmstudio",
        "http://127.0.0.1:1234/v1",
        None,
        Quirks::COMPATIBLE,
        "https://lmstudio.ai/docs/app/api/endpoints/openai",
    ),
    compatible(
        "llamacpp",
        "http://127.0.0.1:8080/v1",
        None,
        Quirks::COMPATIBLE,
        "https://github.com/ggml-org/llama.cpp/tree/master/tools/server",
    ),
    compatible(
        "vllm",
        "http://127.0.0.1:8000/v1",
        None,
        Quirks::COMPATIBLE,
        "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html",
    ),
    Preset {
        name: "ollama",
        kind: ProviderKind::Ollama,
        api_base: "http://127.0.0.1:11434",
        key_env: None,
        quirks: Quirks::COMPATIBLE,
        source: "https://github.com/ollama/ollama/blob/main/docs/api.md",
    },
    Preset {
        name: "azure-openai",
        kind: ProviderKind::AzureOpenAi,
        api_base: "",
        key_env: Some("AZURE_OPENAI_API_KEY"),
        quirks: Quirks::OPENAI,
        source: "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference",
    },
    Preset {
        name: "gemini",
        kind: ProviderKind::Gemini,
        api_base: "https://generativelanguage.googleapis.com/v1beta",
        key_env: Some("GEMINI_API_KEY"),
        quirks: Quirks::NATIVE_WITH_IMAGES,
        source: "https://ai.google.dev/gemini-api/docs/api-key",
    },
    Preset {
        name: "bedrock",
        kind: ProviderKind::Bedrock,
        api_base: "",
        key_env: None,
        quirks: Quirks::NATIVE_WITH_IMAGES,
        source: "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html",
    },
];

/// Bedrock's runtime endpoint in `region` (the default `api_base` of `type: bedrock`).
pub fn bedrock_runtime_base(region: &str) -> String {
    format!("https://bedrock-runtime.{region}.amazonaws.com")
}

/// The preset spelled `name`, if any.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preset_names_are_unique_and_distinct_from_the_plain_kinds() {
        let mut names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "{names:?}");
        for plain in ["openai-compatible", "anthropic"] {
            assert_eq!(preset(plain), None);
        }
    }

    #[test]
    fn hosted_presets_use_https_and_name_a_key() {
        for p in PRESETS
            .iter()
            .filter(|p| p.kind == ProviderKind::OpenAiCompatible)
        {
            let local = p.api_base.starts_with("http://127.0.0.1");
            assert_eq!(local, p.key_env.is_none(), "{}", p.name);
            assert!(local || p.api_base.starts_with("https://"), "{}", p.name);
            assert!(p.source.starts_with("https://"), "{}", p.name);
        }
    }
}
