//! The conversation: a plain, serialisable value owned by the front-end (REPL, one-shot, a
//! saved session file), which hands it to [`crate::Session::run_turn`] by `&mut`.
//!
//! Invariants kept by the turn loop (and checked by `coyote_llm::validate_conversation` before
//! every request): every assistant message is one the model sent (never synthesized);
//! every tool call is answered by exactly one tool result before anything else follows; no
//! assistant message is empty.

use coyote_llm::{Message, Usage};
use serde::{Deserialize, Serialize};

/// Token counts over a conversation's lifetime, for `.info` and context budgeting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct UsageTotals {
    /// Sum of every response's input tokens.
    pub input: u64,
    /// Sum of every response's output tokens.
    pub output: u64,
    /// Input tokens of the latest response: how much of the context window the conversation
    /// used last time (what compaction compares against the window).
    pub last_input: u64,
    /// Model requests whose answer was discarded (the server could not parse it) and for
    /// which the server reported no token counts.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub discarded_attempts: u32,
    /// coyote's estimate of the prompt tokens those requests used (the server counted them
    /// but did not say how many): kept apart from the reported `input`, never added to it.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub discarded_input_estimate: u64,
}

impl UsageTotals {
    /// Adds one response's counts.
    pub fn add(&mut self, usage: Usage) {
        self.input += usage.input;
        self.output += usage.output;
        self.last_input = usage.input;
    }

    /// Records a discarded request that the server reported no usage for, with coyote's
    /// estimate of its prompt tokens.
    pub fn add_discarded(&mut self, estimated_input: u64) {
        self.discarded_attempts = self.discarded_attempts.saturating_add(1);
        self.discarded_input_estimate = self
            .discarded_input_estimate
            .saturating_add(estimated_input);
    }
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// System prompt, messages and usage. Serialises as
/// `{"system": …, "messages": [...], "usage": {...}}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Conversation {
    /// Instructions sent first with every request (roles and agents set it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// The messages, oldest first.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// Tokens used so far.
    #[serde(default)]
    pub usage: UsageTotals,
}

impl Conversation {
    /// An empty conversation with no system prompt.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty conversation with `system` as its system prompt.
    pub fn with_system(system: impl Into<String>) -> Self {
        Conversation {
            system: Some(system.into()),
            ..Self::default()
        }
    }

    /// What a request carries: the system prompt (if any) then the messages.
    pub fn request_messages(&self) -> Vec<Message> {
        let mut out = Vec::with_capacity(self.messages.len() + 1);
        if let Some(system) = self.system.as_ref().filter(|s| !s.trim().is_empty()) {
            out.push(Message::system(system.clone()));
        }
        out.extend(self.messages.iter().cloned());
        out
    }

    /// The text of the latest assistant message, if any (what one-shot prints with
    /// `--no-stream`-style renderers and what a delegate returns).
    pub fn last_assistant_text(&self) -> Option<&str> {
        self.messages.iter().rev().find_map(|m| match m {
            Message::Assistant(a) if !a.text.is_empty() => Some(a.text.as_str()),
            _ => None,
        })
    }

    /// Forgets the messages and usage, keeping the system prompt (`.clear`).
    pub fn clear(&mut self) {
        self.messages.clear();
        self.usage = UsageTotals::default();
    }
}

#[cfg(test)]
mod tests {
    use coyote_llm::{AssistantMessage, ToolCall, ToolResult};
    use serde_json::json;

    use super::*;

    #[test]
    fn round_trips_through_json() {
        let mut conversation = Conversation::with_system("be brief");
        conversation.messages = vec![
            Message::user("hi"),
            Message::assistant(AssistantMessage {
                replay: Vec::new(),
                text: String::new(),
                tool_calls: vec![ToolCall::new("c1", "mcp_search_fs", "{}")],
            }),
            Message::tool_result(ToolResult::success("c1", "[]")),
            Message::assistant(AssistantMessage::text("nothing there")),
        ];
        conversation.usage.add(Usage {
            input: 10,
            output: 3,
        });
        let value = serde_json::to_value(&conversation).unwrap();
        assert_eq!(value["system"], json!("be brief"));
        assert_eq!(
            value["usage"],
            json!({"input": 10, "output": 3, "last_input": 10})
        );
        let back: Conversation = serde_json::from_value(value).unwrap();
        assert_eq!(back, conversation);
        assert_eq!(back.last_assistant_text(), Some("nothing there"));
    }

    #[test]
    fn request_messages_put_the_system_prompt_first() {
        let mut conversation = Conversation::with_system("sys");
        conversation.messages.push(Message::user("q"));
        assert_eq!(
            conversation.request_messages(),
            vec![Message::system("sys"), Message::user("q")]
        );
        conversation.system = Some("  ".into());
        assert_eq!(conversation.request_messages(), vec![Message::user("q")]);
    }
}
