//! Conversation invariants every provider requires, checked locally before a request is sent so
//! a caller's bug surfaces as a clear error instead of an opaque HTTP 400:
//! - no assistant message is empty (we never send a turn the model did not say);
//! - the tool calls of an assistant message are answered by tool results immediately after it,
//!   each call exactly once, before any other message;
//! - a tool result answers a call of the assistant message just before it.

use std::collections::BTreeSet;

use crate::types::Message;

/// Why a conversation cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConversationError {
    /// An assistant message says nothing.
    #[error("message #{index} is an assistant message with neither text nor tool calls")]
    EmptyAssistant {
        /// Its position in the conversation.
        index: usize,
    },
    /// A tool result answers a call no earlier assistant message made.
    #[error(
        "message #{index} answers tool call `{call_id}`, which no preceding assistant message made"
    )]
    UnknownCallId {
        /// The result's position in the conversation.
        index: usize,
        /// The call id it names.
        call_id: String,
    },
    /// A call is answered twice.
    #[error("message #{index} answers tool call `{call_id}` a second time")]
    DuplicateResult {
        /// The second result's position in the conversation.
        index: usize,
        /// The call id.
        call_id: String,
    },
    /// Calls of an assistant message lack results when the next non-tool message comes.
    #[error(
        "tool call(s) {missing:?} of message #{assistant} get no result before message #{index}"
    )]
    UnansweredCalls {
        /// The assistant message's position.
        assistant: usize,
        /// The position of the message that came before the results.
        index: usize,
        /// The ids of the unanswered calls.
        missing: Vec<String>,
    },
    /// An assistant message uses one call id twice.
    #[error("message #{index} repeats tool call id `{call_id}` within one assistant message")]
    DuplicateCallId {
        /// Its position in the conversation.
        index: usize,
        /// The repeated id.
        call_id: String,
    },
}

/// Checks the invariants above over a whole conversation.
pub fn validate_conversation(messages: &[Message]) -> Result<(), ConversationError> {
    // The assistant message whose calls are being answered, and the ids still open.
    let mut open: Option<(usize, BTreeSet<&str>, BTreeSet<&str>)> = None;
    for (index, message) in messages.iter().enumerate() {
        match message {
            Message::Tool(result) => {
                let Some((_, pending, answered)) = open.as_mut() else {
                    return Err(ConversationError::UnknownCallId {
                        index,
                        call_id: result.call_id.clone(),
                    });
                };
                let id = result.call_id.as_str();
                if pending.remove(id) {
                    answered.insert(id);
                } else if answered.contains(id) {
                    return Err(ConversationError::DuplicateResult {
                        index,
                        call_id: id.to_string(),
                    });
                } else {
                    return Err(ConversationError::UnknownCallId {
                        index,
                        call_id: id.to_string(),
                    });
                }
            }
            other => {
                close_open(&mut open, index)?;
                if let Message::Assistant(assistant) = other {
                    if assistant.is_empty() {
                        return Err(ConversationError::EmptyAssistant { index });
                    }
                    if !assistant.tool_calls.is_empty() {
                        let mut pending = BTreeSet::new();
                        for call in &assistant.tool_calls {
                            if !pending.insert(call.id.as_str()) {
                                return Err(ConversationError::DuplicateCallId {
                                    index,
                                    call_id: call.id.clone(),
                                });
                            }
                        }
                        open = Some((index, pending, BTreeSet::new()));
                    }
                }
            }
        }
    }
    close_open(&mut open, messages.len())
}

fn close_open(
    open: &mut Option<(usize, BTreeSet<&str>, BTreeSet<&str>)>,
    index: usize,
) -> Result<(), ConversationError> {
    if let Some((assistant, pending, _)) = open.take()
        && !pending.is_empty()
    {
        return Err(ConversationError::UnansweredCalls {
            assistant,
            index,
            missing: pending.into_iter().map(str::to_string).collect(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{AssistantMessage, ToolCall, ToolResult};

    fn calls(ids: &[&str]) -> Message {
        Message::assistant(AssistantMessage {
            replay: Vec::new(),
            text: String::new(),
            tool_calls: ids.iter().map(|id| ToolCall::new(*id, "f", "{}")).collect(),
        })
    }

    #[test]
    fn answered_calls_pass() {
        let conversation = vec![
            Message::system("s"),
            Message::user("u"),
            calls(&["a", "b"]),
            Message::tool_result(ToolResult::success("b", "1")),
            Message::tool_result(ToolResult::error("a", "2")),
            Message::assistant(AssistantMessage::text("done")),
            Message::user("again"),
        ];
        assert_eq!(validate_conversation(&conversation), Ok(()));
    }

    #[test]
    fn each_violation_is_named() {
        let cases = vec![
            (
                vec![
                    Message::user("u"),
                    Message::assistant(AssistantMessage::default()),
                ],
                ConversationError::EmptyAssistant { index: 1 },
            ),
            (
                vec![
                    Message::user("u"),
                    Message::tool_result(ToolResult::success("x", "")),
                ],
                ConversationError::UnknownCallId {
                    index: 1,
                    call_id: "x".into(),
                },
            ),
            (
                vec![
                    calls(&["a"]),
                    Message::tool_result(ToolResult::success("a", "")),
                    Message::tool_result(ToolResult::success("a", "")),
                ],
                ConversationError::DuplicateResult {
                    index: 2,
                    call_id: "a".into(),
                },
            ),
            (
                vec![
                    calls(&["a", "b"]),
                    Message::tool_result(ToolResult::success("a", "")),
                ],
                ConversationError::UnansweredCalls {
                    assistant: 0,
                    index: 2,
                    missing: vec!["b".into()],
                },
            ),
            (
                vec![
                    calls(&["a"]),
                    Message::user("interrupt"),
                    Message::tool_result(ToolResult::success("a", "")),
                ],
                ConversationError::UnansweredCalls {
                    assistant: 0,
                    index: 1,
                    missing: vec!["a".into()],
                },
            ),
            (
                vec![calls(&["a", "a"])],
                ConversationError::DuplicateCallId {
                    index: 0,
                    call_id: "a".into(),
                },
            ),
        ];
        for (conversation, expected) in cases {
            assert_eq!(validate_conversation(&conversation), Err(expected));
        }
    }
}
