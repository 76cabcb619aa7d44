//! A server request on the session's standalone GET stream, sent during the first tool call.
//!
//! The server below behaves as the TypeScript SDK's streamable HTTP server does for
//! `server.request(…)` without a related request: it writes the request to the standalone
//! stream and drops it when that stream is not open yet. Its GET answers 300 ms late, as on a
//! loaded machine. The client must not send its next request before the standalone stream has
//! its answer, or the question is lost and the call hangs (the conformance suite's
//! `elicitation-sep1034-client-defaults` failed that way under load).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use coyote_mcp::{
    ContentItem, ElicitationHook, ElicitationRequest, ElicitationResponse, McpRuntime,
    RuntimeOptions,
};
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

use super::http::http_spec;
use super::support::relaxed;

/// How late the server answers the standalone GET.
const GET_DELAY: Duration = Duration::from_millis(300);

#[derive(Default)]
struct LateGet {
    /// Set when the standalone stream has been answered (headers sent).
    open: AtomicBool,
    /// Events for the standalone stream.
    events: Mutex<Option<mpsc::UnboundedSender<Value>>>,
    /// The pending answer to the server's `elicitation/create`.
    answer: Mutex<Option<oneshot::Sender<Value>>>,
}

fn json_response(body: &Value) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::HeaderName::from_static("mcp-session-id"), "s1"),
        ],
        body.to_string(),
    )
        .into_response()
}

fn tool_text(id: &Value, text: &str) -> Response {
    json_response(&json!({
        "jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": text}]}
    }))
}

async fn on_post(State(state): State<Arc<LateGet>>, body: Bytes) -> Response {
    let Ok(message) = serde_json::from_slice::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        // The client's answer to our request.
        if let Some(tx) = state.answer.lock().expect("lock").take() {
            let _ = tx.send(message.get("result").cloned().unwrap_or(Value::Null));
        }
        return StatusCode::ACCEPTED.into_response();
    };
    if id.is_null() {
        return StatusCode::ACCEPTED.into_response();
    }
    match method {
        "initialize" => json_response(&json!({
            "jsonrpc": "2.0", "id": id,
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "late-get", "version": "1.0.0"}
            }
        })),
        "tools/list" => json_response(&json!({
            "jsonrpc": "2.0", "id": id,
            "result": {"tools": [{
                "name": "ask",
                "inputSchema": {"type": "object"},
                "annotations": {"readOnlyHint": true}
            }]}
        })),
        "tools/call" => {
            let events = state.events.lock().expect("lock").clone();
            let Some(events) = events.filter(|_| state.open.load(Ordering::SeqCst)) else {
                return tool_text(&id, "the standalone stream was not open: question dropped");
            };
            let (tx, rx) = oneshot::channel();
            *state.answer.lock().expect("lock") = Some(tx);
            let _ = events.send(json!({
                "jsonrpc": "2.0", "id": "e1", "method": "elicitation/create",
                "params": {
                    "message": "your name?",
                    "requestedSchema": {"type": "object", "properties": {
                        "name": {"type": "string", "default": "John Doe"}
                    }}
                }
            }));
            match tokio::time::timeout(Duration::from_secs(20), rx).await {
                Ok(Ok(answer)) => tool_text(&id, &format!("answered: {}", answer["content"])),
                _ => tool_text(&id, "no answer"),
            }
        }
        _ => json_response(&json!({"jsonrpc": "2.0", "id": id, "result": {}})),
    }
}

async fn on_get(State(state): State<Arc<LateGet>>, _headers: HeaderMap) -> Response {
    tokio::time::sleep(GET_DELAY).await;
    let (tx, rx) = mpsc::unbounded_channel::<Value>();
    *state.events.lock().expect("lock") = Some(tx);
    state.open.store(true, Ordering::SeqCst);
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        let event = rx.recv().await?;
        let frame = format!("event: message\ndata: {event}\n\n");
        Some((Ok::<_, Infallible>(Bytes::from(frame)), rx))
    });
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(stream),
    )
        .into_response()
}

async fn start() -> String {
    let state = Arc::new(LateGet::default());
    let app = Router::new()
        .route(
            "/mcp",
            post(on_post)
                .get(on_get)
                .delete(|| async { StatusCode::OK }),
        )
        .with_state(state);
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/mcp")
}

struct AcceptDefaults;

impl ElicitationHook for AcceptDefaults {
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        let mut content = Map::new();
        if let Some(Value::Object(props)) = request.requested_schema.get("properties") {
            for (key, prop) in props {
                if let Some(default) = prop.get("default") {
                    content.insert(key.clone(), default.clone());
                }
            }
        }
        Box::pin(async move { ElicitationResponse::Accept(content) })
    }
}

#[tokio::test]
async fn a_question_on_the_standalone_stream_during_the_first_call_is_not_lost() {
    let url = start().await;
    let runtime = McpRuntime::new(RuntimeOptions {
        elicitation: Arc::new(AcceptDefaults),
        ..RuntimeOptions::default()
    });
    runtime
        .start_all(vec![http_spec("late", &url, relaxed())])
        .await;
    let outcome = runtime
        .server("late")
        .expect("ready")
        .call_tool("ask", Map::new())
        .await
        .expect("call");
    let texts: Vec<String> = outcome
        .content
        .iter()
        .map(|item| match item {
            ContentItem::Text { text, .. } => text.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(texts, vec![r#"answered: {"name":"John Doe"}"#.to_owned()]);
    runtime.shutdown().await;
}
