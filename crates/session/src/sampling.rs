//! Sampling for MCP servers (`sampling/createMessage`), UI-free: [`Sampler`] is the
//! [`SamplingHook`] a front-end installs in its runtime. For each request it picks the model
//! ([`SamplingModels`]: the front-end's configuration), asks the user ([`SamplingConsent`]:
//! approve, edit or decline — or `--allow-sampling`, or a decline without a terminal), sends
//! the request through the same provider layer as a chat turn, and lets the user see the answer
//! before it goes back to the server.
//!
//! Invariant: no request reaches a model without the consent's yes; a decline or a missing
//! model is a refusal whose text says what to do.

use std::sync::Arc;

use coyote_llm::{
    AssistantMessage, ChatRequest, ChatResponse, FinishReason, Message, Provider, StreamMode,
    ToolCall, ToolChoice, ToolResult,
};
use coyote_mcp::{
    SamplingContent, SamplingHook, SamplingMessage, SamplingRefusal, SamplingRequest,
    SamplingResponse, SamplingRole, SamplingStop, SamplingToolChoice,
};
use coyote_protocol::FunctionDeclaration;
use futures::future::BoxFuture;

/// The model that answers a sampling request.
#[derive(Debug, Clone)]
pub struct SamplingModel {
    /// The provider it is requested from.
    pub provider: Arc<dyn Provider>,
    /// The model id the provider knows.
    pub model: String,
    /// `client:model`, shown to the user and sent to the server.
    pub label: String,
}

/// Picks the model for a request from the server's hints (implemented by the front-end,
/// which has the configuration).
pub trait SamplingModels: Send + Sync {
    /// The model for `hints` (the server's `modelPreferences`, most preferred first), or why
    /// there is none (the message names how to configure one).
    fn choose(&self, hints: &[String]) -> Result<SamplingModel, String>;
}

/// The user's answer to "may this server use the model?".
#[derive(Debug, Clone, PartialEq)]
pub enum ConsentDecision {
    /// Send the request as it is.
    Approve,
    /// Send this edited request instead.
    ApproveEdited(SamplingRequest),
    /// Do not send it; the text goes back to the server.
    Decline(String),
}

/// Asks the user about sampling (implemented by the front-end).
pub trait SamplingConsent: Send + Sync {
    /// Asks before anything is sent; `model` is the `client:model` that would answer.
    fn ask<'a>(
        &'a self,
        request: &'a SamplingRequest,
        model: &'a str,
    ) -> BoxFuture<'a, ConsentDecision>;

    /// Shows the model's answer before it is returned; `false` withholds it.
    fn review<'a>(
        &'a self,
        request: &'a SamplingRequest,
        response: &'a SamplingResponse,
    ) -> BoxFuture<'a, bool>;
}

/// Approves every request without asking and returns every answer: only for an explicit
/// user choice (`--allow-sampling`).
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowSampling;

impl SamplingConsent for AllowSampling {
    fn ask<'a>(&'a self, _: &'a SamplingRequest, _: &'a str) -> BoxFuture<'a, ConsentDecision> {
        Box::pin(std::future::ready(ConsentDecision::Approve))
    }

    fn review<'a>(
        &'a self,
        _: &'a SamplingRequest,
        _: &'a SamplingResponse,
    ) -> BoxFuture<'a, bool> {
        Box::pin(std::future::ready(true))
    }
}

/// The [`SamplingHook`] of a front-end: model choice, consent, the model call.
#[derive(Clone)]
pub struct Sampler {
    models: Arc<dyn SamplingModels>,
    consent: Arc<dyn SamplingConsent>,
}

impl std::fmt::Debug for Sampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sampler").finish_non_exhaustive()
    }
}

impl Sampler {
    /// A sampler choosing models with `models` and asking `consent`.
    pub fn new(models: Arc<dyn SamplingModels>, consent: Arc<dyn SamplingConsent>) -> Self {
        Sampler { models, consent }
    }

    async fn answer(&self, request: SamplingRequest) -> Result<SamplingResponse, SamplingRefusal> {
        let model = self
            .models
            .choose(&request.model_hints)
            .map_err(SamplingRefusal::Declined)?;
        let request = match self.consent.ask(&request, &model.label).await {
            ConsentDecision::Approve => request,
            ConsentDecision::ApproveEdited(edited) => edited,
            ConsentDecision::Decline(reason) => return Err(SamplingRefusal::Declined(reason)),
        };
        let chat = chat_request(&model.model, &request);
        tracing::info!(server = %request.server, model = %model.label, "sampling request sent to the model");
        let response = model.provider.complete(&chat).await.map_err(|e| {
            SamplingRefusal::Failed(format!(
                "the model {} could not answer the sampling request of MCP server `{}`: {e}",
                model.label, request.server
            ))
        })?;
        let response = sampling_response(&model.label, response);
        if !self.consent.review(&request, &response).await {
            return Err(SamplingRefusal::Declined(format!(
                "the user did not let the model's answer go back to MCP server `{}`",
                request.server
            )));
        }
        Ok(response)
    }
}

impl SamplingHook for Sampler {
    fn supports_tools(&self) -> bool {
        // Both provider families (OpenAI-compatible, Anthropic) take function declarations.
        true
    }

    fn sample(
        &self,
        request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SamplingResponse, SamplingRefusal>> {
        Box::pin(self.answer(request))
    }
}

/// The sampling request as a chat request (whole, not streamed): the server's system prompt,
/// its messages, tools, temperature and output limit.
pub fn chat_request(model: &str, request: &SamplingRequest) -> ChatRequest {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if let Some(system) = request
        .system_prompt
        .as_ref()
        .filter(|s| !s.trim().is_empty())
    {
        messages.push(Message::system(system.clone()));
    }
    for message in &request.messages {
        push_message(&mut messages, message);
    }
    let tools: Vec<FunctionDeclaration> = request
        .tools
        .iter()
        .map(|t| FunctionDeclaration {
            name: t.name.clone(),
            description: t.description.clone().unwrap_or_default(),
            parameters: t.input_schema.clone(),
        })
        .collect();
    let tool_choice = match request.tool_choice {
        Some(SamplingToolChoice::Required) => ToolChoice::Required,
        Some(SamplingToolChoice::None) => ToolChoice::None,
        Some(SamplingToolChoice::Auto) | None => ToolChoice::Auto,
    };
    ChatRequest {
        model: model.to_owned(),
        messages,
        tools,
        temperature: request.temperature,
        max_tokens: Some(request.max_tokens),
        stream: StreamMode::Whole,
        tool_choice,
    }
}

/// One sampling message as chat messages: tool results first (they answer the previous
/// assistant message's calls), then the text.
fn push_message(out: &mut Vec<Message>, message: &SamplingMessage) {
    let mut text = Vec::new();
    let mut calls = Vec::new();
    for block in &message.content {
        match block {
            SamplingContent::Text { text: t } => text.push(t.clone()),
            SamplingContent::Image { mime_type, .. } | SamplingContent::Audio { mime_type, .. } => {
                text.push(format!(
                    "[{mime_type} content omitted: coyote sends models text only]"
                ));
            }
            SamplingContent::ToolUse { id, name, input } => calls.push(ToolCall::new(
                id.clone(),
                name.clone(),
                serde_json::Value::Object(input.clone()).to_string(),
            )),
            SamplingContent::ToolResult {
                tool_use_id,
                text: result,
                is_error,
            } => out.push(Message::tool_result(if *is_error {
                ToolResult::error(tool_use_id.clone(), result.clone())
            } else {
                ToolResult::success(tool_use_id.clone(), result.clone())
            })),
        }
    }
    let text = text.join("\n");
    match message.role {
        SamplingRole::User if !text.is_empty() => out.push(Message::user(text)),
        SamplingRole::User => {}
        SamplingRole::Assistant => {
            let answer = AssistantMessage {
                replay: Vec::new(),
                text,
                tool_calls: calls,
            };
            if !answer.is_empty() {
                out.push(Message::assistant(answer));
            }
        }
    }
}

/// The model's answer as a sampling response.
pub fn sampling_response(label: &str, response: ChatResponse) -> SamplingResponse {
    let mut content = Vec::new();
    if !response.message.text.is_empty() {
        content.push(SamplingContent::Text {
            text: response.message.text,
        });
    }
    let called = !response.message.tool_calls.is_empty();
    for call in response.message.tool_calls {
        content.push(SamplingContent::ToolUse {
            input: call.parse_arguments().unwrap_or_default(),
            id: call.id,
            name: call.name,
        });
    }
    let stop = match response.finish_reason {
        _ if called => SamplingStop::ToolUse,
        FinishReason::Stop => SamplingStop::EndTurn,
        FinishReason::Length => SamplingStop::MaxTokens,
        FinishReason::ToolCalls => SamplingStop::ToolUse,
        FinishReason::ContentFilter => SamplingStop::Other("contentFilter".to_owned()),
        FinishReason::Other(other) => SamplingStop::Other(other),
    };
    SamplingResponse {
        model: label.to_owned(),
        stop,
        content,
    }
}

#[cfg(test)]
#[path = "sampling_tests.rs"]
mod tests;
