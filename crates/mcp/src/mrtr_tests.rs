use std::sync::Mutex;

use serde_json::json;

use super::*;

/// Records what it was asked and answers with a fixed value.
#[derive(Default)]
struct Recorder(Mutex<Vec<(String, String)>>);

impl Recorder {
    fn respond(
        &self,
        key: String,
        request: ServerRequest,
    ) -> BoxFuture<'_, Result<Value, ErrorData>> {
        let method = match &request {
            ServerRequest::ElicitRequest(_) => "elicitation/create",
            ServerRequest::ListRootsRequest(_) => "roots/list",
            _ => "other",
        };
        self.0
            .lock()
            .unwrap()
            .push((key.clone(), method.to_owned()));
        Box::pin(async move { Ok(json!({"action": "decline", "key": key})) })
    }
}

fn input_required(value: Value) -> InputRequiredResult {
    serde_json::from_value(value).unwrap()
}

#[tokio::test]
async fn each_request_is_answered_and_the_state_goes_back_unchanged() {
    let result = input_required(json!({
        "resultType": "input_required",
        "inputRequests": {
            "confirm": {"method": "elicitation/create", "params": {
                "message": "Sure?",
                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}
            }},
            "where": {"method": "roots/list"}
        },
        "requestState": "opaque\u{0}state {\"x\":1}"
    }));
    let recorder = Recorder::default();
    let (responses, state) = answer("s", result, |k, r| recorder.respond(k, r))
        .await
        .unwrap();
    assert_eq!(state.as_deref(), Some("opaque\u{0}state {\"x\":1}"));
    let responses = responses.unwrap();
    assert_eq!(
        responses["confirm"],
        json!({"action": "decline", "key": "confirm"})
    );
    assert_eq!(responses["where"]["key"], json!("where"));
    let mut asked = recorder.0.lock().unwrap().clone();
    asked.sort();
    assert_eq!(
        asked,
        vec![
            ("confirm".to_owned(), "elicitation/create".to_owned()),
            ("where".to_owned(), "roots/list".to_owned())
        ]
    );
}

#[tokio::test]
async fn a_state_only_round_sends_no_responses() {
    let result = input_required(json!({"resultType": "input_required", "requestState": "s1"}));
    let recorder = Recorder::default();
    let (responses, state) = answer("s", result, |k, r| recorder.respond(k, r))
        .await
        .unwrap();
    assert_eq!((responses, state.as_deref()), (None, Some("s1")));
}

/// A request coyote could not answer (sampling declined, no API key) is reported as input
/// not given, with the reason — not as a server bug to report to its authors, as before.
#[tokio::test]
async fn an_unanswered_request_is_input_not_given_not_a_server_bug() {
    let result = input_required(json!({
        "resultType": "input_required",
        "inputRequests": {
            "ask": {"method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                "maxTokens": 10
            }}
        }
    }));
    let err = answer("s", result, |_, _| async {
        Err(ErrorData::invalid_request(
            "the user declined the sampling request",
            None,
        ))
    })
    .await
    .unwrap_err();
    assert!(matches!(err, McpError::InputNotGiven { .. }), "{err:?}");
    let text = err.to_string();
    assert_eq!(
        text,
        "MCP server 's' asked for input during 'tools/call' that was not given: the user \
         declined the sampling request"
    );
    assert!(!text.contains("server bug"));
}
