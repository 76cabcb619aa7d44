use coyote_llm::{AssistantMessage, ChatResponse, FinishReason, Message, ToolCall, ToolChoice};
use coyote_mcp::{
    SamplingContent, SamplingMessage, SamplingRequest, SamplingRole, SamplingStop, SamplingTool,
    SamplingToolChoice,
};
use serde_json::json;

use super::{chat_request, sampling_response};

fn request(messages: Vec<SamplingMessage>) -> SamplingRequest {
    SamplingRequest {
        server: "srv".into(),
        messages,
        system_prompt: Some("You are a helpful test server.".into()),
        max_tokens: 100,
        temperature: Some(0.7),
        stop_sequences: vec![],
        model_hints: vec![],
        tools: vec![],
        tool_choice: None,
    }
}

fn user(text: &str) -> SamplingMessage {
    SamplingMessage {
        role: SamplingRole::User,
        content: vec![SamplingContent::Text { text: text.into() }],
    }
}

#[test]
fn the_system_prompt_messages_and_limits_reach_the_chat_request() {
    let chat = chat_request("m", &request(vec![user("hello")]));
    assert_eq!(chat.model, "m");
    assert_eq!(
        chat.messages,
        vec![
            Message::system("You are a helpful test server."),
            Message::user("hello")
        ]
    );
    assert_eq!(chat.max_tokens, Some(100));
    assert_eq!(chat.temperature, Some(0.7));
    assert!(chat.tools.is_empty());
}

#[test]
fn tool_use_rounds_become_calls_and_results() {
    let mut r = request(vec![
        user("add 1 and 2"),
        SamplingMessage {
            role: SamplingRole::Assistant,
            content: vec![SamplingContent::ToolUse {
                id: "t1".into(),
                name: "add".into(),
                input: json!({"a": 1, "b": 2}).as_object().cloned().unwrap(),
            }],
        },
        SamplingMessage {
            role: SamplingRole::User,
            content: vec![SamplingContent::ToolResult {
                tool_use_id: "t1".into(),
                text: "3".into(),
                is_error: false,
            }],
        },
    ]);
    r.tools = vec![SamplingTool {
        name: "add".into(),
        description: Some("adds".into()),
        input_schema: json!({"type": "object"}),
    }];
    r.tool_choice = Some(SamplingToolChoice::Required);
    let chat = chat_request("m", &r);
    assert_eq!(chat.tools.len(), 1);
    assert_eq!(chat.tool_choice, ToolChoice::Required);
    assert_eq!(chat.messages.len(), 4);
    let Message::Assistant(call) = &chat.messages[2] else {
        panic!("{:?}", chat.messages[2]);
    };
    assert_eq!(call.tool_calls[0].name, "add");
    assert_eq!(
        chat.messages[3],
        Message::tool_result(coyote_llm::ToolResult::success("t1", "3"))
    );
}

#[test]
fn answers_become_text_or_tool_use_with_the_stop_reason() {
    let text = sampling_response(
        "fake:m",
        ChatResponse {
            message: AssistantMessage::text("hi"),
            usage: None,
            finish_reason: FinishReason::Length,
        },
    );
    assert_eq!(text.model, "fake:m");
    assert_eq!(text.stop, SamplingStop::MaxTokens);
    assert_eq!(
        text.content,
        vec![SamplingContent::Text { text: "hi".into() }]
    );
    let call = sampling_response(
        "fake:m",
        ChatResponse {
            message: AssistantMessage {
                replay: Vec::new(),
                text: String::new(),
                tool_calls: vec![ToolCall::new("c", "add", "{\"a\":1}")],
            },
            usage: None,
            finish_reason: FinishReason::Stop,
        },
    );
    assert_eq!(call.stop, SamplingStop::ToolUse);
    assert!(matches!(&call.content[0], SamplingContent::ToolUse { name, .. } if name == "add"));
}
