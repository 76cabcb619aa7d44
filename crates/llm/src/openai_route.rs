//! Where OpenAI-style requests go and how they authenticate, for the two hosts that speak the
//! OpenAI wire formats: a plain base URL (`{base}/chat/completions`, `{base}/responses`,
//! `Authorization: Bearer`) or an Azure OpenAI resource (deployment URLs with `api-version`,
//! an `api-key` header or an Entra ID bearer token). Chat completions and Responses both take
//! their URLs and headers from here, so Azure is one route rather than two more providers.

use bytes::Bytes;
use coyote_protocol::{AzureAuth, ProviderConfig, ProviderKind};
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};

use crate::error::LlmError;
use crate::event::StreamEvent;
use crate::framing::Framing;
use crate::http::{HttpCore, encode_path_segment};
use crate::stream::{EventStream, WireParser, ready_event_stream};
use crate::types::StreamMode;

/// The `api-version` sent to Azure OpenAI's deployment URLs when config.yaml names none (the
/// latest GA version of the data-plane inference API).
pub const AZURE_API_VERSION: &str = "2024-10-21";

/// Where one client's requests go.
#[derive(Debug, Clone)]
pub(crate) enum OpenAiRoute {
    /// `{base}/chat/completions`, `{base}/responses`, `{base}/models`; bearer key.
    Plain { base: String },
    /// An Azure OpenAI resource root (`https://NAME.openai.azure.com`).
    Azure {
        root: String,
        api_version: String,
        auth: AzureAuth,
    },
}

impl OpenAiRoute {
    pub fn new(config: &ProviderConfig) -> Self {
        let base = config.api_base.trim_end_matches('/').to_string();
        match config.kind {
            ProviderKind::AzureOpenAi => OpenAiRoute::Azure {
                // Accept the resource root with or without the `/openai` path.
                root: base
                    .strip_suffix("/openai")
                    .map(str::to_string)
                    .unwrap_or(base),
                api_version: config
                    .api_version
                    .clone()
                    .unwrap_or_else(|| AZURE_API_VERSION.to_string()),
                auth: config.azure_auth,
            },
            _ => OpenAiRoute::Plain { base },
        }
    }

    /// Chat completions for `model` (on Azure: the deployment named `model`).
    pub fn chat_url(&self, model: &str) -> String {
        match self {
            OpenAiRoute::Plain { base } => format!("{base}/chat/completions"),
            OpenAiRoute::Azure {
                root, api_version, ..
            } => format!(
                "{root}/openai/deployments/{}/chat/completions?api-version={api_version}",
                encode_path_segment(model)
            ),
        }
    }

    /// The Responses API (on Azure: the v1 API, where `model` names the deployment).
    pub fn responses_url(&self) -> String {
        match self {
            OpenAiRoute::Plain { base } => format!("{base}/responses"),
            OpenAiRoute::Azure { root, .. } => format!("{root}/openai/v1/responses"),
        }
    }

    /// The model list.
    pub fn models_url(&self) -> String {
        match self {
            OpenAiRoute::Plain { base } => format!("{base}/models"),
            OpenAiRoute::Azure { root, .. } => format!("{root}/openai/v1/models"),
        }
    }

    /// One POST of `body` to `url`: an SSE stream decoded by `parser`, or (`StreamMode::Whole`)
    /// the whole answer read by `whole`. Chat completions and Responses differ only in those.
    pub async fn exchange<P: WireParser>(
        &self,
        core: &HttpCore,
        (url, body): (&str, Bytes),
        mode: StreamMode,
        parser: P,
        whole: fn(&str, &[u8]) -> Result<Vec<StreamEvent>, LlmError>,
    ) -> Result<EventStream, LlmError> {
        match mode {
            StreamMode::Streaming => {
                let headers = self.headers(core, "text/event-stream").await?;
                core.post_framed((url, headers), body, Framing::sse(), parser)
                    .await
            }
            StreamMode::Whole => {
                let headers = self.headers(core, "application/json").await?;
                let bytes = core.post_whole(url, headers, body).await?;
                Ok(ready_event_stream(whole(&core.provider, &bytes)?))
            }
        }
    }

    /// `Accept` plus the credential header.
    pub async fn headers(
        &self,
        core: &HttpCore,
        accept: &'static str,
    ) -> Result<HeaderMap, LlmError> {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        let Some(key) = core.key().await? else {
            return Ok(headers);
        };
        match self {
            OpenAiRoute::Azure {
                auth: AzureAuth::ApiKey,
                ..
            } => {
                headers.insert(
                    HeaderName::from_static("api-key"),
                    core.secret_header(key.expose_secret().to_string())?,
                );
            }
            OpenAiRoute::Plain { .. }
            | OpenAiRoute::Azure {
                auth: AzureAuth::Entra,
                ..
            } => {
                headers.insert(
                    AUTHORIZATION,
                    core.secret_header(format!("Bearer {}", key.expose_secret()))?,
                );
            }
        }
        Ok(headers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn azure_urls_name_the_deployment_and_the_api_version() {
        let mut config = ProviderConfig::new(
            ProviderKind::AzureOpenAi,
            "azure",
            "https://contoso.openai.azure.com/openai/",
        );
        let route = OpenAiRoute::new(&config);
        assert_eq!(
            route.chat_url("gpt 4o"),
            "https://contoso.openai.azure.com/openai/deployments/gpt%204o/chat/completions?api-version=2024-10-21"
        );
        assert_eq!(
            route.responses_url(),
            "https://contoso.openai.azure.com/openai/v1/responses"
        );
        config.api_version = Some("2025-04-01-preview".into());
        assert!(
            OpenAiRoute::new(&config)
                .chat_url("d")
                .ends_with("/deployments/d/chat/completions?api-version=2025-04-01-preview")
        );
    }
}
