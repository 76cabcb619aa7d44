//! The summary step of compaction: the oldest turns rendered as a plain transcript and sent to
//! the model with an instruction to summarise them; the answer becomes one labelled user
//! message (see `compact.rs`).
//!
//! Invariants: the summary request carries no tools and no history of its own (the transcript
//! is quoted text in one user message), so it cannot call anything; the transcript is bounded
//! (per message and in total) so a conversation already over the window still fits; the
//! request is cancelled with the turn's token.

use coyote_llm::{ChatRequest, Message, StreamMode};

use crate::compact::{CompactError, head};
use crate::session::{Session, TurnContext};

/// Bytes of one message quoted into the transcript.
pub const SUMMARY_MESSAGE_BYTES: usize = 4_000;
/// Share of the window (percent) the whole transcript may use, so the request fits.
const TRANSCRIPT_WINDOW_PERCENT: u64 = 50;

/// What the summariser is told.
const SUMMARY_INSTRUCTIONS: &str = "You compact a conversation between a user and an assistant \
    so it can continue in less space. Summarise the transcript you are given: the user's goals \
    and requests, decisions made, facts and results learned (names, paths, numbers, \
    identifiers, coyote-result:// handles), what was done with tools, and open questions. Write \
    plain prose or short bullet points, in the conversation's language. Do not add anything \
    that is not in the transcript and do not address the user.";

impl Session {
    /// The model's summary of `messages` (whole turns).
    pub(crate) async fn summarise(
        &self,
        messages: &[Message],
        ctx: &TurnContext<'_>,
    ) -> Result<String, CompactError> {
        let budget = u64::from(self.context.window) * 4 * TRANSCRIPT_WINDOW_PERCENT / 100;
        let transcript = transcript(messages, usize::try_from(budget).unwrap_or(usize::MAX));
        let request = ChatRequest {
            model: self.model.name.clone(),
            messages: vec![
                Message::system(SUMMARY_INSTRUCTIONS),
                Message::user(format!(
                    "Summarise this transcript of the earlier conversation:\n\n{transcript}"
                )),
            ],
            tools: Vec::new(),
            temperature: None,
            max_tokens: self.model.max_tokens,
            stream: StreamMode::Whole,
            tool_choice: coyote_llm::ToolChoice::Auto,
        };
        let response = tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => return Err(CompactError::Cancelled),
            response = self.provider.complete(&request) => response?,
        };
        if let Some(usage) = response.usage {
            ctx.events.emit(crate::event::SessionEvent::Usage {
                input: usage.input,
                output: usage.output,
            });
        }
        let text = response.message.text;
        if text.trim().is_empty() {
            return Err(CompactError::EmptySummary);
        }
        Ok(text)
    }
}

/// `[user] …`, `[assistant] …`, `[tool call] name(args)`, `[tool result] …` lines; each
/// message cut at [`SUMMARY_MESSAGE_BYTES`], the oldest dropped first beyond `budget` bytes.
pub(crate) fn transcript(messages: &[Message], budget: usize) -> String {
    let mut parts: Vec<String> = Vec::new();
    for message in messages {
        match message {
            Message::System { text } => parts.push(quote("system", text)),
            Message::User { text, .. } => parts.push(quote("user", text)),
            Message::Assistant(a) => {
                if !a.text.is_empty() {
                    parts.push(quote("assistant", &a.text));
                }
                for call in &a.tool_calls {
                    parts.push(quote(
                        "tool call",
                        &format!("{}({})", call.name, call.arguments),
                    ));
                }
            }
            Message::Tool(result) => parts.push(quote("tool result", &result.content)),
        }
    }
    let mut total: usize = parts.iter().map(|p| p.len() + 1).sum();
    let mut skip = 0;
    while total > budget && skip < parts.len() {
        total -= parts[skip].len() + 1;
        skip += 1;
    }
    let mut out = String::new();
    if skip > 0 {
        out.push_str(&format!(
            "[{skip} older part(s) omitted to fit the context window]\n"
        ));
    }
    for part in &parts[skip..] {
        out.push_str(part);
        out.push('\n');
    }
    out
}

fn quote(label: &str, text: &str) -> String {
    let cut = head(text, SUMMARY_MESSAGE_BYTES);
    if cut.len() < text.len() {
        format!("[{label}] {cut} … ({} more bytes)", text.len() - cut.len())
    } else {
        format!("[{label}] {cut}")
    }
}
