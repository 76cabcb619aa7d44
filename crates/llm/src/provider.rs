//! The object-safe [`Provider`] trait the turn loop talks to, and [`ProviderBuilder`], the one
//! way to turn a [`ProviderConfig`] into a provider.
//!
//! Contract of [`Provider::stream`]: the returned future resolves once the server accepted the
//! request (status 2xx), after the bounded retry of 429/transient 5xx; errors before that are the
//! future's `Err`. From then on nothing is retried: errors arrive as stream items and end the
//! stream. The conversation is validated locally first ([`crate::validate_conversation`]).

use std::fmt;
use std::sync::Arc;

use coyote_protocol::{FunctionNameRules, ProviderConfig, ProviderKind, WireApi};
use futures::StreamExt;
use futures::future::BoxFuture;

use crate::anthropic::Anthropic;
use crate::bedrock::Bedrock;
use crate::error::LlmError;
use crate::event::ResponseAssembler;
use crate::gemini::Gemini;
use crate::ollama::Ollama;
use crate::openai::OpenAiCompatible;
use crate::responses::OpenAiResponses;
use crate::retry::{RetryClock, RetryPolicy, TokioClock};
use crate::stream::EventStream;
use crate::types::{ChatRequest, ChatResponse};

/// A model API client.
pub trait Provider: Send + Sync + fmt::Debug {
    /// The configured client name (used in messages).
    fn name(&self) -> &str;

    /// Which wire protocol it speaks.
    fn kind(&self) -> ProviderKind;

    /// Function names this provider accepts; callers sanitise declared names with it.
    fn function_name_rules(&self) -> FunctionNameRules {
        self.kind().function_name_rules()
    }

    /// Sends `request` and returns its events (see the module docs for the retry contract).
    /// With [`crate::StreamMode::Whole`] the events arrive all at once. Dropping the stream
    /// closes the connection, which is how a turn is cancelled.
    fn stream<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<EventStream, LlmError>>;

    /// Model ids the server offers (`GET …/models`, Ollama's `/api/tags`, Gemini's
    /// `models`), for `coyote models --remote`.
    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, LlmError>>;

    /// Sends `request` and assembles the whole answer.
    fn complete<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            let mut events = self.stream(request).await?;
            let mut assembler = ResponseAssembler::new();
            while let Some(event) = events.next().await {
                assembler.push(&event?);
            }
            assembler.finish(self.name())
        })
    }
}

/// Builds a provider from its config; tests inject a clock and retry policy.
#[derive(Debug)]
pub struct ProviderBuilder {
    config: ProviderConfig,
    retry: RetryPolicy,
    clock: Arc<dyn RetryClock>,
}

impl ProviderBuilder {
    /// A builder with the default retry policy and the real clock.
    pub fn new(config: ProviderConfig) -> Self {
        ProviderBuilder {
            config,
            retry: RetryPolicy::default(),
            clock: Arc::new(TokioClock),
        }
    }

    /// Replaces the retry policy.
    pub fn retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The clock the retry loop reads and sleeps on.
    pub fn clock(mut self, clock: Arc<dyn RetryClock>) -> Self {
        self.clock = clock;
        self
    }

    /// The provider for the config's kind; fails on an unusable configuration.
    pub fn build(self) -> Result<Arc<dyn Provider>, LlmError> {
        let (config, retry, clock) = (&self.config, self.retry, self.clock);
        Ok(match (config.kind, config.api) {
            (ProviderKind::OpenAiCompatible | ProviderKind::AzureOpenAi, WireApi::Chat) => {
                Arc::new(OpenAiCompatible::new(config, retry, clock)?)
            }
            (ProviderKind::OpenAiCompatible | ProviderKind::AzureOpenAi, WireApi::Responses) => {
                Arc::new(OpenAiResponses::new(config, retry, clock)?)
            }
            (ProviderKind::Anthropic, _) => Arc::new(Anthropic::new(config, retry, clock)?),
            (ProviderKind::Ollama, _) => Arc::new(Ollama::new(config, retry, clock)?),
            (ProviderKind::Gemini, _) => Arc::new(Gemini::new(config, retry, clock)?),
            (ProviderKind::Bedrock, _) => Arc::new(Bedrock::new(config, retry, clock)?),
        })
    }
}

/// `ProviderBuilder::new(config).build()`.
pub fn build_provider(config: ProviderConfig) -> Result<Arc<dyn Provider>, LlmError> {
    ProviderBuilder::new(config).build()
}
