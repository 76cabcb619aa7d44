//! Long conversations: how much of the model's context window a conversation uses, and
//! compaction when it nears the limit.
//!
//! Compaction runs in two steps, cheapest first, and stops as soon as the conversation fits
//! under the threshold:
//! 1. tool results of older turns are moved to the spill store and replaced by a short note
//!    carrying their `coyote-result://` handle (`mcp_read_<server>` pages them back);
//! 2. the oldest turns are summarised by the model into ONE user message labelled
//!    [`SUMMARY_LABEL`] (a user message: coyote never synthesizes assistant turns).
//!
//! If that is still not enough, tool results of the kept turns are spilled too, except the
//! results of the latest assistant message (the model is about to read them).
//!
//! Invariants:
//! - The system prompt is never touched (it lives outside `messages`).
//! - The last [`ContextPolicy::keep_last_turns`] turns (a turn starts at a user message) are
//!   kept as they are by step 2; the current turn always is.
//! - Whole turns are summarised, so a tool call and its result are removed together or kept
//!   together: the conversation stays valid (`coyote_llm::validate_conversation`).
//! - Token counts are estimates ([`estimate_tokens`]) refreshed by the provider's reported
//!   input tokens; they decide *when* to compact, never what a request may carry.

use coyote_llm::{LlmError, Message, ToolCall, ToolResult};
use coyote_mcp::MetaKind;
use serde::{Deserialize, Serialize};

use crate::conversation::Conversation;
use crate::event::SessionEvent;
use crate::session::{Session, TurnContext};

/// The window assumed when neither config.yaml nor [`known_context_window`] knows the model.
pub const DEFAULT_CONTEXT_WINDOW: u32 = 128_000;
/// Compact when the conversation uses this share of the window (percent).
pub const DEFAULT_COMPACT_THRESHOLD_PERCENT: u8 = 80;
/// Turns step 2 never summarises.
pub const DEFAULT_KEEP_LAST_TURNS: usize = 2;
/// Tool results shorter than this stay in place (a handle note would not be much shorter).
pub const MIN_SPILLED_RESULT_BYTES: usize = 512;
/// The first line of the summary message that replaces the oldest turns.
pub const SUMMARY_LABEL: &str =
    "[coyote: summary of the earlier conversation, written by the model when it was compacted]";
/// The first words of a tool result that compaction replaced by a handle note.
pub const COMPACTED_RESULT_PREFIX: &str = "[coyote: compacted tool result";

/// Known context windows by model-name prefix (most specific first). config.yaml's
/// `context_window` always wins.
const KNOWN_WINDOWS: &[(&str, u32)] = &[
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("gpt-5", 400_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("claude", 200_000),
    ("gemini", 1_048_576),
    ("llama3.1", 128_000),
    ("llama3.2", 128_000),
    ("llama3", 8_192),
    ("qwen2.5", 32_768),
    ("qwen3", 40_960),
    ("mistral", 32_768),
    ("deepseek", 128_000),
];

/// The window of a well-known model, by name (a `client:` prefix or `org/` path is ignored).
pub fn known_context_window(model: &str) -> Option<u32> {
    let name = model.rsplit(['/', ':']).next().unwrap_or(model);
    let name = name.to_ascii_lowercase();
    KNOWN_WINDOWS
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|(_, window)| *window)
}

/// When compaction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AutoCompact {
    /// Before a request that would cross the threshold.
    Enabled,
    /// Only on demand (`.compact`).
    Disabled,
}

/// The context window of the model and when to compact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextPolicy {
    /// Tokens the model accepts.
    pub window: u32,
    /// Compact at this share of the window (percent, 1–100).
    pub threshold_percent: u8,
    /// Turns never summarised (at least 1: the current turn).
    pub keep_last_turns: usize,
    /// Whether the turn loop compacts on its own.
    pub auto: AutoCompact,
}

impl ContextPolicy {
    /// `configured` (config.yaml's `context_window`) wins, then [`known_context_window`], then
    /// [`DEFAULT_CONTEXT_WINDOW`].
    pub fn for_model(model: &str, configured: Option<u32>) -> Self {
        ContextPolicy {
            window: configured
                .filter(|w| *w > 0)
                .or_else(|| known_context_window(model))
                .unwrap_or(DEFAULT_CONTEXT_WINDOW),
            threshold_percent: DEFAULT_COMPACT_THRESHOLD_PERCENT,
            keep_last_turns: DEFAULT_KEEP_LAST_TURNS,
            auto: AutoCompact::Enabled,
        }
    }

    /// The token count at which compaction starts.
    pub fn threshold_tokens(&self) -> u64 {
        u64::from(self.window) * u64::from(self.threshold_percent.clamp(1, 100)) / 100
    }
}

/// How full the context is, for `.info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextUsage {
    /// Estimated tokens of the next request's messages.
    pub used: u64,
    /// Tokens the model accepts.
    pub window: u32,
    /// Tokens at which compaction starts.
    pub threshold: u64,
}

impl ContextUsage {
    /// `used` as a share of the window, in percent.
    pub fn percent(&self) -> u64 {
        self.used * 100 / u64::from(self.window.max(1))
    }
}

/// Why compaction ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactTrigger {
    /// The conversation crossed the threshold.
    Threshold,
    /// `.compact`.
    OnDemand,
}

/// Why the summary step failed (the conversation is still valid; tool results may have been
/// spilled already).
#[derive(Debug, thiserror::Error)]
pub enum CompactError {
    /// The model request failed.
    #[error("the summary request failed: {0}")]
    Llm(#[from] LlmError),
    /// The user cancelled it.
    #[error("the summary was cancelled")]
    Cancelled,
    /// The model answered with no text.
    #[error("the model returned an empty summary; try `.compact` again or `.clear`")]
    EmptySummary,
}

/// What one compaction did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CompactReport {
    /// Estimated tokens before and after.
    pub before: u64,
    /// Estimated tokens after.
    pub after: u64,
    /// Tool results moved to the spill store.
    pub results_spilled: usize,
    /// Turns replaced by the summary (0 = no summary was made).
    pub turns_summarised: usize,
}

/// Rough token count of a request's messages: 4 bytes per token plus a little per message.
/// Deliberately simple and provider-neutral; the provider's reported input tokens refine it.
pub fn estimate_tokens(messages: &[Message]) -> u64 {
    const PER_MESSAGE: u64 = 4;
    messages
        .iter()
        .map(|m| {
            let bytes = match m {
                Message::System { text } | Message::User { text, .. } => text.len(),
                Message::Assistant(a) => {
                    a.text.len()
                        + a.tool_calls
                            .iter()
                            .map(|c| c.id.len() + c.name.len() + c.arguments.len())
                            .sum::<usize>()
                }
                Message::Tool(r) => r.call_id.len() + r.content.len(),
            };
            (bytes as u64).div_ceil(4) + PER_MESSAGE
        })
        .sum()
}

impl Session {
    /// How much of the window the next request would use.
    pub fn context_usage(&self, conversation: &Conversation) -> ContextUsage {
        ContextUsage {
            used: used_tokens(conversation),
            window: self.context.window,
            threshold: self.context.threshold_tokens(),
        }
    }

    /// Compacts `conversation` (`.compact`, or the threshold). Spilling never fails the
    /// compaction (a result that cannot be stored stays in place); a failed summary request
    /// is returned as the error, with the conversation still valid.
    pub async fn compact(
        &self,
        conversation: &mut Conversation,
        trigger: CompactTrigger,
        ctx: &TurnContext<'_>,
    ) -> Result<CompactReport, CompactError> {
        let threshold = match trigger {
            CompactTrigger::Threshold => self.context.threshold_tokens(),
            // On demand: make the most room the steps allow.
            CompactTrigger::OnDemand => 0,
        };
        let mut report = CompactReport {
            before: used_tokens(conversation),
            ..CompactReport::default()
        };
        let keep = self.context.keep_last_turns.max(1);
        let kept_from = kept_turns_start(&conversation.messages, keep);
        report.results_spilled += self.spill_results(conversation, 0..kept_from);
        if estimate(conversation) > threshold
            && worth_summarising(&conversation.messages[..kept_from])
        {
            let summary = self
                .summarise(&conversation.messages[..kept_from], ctx)
                .await;
            match summary {
                Ok(text) => {
                    report.turns_summarised = turn_count(&conversation.messages[..kept_from]);
                    let summary = Message::user(format!("{SUMMARY_LABEL}\n\n{}", text.trim()));
                    conversation.messages.splice(..kept_from, [summary]);
                }
                Err(error) => {
                    finish(conversation, &mut report);
                    if report.results_spilled > 0 {
                        ctx.events.emit(notice(trigger, &report));
                    }
                    return Err(error);
                }
            }
        }
        if estimate(conversation) > threshold {
            let end = latest_results_start(&conversation.messages);
            report.results_spilled += self.spill_results(conversation, 0..end);
        }
        finish(conversation, &mut report);
        // At the threshold with nothing left to free (e.g. the declarations alone fill the
        // window), say nothing rather than repeat an empty notice every round.
        if trigger == CompactTrigger::OnDemand
            || report.results_spilled > 0
            || report.turns_summarised > 0
        {
            ctx.events.emit(notice(trigger, &report));
        }
        Ok(report)
    }

    /// Compacts when auto-compaction is on and the conversation crossed the threshold. A
    /// failure is a warning: the turn goes on with the conversation as it is.
    pub(crate) async fn compact_if_needed(
        &self,
        conversation: &mut Conversation,
        ctx: &TurnContext<'_>,
    ) {
        if self.context.auto == AutoCompact::Disabled
            || used_tokens(conversation) <= self.context.threshold_tokens()
        {
            return;
        }
        if let Err(error) = self
            .compact(conversation, CompactTrigger::Threshold, ctx)
            .await
        {
            ctx.events.emit(SessionEvent::Warning {
                message: format!(
                    "the conversation is near the model's context window and could not be \
                     summarised ({error}); run `.compact` or `.clear`"
                ),
            });
        }
    }

    /// Replaces the large tool results among `range` by handle notes; returns how many.
    fn spill_results(
        &self,
        conversation: &mut Conversation,
        range: std::ops::Range<usize>,
    ) -> usize {
        let mut spilled = 0;
        let mut calls: Vec<ToolCall> = Vec::new();
        for message in &mut conversation.messages[range] {
            match message {
                Message::Assistant(a) => calls = a.tool_calls.clone(),
                Message::Tool(result) => {
                    let call = calls.iter().find(|c| c.id == result.call_id);
                    if let Some(note) = self.spill_note(result, call) {
                        result.content = note;
                        spilled += 1;
                    }
                }
                Message::System { .. } | Message::User { .. } => {}
            }
        }
        spilled
    }

    /// The note replacing `result`, or `None` to leave it as it is.
    fn spill_note(&self, result: &ToolResult, call: Option<&ToolCall>) -> Option<String> {
        let content = &result.content;
        if content.len() < MIN_SPILLED_RESULT_BYTES || content.starts_with(COMPACTED_RESULT_PREFIX)
        {
            return None;
        }
        let name = call.map_or("a tool", |c| c.name.as_str());
        // Meta or direct (`<server>__<tool>`) names, through the dispatcher's one parser; the
        // handle is only worth keeping when the server offers `mcp_read_<server>` to page it.
        let server = call
            .and_then(|c| self.dispatcher.resolve(&c.name))
            .map(|target| target.server().to_owned())
            .filter(|server| self.can_read_back(server));
        match server.map(|s| (self.spill.put_result_text(&s, content), s)) {
            Some((Ok(handle), server)) => Some(format!(
                "{COMPACTED_RESULT_PREFIX} of {name}: {} bytes moved out of the conversation; \
                 read it with {} {{\"uri\": \"{handle}\"}}]",
                content.len(),
                MetaKind::Read.function_name(&server)
            )),
            // Not an MCP call, no read function, or the store failed: keep a head so the gist
            // survives.
            _ => Some(format!(
                "{COMPACTED_RESULT_PREFIX} of {name}: {} bytes dropped; it began: {}]",
                content.len(),
                head(content, MIN_SPILLED_RESULT_BYTES / 2)
            )),
        }
    }
}

impl Session {
    /// Whether the model is offered `mcp_read_<server>` (so a spilled result can be paged).
    fn can_read_back(&self, server: &str) -> bool {
        self.runtime
            .server_features()
            .iter()
            .any(|f| f.name == server && MetaKind::Read.is_enabled_for(f))
    }
}

/// The estimate, or the provider's count of the last request when that is higher (it also
/// counts the declarations).
fn used_tokens(conversation: &Conversation) -> u64 {
    estimate(conversation).max(conversation.usage.last_input)
}

fn estimate(conversation: &Conversation) -> u64 {
    estimate_tokens(&conversation.request_messages())
}

/// After compaction the provider's last count is stale: the estimate stands in until the next
/// response reports a fresh one.
fn finish(conversation: &mut Conversation, report: &mut CompactReport) {
    report.after = estimate(conversation);
    conversation.usage.last_input = report.after;
}

fn notice(trigger: CompactTrigger, report: &CompactReport) -> SessionEvent {
    let why = match trigger {
        CompactTrigger::Threshold => "near the model's context window, ",
        CompactTrigger::OnDemand => "",
    };
    SessionEvent::Warning {
        message: format!(
            "{why}compacted the conversation: about {} → {} tokens ({} tool result(s) moved \
             to the spill store, {} turn(s) summarised)",
            report.before, report.after, report.results_spilled, report.turns_summarised
        ),
    }
}

/// Index of the first message of the last `keep` turns (0 when there are no more turns).
pub(crate) fn kept_turns_start(messages: &[Message], keep: usize) -> usize {
    let starts: Vec<usize> = turn_starts(messages);
    if starts.len() <= keep {
        return 0;
    }
    starts[starts.len() - keep]
}

fn turn_starts(messages: &[Message]) -> Vec<usize> {
    messages
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m, Message::User { .. }))
        .map(|(i, _)| i)
        .collect()
}

/// Something older than the kept turns besides a lone earlier summary (summarising that
/// again would cost a request and save nothing).
fn worth_summarising(older: &[Message]) -> bool {
    match older {
        [] => false,
        [Message::User { text, .. }] => !text.starts_with(SUMMARY_LABEL),
        _ => true,
    }
}

fn turn_count(messages: &[Message]) -> usize {
    turn_starts(messages).len().max(1)
}

/// Index of the first tool result answering the latest assistant message (or the end).
pub(crate) fn latest_results_start(messages: &[Message]) -> usize {
    match messages
        .iter()
        .rposition(|m| matches!(m, Message::Assistant(_)))
    {
        Some(i) => i + 1,
        None => messages.len(),
    }
}

/// At most `max` bytes of `text`, cut at a character boundary.
pub(crate) fn head(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
#[path = "compact_tests.rs"]
mod tests;
