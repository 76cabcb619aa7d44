//! The conversation as the `retrieve` exposure ranks a server's tools against it:
//! the latest user message, the last assistant message (its text and the names it called),
//! the results of the tool calls since the latest user message, and the tools those calls
//! ran — resolved against the declaration set they were made in, so a tool the model used
//! stays declared for the rest of the turn and a refused (undeclared) call adds nothing.

use coyote_llm::Message;
use coyote_mcp::meta::{MetaDispatcher, RetrieveContext};
use coyote_mcp::{FunctionTarget, MetaKind};
use serde_json::Value;

use crate::conversation::Conversation;

/// Bytes of each recent tool result taken into the ranking.
const RESULT_BYTES: usize = 2_000;
/// How many of the latest tool results are taken.
const RESULTS: usize = 3;

/// The context of the next request of `conversation`; `dispatcher` still holds the latest
/// request's declaration set, which the calls since the user's message were made in.
pub(crate) fn context(conversation: &Conversation, dispatcher: &MetaDispatcher) -> RetrieveContext {
    let messages = &conversation.messages;
    let start = messages
        .iter()
        .rposition(|m| matches!(m, Message::User { .. }))
        .unwrap_or(0);
    let mut context = RetrieveContext::default();
    if let Some(Message::User { text, .. }) = messages.get(start) {
        context.user = text.clone();
    }
    if let Some(Message::Assistant(last)) = messages
        .iter()
        .rev()
        .find(|m| matches!(m, Message::Assistant(_)))
    {
        context.assistant = last.text.clone();
        for call in &last.tool_calls {
            context.assistant.push('\n');
            context.assistant.push_str(&call.name);
        }
    }
    let results: Vec<&str> = messages[start..]
        .iter()
        .filter_map(|m| match m {
            Message::Tool(result) => Some(cut(&result.content)),
            Message::System { .. } | Message::User { .. } | Message::Assistant(_) => None,
        })
        .collect();
    context.results = results[results.len().saturating_sub(RESULTS)..].join("\n");
    for message in &messages[start..] {
        let Message::Assistant(assistant) = message else {
            continue;
        };
        for call in &assistant.tool_calls {
            let used = match dispatcher.resolve(&call.name) {
                Some(FunctionTarget::Direct(direct)) => Some((direct.server, direct.tool)),
                Some(FunctionTarget::Meta(function)) if function.kind == MetaKind::Invoke => call
                    .parse_arguments()
                    .ok()
                    .and_then(|args| args.get("tool").and_then(Value::as_str).map(str::to_owned))
                    .map(|tool| (function.server, tool)),
                Some(FunctionTarget::Meta(_)) | None => None,
            };
            context.used.extend(used);
        }
    }
    context
}

/// The first [`RESULT_BYTES`] of `text` (at a character boundary).
fn cut(text: &str) -> &str {
    let mut end = text.len().min(RESULT_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
