use serde_json::json;

use super::*;

/// rmcp's classification of a reply (method-agnostic, like on the wire).
fn classify(v: Value) -> ServerResult {
    serde_json::from_value(v).expect("every object is some ServerResult")
}

#[test]
fn an_off_spec_block_becomes_invalid_and_its_neighbours_survive() {
    let reply = json!({"content": [
        {"type": "text", "text": "before off-spec"},
        {"type": "hologram", "data": "???"},
        {"type": "image", "data": "AAAA"},
        {"type": "resource_link", "uri": "file:///x"},
        {"type": "text", "text": "after off-spec"}
    ], "isError": true});
    let outcome = tool_outcome_from(classify(reply));
    assert_eq!(
        outcome,
        ToolCallOutcome {
            content: vec![
                ContentItem::Text {
                    text: "before off-spec".into(),
                    annotations: None
                },
                ContentItem::Invalid {
                    index: 1,
                    reason: "unknown content type \"hologram\"".into()
                },
                // Lenient where our model allows: no mimeType, no name.
                ContentItem::Image {
                    data_base64: "AAAA".into(),
                    mime_type: None
                },
                ContentItem::ResourceLink {
                    uri: "file:///x".into(),
                    name: None,
                    title: None,
                    description: None,
                    mime_type: None,
                    size: None,
                },
                ContentItem::Text {
                    text: "after off-spec".into(),
                    annotations: None
                },
            ],
            structured_content: None,
            is_error: true,
            schema_warning: None,
            meta: None,
            task: None,
        }
    );
}

#[test]
fn a_valid_tool_result_takes_the_typed_path() {
    let reply = json!({
        "content": [
            {"type": "text", "text": "hi", "annotations": {"audience": ["user"]}},
            {"type": "image", "data": "iVBO", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "a://b", "blob": "AAEC", "mimeType": "application/octet-stream"}}
        ],
        "structuredContent": {"n": 1}
    });
    let result = classify(reply);
    assert!(
        matches!(result, ServerResult::CallToolResult(_)),
        "typed: {result:?}"
    );
    assert_eq!(
        tool_outcome_from(result),
        ToolCallOutcome {
            content: vec![
                ContentItem::Text {
                    text: "hi".into(),
                    annotations: Some(json!({"audience": ["user"]}))
                },
                ContentItem::Image {
                    data_base64: "iVBO".into(),
                    mime_type: Some("image/png".into())
                },
                ContentItem::Resource {
                    resource: ResourceContent::Blob {
                        uri: "a://b".into(),
                        mime_type: Some("application/octet-stream".into()),
                        blob_base64: "AAEC".into(),
                    },
                },
            ],
            structured_content: Some(json!({"n": 1})),
            is_error: false,
            schema_warning: None,
            meta: None,
            task: None,
        }
    );
}

#[test]
fn resource_entries_with_both_or_neither_body_are_invalid() {
    let reply = json!({"contents": [
        {"uri": "a://1", "text": "fine", "mimeType": "text/plain"},
        {"uri": "a://2", "text": "t", "blob": "AA=="},
        {"uri": "a://3"},
        {"uri": "a://4", "blob": "AA=="},
        {"text": "no uri"}
    ]});
    assert_eq!(
        resource_contents_from(classify(reply)),
        vec![
            ResourceContent::Text {
                uri: "a://1".into(),
                mime_type: Some("text/plain".into()),
                text: "fine".into()
            },
            ResourceContent::Invalid {
                uri: Some("a://2".into()),
                reason: "resource contents has both \"text\" and \"blob\" (exactly one is allowed)"
                    .into(),
            },
            ResourceContent::Invalid {
                uri: Some("a://3".into()),
                reason: "resource contents has neither \"text\" nor \"blob\"".into(),
            },
            ResourceContent::Blob {
                uri: "a://4".into(),
                mime_type: None,
                blob_base64: "AA==".into()
            },
            ResourceContent::Invalid {
                uri: None,
                reason: "resource contents without a string \"uri\"".into()
            },
        ]
    );
}

#[test]
fn a_prompt_with_an_odd_role_keeps_its_messages() {
    let reply = json!({"description": "d", "messages": [
        {"role": "system", "content": {"type": "text", "text": "be brief"}},
        {"role": "user", "content": {"type": "text", "text": "hello"}},
        {"role": "assistant", "content": {"type": "video"}}
    ]});
    assert_eq!(
        prompt_result_from(classify(reply)),
        PromptResult {
            description: Some("d".into()),
            messages: vec![
                PromptMessage {
                    role: PromptMessageRole::Other("system".into()),
                    content: ContentItem::Text {
                        text: "be brief".into(),
                        annotations: None
                    },
                },
                PromptMessage {
                    role: PromptMessageRole::User,
                    content: ContentItem::Text {
                        text: "hello".into(),
                        annotations: None
                    },
                },
                PromptMessage {
                    role: PromptMessageRole::Assistant,
                    content: ContentItem::Invalid {
                        index: 2,
                        reason: "unknown content type \"video\"".into()
                    },
                },
            ],
        }
    );
}

#[test]
fn a_contentless_tool_result_is_an_empty_outcome() {
    assert_eq!(
        tool_outcome_from(classify(json!({}))),
        ToolCallOutcome {
            content: vec![],
            structured_content: None,
            is_error: false,
            schema_warning: None,
            meta: None,
            task: None,
        }
    );
}

/// A result's `_meta` is kept verbatim, so `coyote mcp call --json` passes it through as the
/// docs say (before, it was dropped).
#[test]
fn a_tool_results_meta_is_kept() {
    let raw = json!({
        "content": [{"type": "text", "text": "hi"}],
        "_meta": {"io.example/trace": "abc", "progressToken": 7}
    });
    assert_eq!(
        tool_outcome_from(classify(raw.clone())).meta,
        Some(json!({"io.example/trace": "abc", "progressToken": 7}))
    );
    assert_eq!(
        tool_outcome_raw(raw).meta,
        Some(json!({"io.example/trace": "abc", "progressToken": 7}))
    );
}

#[test]
fn catalog_entries_convert_whole() {
    let tool: Tool = serde_json::from_value(json!({
        "name": "t", "title": "T", "description": "d",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": true}
    }))
    .expect("tool");
    assert_eq!(
        tool_info(tool),
        ToolInfo {
            name: "t".into(),
            title: Some("T".into()),
            description: Some("d".into()),
            input_schema: json!({"type": "object"}),
            output_schema: Some(json!({"type": "object", "properties": {}})),
            annotations: Some(json!({"readOnlyHint": true})),
        }
    );
    let prompt: Prompt = serde_json::from_value(json!({
        "name": "p", "arguments": [{"name": "a", "required": true}, {"name": "b"}]
    }))
    .expect("prompt");
    assert_eq!(
        prompt_info(prompt),
        PromptInfo {
            name: "p".into(),
            title: None,
            description: None,
            arguments: vec![
                PromptArgumentInfo {
                    name: "a".into(),
                    title: None,
                    description: None,
                    required: true
                },
                PromptArgumentInfo {
                    name: "b".into(),
                    title: None,
                    description: None,
                    required: false
                },
            ],
        }
    );
}
