//! The object-safe [`Provider`] trait the turn loop talks to: the one seam every wire protocol
//! implements (the builder that picks one lives in `builder`, above the providers).
//!
//! Contract of [`Provider::stream`]: the returned future resolves once the server accepted the
//! request (status 2xx), after the bounded retry of 429/transient 5xx; errors before that are the
//! future's `Err`. From then on nothing is retried: errors arrive as stream items and end the
//! stream. The conversation is validated locally first ([`crate::validate_conversation`]).

use std::fmt;

use coyote_protocol::{FunctionNameRules, ProviderKind};
use futures::StreamExt;
use futures::future::BoxFuture;

use crate::error::LlmError;
use crate::event::ResponseAssembler;
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
