//! The turn loop: the user's message → model request (with the gated meta-function
//! declarations) → streamed answer → tool calls → results → the next request, until the model
//! answers without calls, the round limit is reached, or the user cancels.
//!
//! Invariants:
//! - Only what the model said becomes an assistant message (never synthesized). A cancelled
//!   or failed stream keeps the text received so far (tool calls it had not finished are
//!   dropped: they were never run and never answered); an empty answer adds nothing.
//! - Every assistant message with tool calls is followed by one result per call, also when the
//!   round was cancelled, so the conversation is always valid for the next request.
//! - The round limit stops the turn without another request; the limit is reported to the user
//!   (event and outcome), not invented as an answer.
//!
//! Two steers for small models, each announced to the user by a warning:
//! - when an answer only repeats calls that already ran in this turn (their results or errors
//!   are in the conversation), that answer is set aside (it adds nothing, and kept in the
//!   history it teaches the model to repeat itself) and the request is sent again asking for text ([`ToolChoice::None`]) with
//!   [`ANSWER_FROM_RESULTS`] as a last system line of that request only: small local models
//!   otherwise call the same tool again and again instead of answering from its result
//!   (measured with Qwen2.5-Coder-1.5B: without the line it still wrote the call as text).
//!   Only the model's own words are ever kept, never a synthesized message;
//! - when the server could not parse the model's output as text or a declared call
//!   ([`LlmError::UnparsedOutput`], e.g. a tool named without its server prefix), the request is
//!   sent once more with a call required ([`ToolChoice::Required`]), whose grammar only allows
//!   the declared names; what the failed attempt streamed is not kept. Once per request, not
//!   per turn (multi-step tasks stumble at each step); a required request that fails again is
//!   the turn's error, and every required answer is a call, so `max_tool_rounds` bounds them.

use coyote_llm::{
    AssistantMessage, ChatRequest, ChatResponse, FinishReason, LlmError, Message,
    ResponseAssembler, StreamEvent, ToolChoice, Usage,
};
use futures::StreamExt;
use serde::{Deserialize, Serialize};

use crate::calls::{CallState, RoundEnd, run_round};
use crate::compact::estimate_tokens;
use crate::conversation::Conversation;
use crate::event::{SessionEvent, StopReason};
use crate::session::{Session, TurnContext};
use crate::tools::{NotReady, declarations};

/// The instruction added (as a system message, to that request only) when the model is asked
/// to answer from the results it has.
pub const ANSWER_FROM_RESULTS: &str =
    "Answer the user's question now, in plain text, from the tool results above.";

/// How a turn ended without error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnOutcome {
    /// Why the turn ended.
    pub stop: StopReason,
    /// Model requests made in this turn.
    pub rounds: u32,
    /// Summed over this turn's responses.
    pub usage: Usage,
}

/// Why a turn failed. The conversation keeps everything that happened before the failure.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The model request failed (typed; the message says what to do).
    #[error(transparent)]
    Llm(#[from] LlmError),
}

/// How one model request ended.
enum Answer {
    Complete(ChatResponse),
    Cancelled,
}

impl Session {
    /// Runs one turn for `input` (the user's message: typed text, piped input, or a flattened
    /// prompt — submitted verbatim, never parsed as a command) and appends everything to
    /// `conversation`.
    pub async fn run_turn(
        &self,
        conversation: &mut Conversation,
        input: impl Into<String>,
        ctx: &TurnContext<'_>,
    ) -> Result<TurnOutcome, SessionError> {
        self.run_turn_message(conversation, Message::user(input), ctx)
            .await
    }

    /// [`Session::run_turn`] for a user message built by the caller (text with images).
    pub async fn run_turn_message(
        &self,
        conversation: &mut Conversation,
        input: Message,
        ctx: &TurnContext<'_>,
    ) -> Result<TurnOutcome, SessionError> {
        conversation.messages.push(input);
        let mut state = CallState::default();
        let mut usage = Usage::default();
        let mut warned: Vec<String> = Vec::new();
        let mut round: u32 = 0;
        let mut tool_rounds: u32 = 0;
        let mut tool_choice = ToolChoice::Auto;
        let mut reasked = false;
        loop {
            round += 1;
            // Near the context window: compact before asking (`compact.rs`).
            self.compact_if_needed(conversation, ctx).await;
            let request = self
                .next_request(conversation, tool_choice, &mut warned, ctx)
                .await;
            let offered = match tool_choice {
                ToolChoice::None => 0,
                ToolChoice::Auto | ToolChoice::Required => request.tools.len(),
            };
            let retrieved = match tool_choice {
                ToolChoice::None => Vec::new(),
                ToolChoice::Auto | ToolChoice::Required => self.dispatcher.retrieved(),
            };
            ctx.events.emit(SessionEvent::RequestStarted {
                round,
                tools: offered,
                retrieved,
            });
            let kept = conversation.messages.len();
            let answer = match self.request(&request, conversation, ctx).await {
                Err(SessionError::Llm(LlmError::UnparsedOutput { .. }))
                    if !reasked && tool_choice == ToolChoice::Auto && !request.tools.is_empty() =>
                {
                    // What the failed attempt streamed is not the model's answer.
                    conversation.messages.truncate(kept);
                    reasked = true;
                    tool_choice = ToolChoice::Required;
                    let estimate = estimate_tokens(&request.messages);
                    conversation.usage.add_discarded(estimate);
                    ctx.events.emit(SessionEvent::AttemptDiscarded {
                        message: format!(
                            "the model server could not parse the model's answer as text or a \
                             call of a declared function (a small model misnaming a function?); \
                             asking again with a function call required. The server reported no \
                             token counts for the discarded attempt: its prompt was about \
                             {estimate} tokens (estimated)"
                        ),
                        estimated_input_tokens: estimate,
                    });
                    continue;
                }
                other => other?,
            };
            let response = match answer {
                Answer::Complete(response) => response,
                Answer::Cancelled => return Ok(finish(ctx, StopReason::Cancelled, round, usage)),
            };
            account(&response, &mut usage, conversation, ctx);
            let message = response.message;
            if message.is_empty() {
                ctx.events.emit(SessionEvent::Warning {
                    message: "the model returned an empty answer".to_owned(),
                });
                return Ok(finish(ctx, StopReason::Answered, round, usage));
            }
            let calls = message.tool_calls.clone();
            if tool_choice == ToolChoice::Auto && state.all_ran(&calls) {
                tool_choice = ToolChoice::None;
                let names: Vec<String> = calls.iter().map(|c| format!("`{}`", c.name)).collect();
                ctx.events.emit(SessionEvent::Warning {
                    message: format!(
                        "the model called {} again with the same arguments although it already \
                         has the outcome; asking it to answer from the results it has (no \
                         functions offered for the next request)",
                        names.join(", ")
                    ),
                });
                continue;
            }
            tool_choice = ToolChoice::Auto;
            reasked = false;
            conversation.messages.push(Message::assistant(message));
            if calls.is_empty() {
                return Ok(finish(ctx, StopReason::Answered, round, usage));
            }
            let (results, end) = run_round(self, &mut state, &calls, ctx).await;
            conversation
                .messages
                .extend(results.into_iter().map(Message::tool_result));
            tool_rounds += 1;
            ctx.events.emit(SessionEvent::RoundFinished {
                round,
                tool_calls: calls.len(),
            });
            if end == RoundEnd::Cancelled {
                return Ok(finish(ctx, StopReason::Cancelled, round, usage));
            }

            if tool_rounds >= self.options.max_tool_rounds {
                let limit = self.options.max_tool_rounds;
                ctx.events.emit(SessionEvent::Warning {
                    message: format!(
                        "stopped after {limit} rounds of tool calls (max_tool_rounds); the \
                         model has not answered yet — send a message to let it continue, or \
                         raise max_tool_rounds in config.yaml"
                    ),
                });
                return Ok(finish(
                    ctx,
                    StopReason::MaxToolRounds { limit },
                    round,
                    usage,
                ));
            }
        }
    }

    /// The request of one round: the declarations of the selected servers (warning once per
    /// turn about each one not Ready) and of the delegates, and the conversation — plus the
    /// instruction to answer from the results when no functions are offered.
    async fn next_request(
        &self,
        conversation: &Conversation,
        tool_choice: ToolChoice,
        warned: &mut Vec<String>,
        ctx: &TurnContext<'_>,
    ) -> ChatRequest {
        let context = crate::retrieval::context(conversation, &self.dispatcher);
        let (mut tools, not_ready) = declarations(
            &self.runtime,
            &self.dispatcher,
            &self.options.servers,
            &context,
        )
        .await;
        crate::tools::insert_before_retrieved(
            &mut tools,
            crate::delegate::declarations(self),
            &self.dispatcher.retrieved(),
        );
        warn_not_ready(ctx, &not_ready, warned);
        let mut messages = conversation.request_messages();
        crate::instructions::add_system_context(
            &self.runtime,
            &self.options.servers,
            &tools,
            &mut messages,
        );
        if tool_choice == ToolChoice::None {
            messages.push(Message::system(ANSWER_FROM_RESULTS));
        }
        ChatRequest {
            model: self.model.name.clone(),
            messages,
            tools,
            temperature: self.model.temperature,
            max_tokens: self.model.max_tokens,
            stream: self.options.stream,
            tool_choice,
        }
    }

    /// Sends one request and streams its answer to the sink. On cancellation or a stream error
    /// the text received so far is kept as the model's (partial) message.
    async fn request(
        &self,
        request: &ChatRequest,
        conversation: &mut Conversation,
        ctx: &TurnContext<'_>,
    ) -> Result<Answer, SessionError> {
        let mut events = tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => return Ok(Answer::Cancelled),
            stream = self.provider.stream(request) => stream?,
        };
        let mut assembler = ResponseAssembler::new();
        loop {
            let next = tokio::select! {
                biased;
                _ = ctx.cancel.cancelled() => {
                    drop(events);
                    keep_partial_text(conversation, &assembler);
                    return Ok(Answer::Cancelled);
                }
                next = events.next() => next,
            };
            match next {
                Some(Ok(event)) => {
                    match &event {
                        StreamEvent::TextDelta(text) => ctx
                            .events
                            .emit(SessionEvent::TextDelta { text: text.clone() }),
                        // Shown, never kept: the assembler leaves it out of the message.
                        StreamEvent::ReasoningDelta(text) => ctx
                            .events
                            .emit(SessionEvent::ReasoningDelta { text: text.clone() }),
                        StreamEvent::Warning(message) => ctx.events.emit(SessionEvent::Warning {
                            message: message.clone(),
                        }),
                        _ => {}
                    }
                    assembler.push(&event);
                    if assembler.is_done() {
                        break;
                    }
                }
                Some(Err(error)) => {
                    keep_partial_text(conversation, &assembler);
                    return Err(error.into());
                }
                None => break,
            }
        }
        if !assembler.is_done() {
            // Cut off before the model finished: keep what it said, then report the error.
            keep_partial_text(conversation, &assembler);
        }
        match assembler.finish(self.provider.name()) {
            Ok(response) => Ok(Answer::Complete(response)),
            Err(error) => Err(error.into()),
        }
    }
}

/// Adds a response's token counts to the turn's and the conversation's, and warns when the
/// answer was cut off at the output limit.
fn account(
    response: &ChatResponse,
    usage: &mut Usage,
    conversation: &mut Conversation,
    ctx: &TurnContext<'_>,
) {
    if let Some(u) = response.usage {
        usage.input += u.input;
        usage.output += u.output;
        conversation.usage.add(u);
        ctx.events.emit(SessionEvent::Usage {
            input: u.input,
            output: u.output,
        });
    }
    if response.finish_reason == FinishReason::Length {
        ctx.events.emit(SessionEvent::Warning {
            message: "the answer was cut off at the model's output limit; raise \
                      `max_tokens` for this model in config.yaml"
                .to_owned(),
        });
    }
}

/// Keeps the text the model streamed before the turn was interrupted.
fn keep_partial_text(conversation: &mut Conversation, assembler: &ResponseAssembler) {
    let partial = assembler.partial();
    if !partial.text.is_empty() {
        conversation
            .messages
            .push(Message::assistant(AssistantMessage::text(partial.text)));
    }
}

fn warn_not_ready(ctx: &TurnContext<'_>, not_ready: &[NotReady], warned: &mut Vec<String>) {
    for server in not_ready {
        if warned.contains(&server.server) {
            continue;
        }
        warned.push(server.server.clone());
        let message = match &server.state {
            coyote_mcp::ServerState::Starting => format!(
                "MCP server '{}' is still starting; until it is ready the model sees only its \
                 state",
                server.server
            ),
            coyote_mcp::ServerState::NeedsAuth => format!(
                "MCP server '{0}' needs sign-in; run `coyote mcp login {0}` (in the REPL: \
                 `.mcp login {0}`)",
                server.server
            ),
            state => format!(
                "MCP server '{}' is not available ({state}); check `coyote mcp servers`",
                server.server
            ),
        };
        ctx.events.emit(SessionEvent::Warning { message });
    }
}

fn finish(ctx: &TurnContext<'_>, stop: StopReason, rounds: u32, usage: Usage) -> TurnOutcome {
    ctx.events.emit(SessionEvent::TurnFinished {
        stop,
        rounds,
        usage,
    });
    TurnOutcome {
        stop,
        rounds,
        usage,
    }
}
