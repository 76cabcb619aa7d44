use std::time::{Duration, Instant};

use coyote_protocol::{ClientFeatureSettings, SamplingMode};
use serde_json::json;

use super::*;

fn gate(per_minute: u32, max_tokens: u32) -> SamplingGate {
    SamplingGate::new(&ClientFeatureSettings {
        sampling_per_minute: per_minute,
        sampling_max_tokens: max_tokens,
        ..ClientFeatureSettings::default()
    })
}

#[test]
fn the_rate_limit_counts_admitted_requests_in_a_sliding_minute() {
    let gate = gate(2, 100);
    let t0 = Instant::now();
    assert!(gate.admit("s", 10, t0).is_ok());
    assert!(gate.admit("s", 10, t0 + Duration::from_secs(10)).is_ok());
    let refused = gate
        .admit("s", 10, t0 + Duration::from_secs(20))
        .unwrap_err();
    assert!(
        refused.message().contains("samplingPerMinute"),
        "{refused:?}"
    );
    // The first request leaves the window after 60 s: one slot again.
    assert!(gate.admit("s", 10, t0 + Duration::from_secs(60)).is_ok());
    assert!(gate.admit("s", 10, t0 + Duration::from_secs(61)).is_err());
}

#[test]
fn the_token_cap_and_never_refuse_before_counting() {
    let gate = gate(1, 100);
    let now = Instant::now();
    let over = gate.admit("s", 101, now).unwrap_err();
    assert!(over.message().contains("101 tokens"), "{over:?}");
    assert!(over.message().contains("samplingMaxTokens"), "{over:?}");
    // The refused request did not use the one slot.
    assert!(gate.admit("s", 100, now).is_ok());

    let never = SamplingGate::new(&ClientFeatureSettings {
        sampling: SamplingMode::Never,
        ..ClientFeatureSettings::default()
    });
    assert!(!never.enabled());
    let refused = never.admit("s", 1, now).unwrap_err();
    assert!(refused.message().contains("\"never\""), "{refused:?}");
}

#[test]
fn wire_requests_convert_with_hints_tools_and_both_content_shapes() {
    let params = json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "add", "input": {"a": 1}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "toolUseId": "t1",
                 "content": [{"type": "text", "text": "2"}]}
            ]}
        ],
        "systemPrompt": "be brief",
        "maxTokens": 50,
        "temperature": 0.5,
        "modelPreferences": {"hints": [{"name": "claude"}, {"name": "gpt"}]},
        "tools": [{"name": "add", "inputSchema": {"type": "object"}}],
        "toolChoice": {"mode": "required"}
    });
    let request = request_from_wire("srv", &params).unwrap();
    assert_eq!(request.server, "srv");
    assert_eq!(request.max_tokens, 50);
    assert_eq!(request.system_prompt.as_deref(), Some("be brief"));
    assert_eq!(request.model_hints, vec!["claude", "gpt"]);
    assert_eq!(request.tools.len(), 1);
    assert_eq!(request.tool_choice, Some(SamplingToolChoice::Required));
    assert_eq!(request.messages.len(), 3);
    assert_eq!(request.messages[0].text(), "hi");
    assert_eq!(
        request.messages[2].content,
        vec![SamplingContent::ToolResult {
            tool_use_id: "t1".into(),
            text: "2".into(),
            is_error: false
        }]
    );
    let bad = request_from_wire("srv", &json!({"messages": []})).unwrap_err();
    assert!(bad.0.contains("maxTokens"), "{bad:?}");
}

#[test]
fn responses_convert_to_the_wire_result() {
    let wire = response_to_wire(&SamplingResponse {
        model: "fake:m".into(),
        stop: SamplingStop::EndTurn,
        content: vec![SamplingContent::Text {
            text: "answer".into(),
        }],
    });
    assert_eq!(
        wire,
        json!({"model": "fake:m", "stopReason": "endTurn", "role": "assistant",
               "content": {"type": "text", "text": "answer"}})
    );
    // rmcp reads it as a CreateMessageResult.
    #[expect(deprecated)]
    {
        let parsed: rmcp::model::CreateMessageResult = serde_json::from_value(wire).unwrap();
        assert_eq!(parsed.model, "fake:m");
    }
}
