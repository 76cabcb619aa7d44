//! Unit tests of the pure parts of compaction: windows, estimates, turn boundaries, the
//! transcript. The end-to-end test with the fake model is `tests/suite/compaction.rs`.

use coyote_llm::{AssistantMessage, Message, ToolCall, ToolResult};

use super::*;
use crate::compact_summary::transcript;

fn call(id: &str) -> Message {
    Message::assistant(AssistantMessage {
        replay: Vec::new(),
        text: String::new(),
        tool_calls: vec![ToolCall::new(id, "mcp_invoke_fs", "{}")],
    })
}

fn conversation() -> Vec<Message> {
    vec![
        Message::user("one"),
        call("c1"),
        Message::tool_result(ToolResult::success("c1", "r1")),
        Message::assistant(AssistantMessage::text("a1")),
        Message::user("two"),
        Message::assistant(AssistantMessage::text("a2")),
        Message::user("three"),
        call("c3"),
        Message::tool_result(ToolResult::success("c3", "r3")),
    ]
}

#[test]
fn windows_configured_known_then_default() {
    assert_eq!(
        ContextPolicy::for_model("gpt-4o-mini", Some(1000)).window,
        1000
    );
    assert_eq!(
        ContextPolicy::for_model("gpt-4o-mini", None).window,
        128_000
    );
    assert_eq!(
        ContextPolicy::for_model("anthropic/claude-sonnet-4", None).window,
        200_000
    );
    assert_eq!(known_context_window("Qwen2.5-Coder-7B"), Some(32_768));
    assert_eq!(known_context_window("gpt-4"), Some(8_192));
    assert_eq!(known_context_window("gpt-4.1-mini"), Some(1_047_576));
    assert_eq!(
        ContextPolicy::for_model("my-local-model", Some(0)).window,
        DEFAULT_CONTEXT_WINDOW
    );
    let policy = ContextPolicy::for_model("x", Some(1000));
    assert_eq!(policy.threshold_tokens(), 800);
    assert_eq!(policy.keep_last_turns, DEFAULT_KEEP_LAST_TURNS);
}

#[test]
fn estimate_counts_text_calls_and_results() {
    let messages = vec![
        Message::system("12345678"),
        Message::tool_result(ToolResult::success("id", "12")),
    ];
    // 8 bytes → 2 tokens + 4; "id"+"12" = 4 bytes → 1 + 4.
    assert_eq!(estimate_tokens(&messages), 11);
    assert_eq!(estimate_tokens(&[]), 0);
}

#[test]
fn turn_boundaries() {
    let messages = conversation();
    assert_eq!(kept_turns_start(&messages, 1), 6);
    assert_eq!(kept_turns_start(&messages, 2), 4);
    assert_eq!(kept_turns_start(&messages, 3), 0);
    assert_eq!(kept_turns_start(&messages, 9), 0);
    assert_eq!(latest_results_start(&messages), 8);
    assert_eq!(latest_results_start(&[Message::user("x")]), 1);
    assert_eq!(turn_count(&messages[..4]), 1);
}

#[test]
fn head_cuts_at_char_boundaries() {
    assert_eq!(head("héllo", 2), "h");
    assert_eq!(head("héllo", 3), "hé");
    assert_eq!(head("ab", 10), "ab");
}

#[test]
fn transcript_labels_and_bounds() {
    let messages = conversation();
    let text = transcript(&messages[..4], 10_000);
    assert_eq!(
        text,
        "[user] one\n[tool call] mcp_invoke_fs({})\n[tool result] r1\n[assistant] a1\n"
    );
    let bounded = transcript(&messages[..4], 40);
    assert_eq!(
        bounded,
        "[2 older part(s) omitted to fit the context window]\n[tool result] r1\n[assistant] a1\n"
    );
}
