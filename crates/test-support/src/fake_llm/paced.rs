//! A streaming OpenAI-compatible model endpoint whose answers arrive in timed pieces: text
//! deltas, reasoning deltas (`reasoning_content`) and pauses between them, so a test can look
//! at the screen while an answer is only partly there. One scripted answer per request, on
//! 127.0.0.1; every request body is recorded.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures::StreamExt;
use serde_json::{Value, json};

/// One piece of a streamed answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// An answer text delta.
    Text(String),
    /// A reasoning delta (`delta.reasoning_content`).
    Reasoning(String),
    /// Nothing is sent for this long.
    Pause(Duration),
}

#[derive(Debug, Default)]
struct Shared {
    script: VecDeque<Vec<Piece>>,
    requests: Vec<Value>,
}

/// The running endpoint; dropping it stops the server.
#[derive(Debug)]
pub struct PacedLlm {
    addr: std::net::SocketAddr,
    shared: Arc<Mutex<Shared>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for PacedLlm {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl PacedLlm {
    /// Starts the endpoint with one answer (a list of pieces) per request.
    pub async fn start(script: Vec<Vec<Piece>>) -> std::io::Result<PacedLlm> {
        let shared = Arc::new(Mutex::new(Shared {
            script: script.into(),
            requests: Vec::new(),
        }));
        let app = Router::new()
            .route("/v1/chat/completions", post(answer))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(PacedLlm { addr, shared, task })
    }

    /// The `api_base` of an openai-compatible client (`http://127.0.0.1:PORT/v1`).
    pub fn api_base(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request body received, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .requests
            .clone()
    }
}

fn chunk(delta: Value, finish: Value) -> String {
    let body = json!({"id": "chatcmpl-paced", "object": "chat.completion.chunk", "model": "paced",
                      "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {body}\n\n")
}

async fn answer(State(shared): State<Arc<Mutex<Shared>>>, body: String) -> Response {
    let pieces = {
        let mut shared = shared.lock().unwrap_or_else(|p| p.into_inner());
        shared
            .requests
            .push(serde_json::from_str(&body).unwrap_or(Value::Null));
        shared.script.pop_front()
    };
    let Some(pieces) = pieces else {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "paced fake: no answer left",
        )
            .into_response();
    };
    let mut events: Vec<(Option<Duration>, String)> = vec![(
        None,
        chunk(json!({"role": "assistant", "content": ""}), Value::Null),
    )];
    for piece in pieces {
        events.push(match piece {
            Piece::Text(text) => (None, chunk(json!({"content": text}), Value::Null)),
            Piece::Reasoning(text) => {
                (None, chunk(json!({"reasoning_content": text}), Value::Null))
            }
            Piece::Pause(pause) => (Some(pause), String::new()),
        });
    }
    events.push((None, chunk(json!({}), json!("stop"))));
    events.push((None, "data: [DONE]\n\n".to_owned()));
    let stream = futures::stream::iter(events).then(|(pause, data)| async move {
        if let Some(pause) = pause {
            tokio::time::sleep(pause).await;
        }
        Ok::<_, std::convert::Infallible>(data)
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
