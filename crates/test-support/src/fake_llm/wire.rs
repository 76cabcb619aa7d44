//! Response bodies of the fake model in both wire formats, streamed (SSE) and whole, with
//! usage figures; text is cut into small pieces and arguments into halves so the client's
//! streaming assembly is exercised.

use serde_json::{Value, json};

use super::{CallRecord, FAKE_OUTPUT_TOKENS};

/// Text in small pieces, so streaming is exercised.
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(6).map(|c| c.iter().collect()).collect()
}

pub(super) fn openai_sse(text: &str, calls: &[CallRecord], input: u64) -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": "fake",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut chunks = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for piece in pieces(text) {
        chunks.push(chunk(json!({"content": piece}), Value::Null));
    }
    for (i, (id, name, args)) in calls.iter().enumerate() {
        chunks.push(chunk(
            json!({"tool_calls": [{"index": i, "id": id, "type": "function",
                                   "function": {"name": name, "arguments": ""}}]}),
            Value::Null,
        ));
        let args = args.to_string();
        let (a, b) = args.split_at(args.len() / 2);
        for part in [a, b] {
            chunks.push(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": part}}]}),
                Value::Null,
            ));
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    chunks.push(chunk(json!({}), json!(finish)));
    chunks.push(
        json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [],
                       "usage": {"prompt_tokens": input, "completion_tokens": FAKE_OUTPUT_TOKENS}}),
    );
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

pub(super) fn openai_whole(text: &str, calls: &[CallRecord], input: u64) -> Value {
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| {
            json!({"id": id, "type": "function",
                   "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    let mut message = json!({"role": "assistant",
                             "content": if text.is_empty() { Value::Null } else { json!(text) }});
    if !tool_calls.is_empty() {
        message["tool_calls"] = json!(tool_calls);
    }
    json!({"id": "chatcmpl-fake", "object": "chat.completion", "model": "fake",
           "choices": [{"index": 0, "message": message,
                        "finish_reason": if calls.is_empty() { "stop" } else { "tool_calls" }}],
           "usage": {"prompt_tokens": input, "completion_tokens": FAKE_OUTPUT_TOKENS}})
}

pub(super) fn anthropic_sse(text: &str, calls: &[CallRecord], input: u64) -> String {
    let mut events = vec![json!({"type": "message_start", "message": {
        "id": "msg_fake", "type": "message", "role": "assistant", "model": "fake", "content": [],
        "stop_reason": null, "usage": {"input_tokens": input, "output_tokens": 1}}})];
    let mut index = 0;
    if !text.is_empty() {
        events.push(json!({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}}));
        for piece in pieces(text) {
            events.push(json!({"type": "content_block_delta", "index": index,
                               "delta": {"type": "text_delta", "text": piece}}));
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
        index += 1;
    }
    for (id, name, args) in calls {
        events.push(json!({"type": "content_block_start", "index": index,
                           "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
        let args = args.to_string();
        let (a, b) = args.split_at(args.len() / 2);
        for part in [a, b] {
            events.push(json!({"type": "content_block_delta", "index": index,
                               "delta": {"type": "input_json_delta", "partial_json": part}}));
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
        index += 1;
    }
    let stop = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    events.push(
        json!({"type": "message_delta", "delta": {"stop_reason": stop},
                       "usage": {"output_tokens": FAKE_OUTPUT_TOKENS}}),
    );
    events.push(json!({"type": "message_stop"}));
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
        .collect()
}

pub(super) fn anthropic_whole(text: &str, calls: &[CallRecord], input: u64) -> Value {
    let mut content = Vec::new();
    if !text.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    for (id, name, args) in calls {
        content.push(json!({"type": "tool_use", "id": id, "name": name, "input": args}));
    }
    json!({"id": "msg_fake", "type": "message", "role": "assistant", "model": "fake",
           "content": content,
           "stop_reason": if calls.is_empty() { "end_turn" } else { "tool_use" },
           "usage": {"input_tokens": input, "output_tokens": FAKE_OUTPUT_TOKENS}})
}
