use coyote_mcp::{
    SamplingContent, SamplingMessage, SamplingRequest, SamplingRole, UrlElicitationRequest,
};

use super::*;

fn request(text: &str) -> SamplingRequest {
    SamplingRequest {
        server: "everything".into(),
        messages: vec![SamplingMessage {
            role: SamplingRole::User,
            content: vec![SamplingContent::Text { text: text.into() }],
        }],
        system_prompt: Some("be \x1b[31mbrief".into()),
        max_tokens: 100,
        temperature: None,
        stop_sequences: vec![],
        model_hints: vec![],
        tools: vec![],
        tool_choice: None,
    }
}

#[test]
fn the_request_is_shown_sanitized_and_long_messages_are_cut() {
    let long: Vec<String> = (0..40).map(|i| format!("line {i}")).collect();
    let r = request(&long.join("\n"));
    let short = describe_request(&r, "fake:m", false);
    assert!(short.starts_with(
        "MCP server `everything` asks the model fake:m to answer (up to 100 tokens).\n"
    ));
    assert!(short.contains("  system: be \\x1b[31mbrief\n"), "{short}");
    assert!(short.contains("line 11"), "{short}");
    assert!(!short.contains("line 12"), "{short}");
    assert!(short.contains("show the full messages"), "{short}");
    let whole = describe_request(&r, "fake:m", true);
    assert!(whole.contains("line 39"), "{whole}");
    assert!(!whole.contains("(cut;"), "{whole}");
}

#[test]
fn an_edit_replaces_the_last_user_text() {
    let r = request("summarize this");
    let e = edited(&r, "summarize that".into());
    assert_eq!(e.messages.len(), 1);
    assert_eq!(e.messages[0].text(), "summarize that");
    assert_eq!(last_user_text(&r), "summarize this");
}

#[test]
fn the_url_question_shows_server_message_site_and_url() {
    let r = UrlElicitationRequest {
        server: "pay".into(),
        message: "Confirm the payment".into(),
        url: "https://shop.example.com/pay?id=1".into(),
        elicitation_id: "e1".into(),
    };
    assert_eq!(
        describe_url(&r),
        "MCP server `pay` asks you to open a web page.\n  message: Confirm the payment\n  \
         site: https://shop.example.com\n  URL: https://shop.example.com/pay?id=1\n"
    );
    let odd = UrlElicitationRequest {
        url: "file:///etc/passwd".into(),
        ..r
    };
    assert!(describe_url(&odd).contains("not a web address (it will not be opened)"));
}
