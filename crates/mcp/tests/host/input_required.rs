//! Protocol 2026-07-28's multi-round-trip requests end to end (library
//! part): a server returns `input_required` with an elicitation and an opaque `requestState`;
//! coyote asks through its elicitation hook (the REPL's questions), sends the call again with
//! the answer and the same `requestState`, and a declined question goes back as declined.
//! The server is a hand-written newline-delimited JSON-RPC peer on an in-memory stream, so the
//! test sees every message exactly as coyote sent it.

use std::sync::{Arc, Mutex};

use coyote_mcp::{
    ContentItem, ElicitationHook, ElicitationRequest, ElicitationResponse, McpRuntime,
    ProtocolRevisions, RuntimeOptions,
};
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::support::relaxed;

const STATE: &str = "opaque-state-\u{1F512}-{\"step\":1}";

/// Answers every question with a fixed response and remembers the questions.
struct Answer {
    response: ElicitationResponse,
    asked: Mutex<Vec<ElicitationRequest>>,
}

impl ElicitationHook for Answer {
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        self.asked.lock().unwrap().push(request);
        Box::pin(std::future::ready(self.response.clone()))
    }
}

fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The server: every `tools/call` request it received, in order.
fn serve(stream: tokio::io::DuplexStream) -> Arc<Mutex<Vec<Value>>> {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let seen = calls.clone();
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(stream);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).unwrap();
            let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
                continue;
            };
            let answer = match method {
                "server/discover" => result(
                    id,
                    json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                        "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                        "serverInfo": {"name": "mrtr-test", "version": "1.0.0"}}),
                ),
                "tools/list" => result(
                    id,
                    json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                        "tools": [{"name": "deploy", "inputSchema": {"type": "object"}}]}),
                ),
                "tools/call" => {
                    seen.lock().unwrap().push(message.clone());
                    let params = &message["params"];
                    if params.get("requestState").is_none() {
                        result(
                            id,
                            json!({"resultType": "input_required",
                                "inputRequests": {"confirm": {"method": "elicitation/create",
                                    "params": {"message": "Deploy to production?",
                                        "requestedSchema": {"type": "object", "properties":
                                            {"confirmed": {"type": "boolean"}}}}}},
                                "requestState": STATE}),
                        )
                    } else {
                        let action = params["inputResponses"]["confirm"]["action"].clone();
                        result(
                            id,
                            json!({"resultType": "complete", "content":
                                [{"type": "text", "text": format!("answer: {action}")}]}),
                        )
                    }
                }
                _ => json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": "method not found"}}),
            };
            let mut bytes = serde_json::to_vec(&answer).unwrap();
            bytes.push(b'\n');
            if write.write_all(&bytes).await.is_err() {
                return;
            }
        }
    });
    calls
}

async fn round_trip(response: ElicitationResponse) -> (String, Vec<Value>, Arc<Answer>) {
    let hook = Arc::new(Answer {
        response,
        asked: Mutex::default(),
    });
    let runtime = McpRuntime::new(RuntimeOptions {
        elicitation: hook.clone(),
        protocol: ProtocolRevisions::Newest,
        ..RuntimeOptions::default()
    });
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let calls = serve(theirs);
    let (read, write) = tokio::io::split(ours);
    let handle = runtime
        .attach_stream("mrtr", relaxed(), read, write)
        .await
        .expect("ready");
    assert_eq!(
        handle.info().protocol_version.as_deref(),
        Some("2026-07-28")
    );
    let outcome = handle.call_tool("deploy", Map::new()).await.expect("call");
    runtime.shutdown().await;
    let text = match &outcome.content[..] {
        [ContentItem::Text { text, .. }] => text.clone(),
        other => panic!("{other:?}"),
    };
    let calls = calls.lock().unwrap().clone();
    (text, calls, hook)
}

#[tokio::test]
async fn an_accepted_question_is_sent_back_with_the_same_request_state() {
    let mut content = Map::new();
    content.insert("confirmed".into(), json!(true));
    let (text, calls, hook) = round_trip(ElicitationResponse::Accept(content)).await;
    assert_eq!(text, "answer: \"accept\"");
    let asked = hook.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].message, "Deploy to production?");
    assert_eq!(asked[0].server, "mrtr");
    assert_eq!(calls.len(), 2, "{calls:#?}");
    let retry = &calls[1]["params"];
    assert_eq!(retry["requestState"], json!(STATE));
    assert_eq!(retry["name"], json!("deploy"));
    assert_eq!(
        retry["inputResponses"]["confirm"],
        json!({"action": "accept", "content": {"confirmed": true}})
    );
    assert_ne!(calls[0]["id"], calls[1]["id"], "the retry is a new request");
}

#[tokio::test]
async fn a_declined_question_is_never_retried_as_accepted() {
    let (text, calls, hook) = round_trip(ElicitationResponse::Decline).await;
    assert_eq!(hook.asked.lock().unwrap().len(), 1);
    assert_eq!(text, "answer: \"decline\"");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1]["params"]["requestState"], json!(STATE));
    assert_eq!(
        calls[1]["params"]["inputResponses"]["confirm"]["action"],
        json!("decline")
    );
    assert!(
        calls
            .iter()
            .all(|c| c["params"]["inputResponses"]["confirm"]["action"] != json!("accept"))
    );
}
