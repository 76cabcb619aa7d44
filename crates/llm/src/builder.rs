//! [`ProviderBuilder`], the one way to turn a [`ProviderConfig`] into a [`Provider`]: the
//! config's kind (and, for OpenAI-style hosts, its `api`) picks the wire protocol. It sits
//! above every provider module; they implement the trait from `provider` below them.

use std::sync::Arc;

use coyote_protocol::{ProviderConfig, ProviderKind, WireApi};

use crate::anthropic::Anthropic;
use crate::bedrock::Bedrock;
use crate::error::LlmError;
use crate::gemini::Gemini;
use crate::ollama::Ollama;
use crate::openai::OpenAiCompatible;
use crate::provider::Provider;
use crate::responses::OpenAiResponses;
use crate::retry::{RetryClock, RetryPolicy, TokioClock};

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
