//! A scripted model endpoint for session and CLI tests: a wiremock server on 127.0.0.1 that
//! speaks the OpenAI chat-completions or the Anthropic Messages wire format (streamed SSE or
//! whole JSON, as each request asks), answers each request with the next scripted [`Reply`],
//! and records every request body.
//!
//! Every request is also checked against the conversation invariants the turn loop promises,
//! and violations are recorded (see [`FakeLlm::violations`]):
//! - every tool result answers a call of the assistant message before it, once, and every
//!   call is answered before the conversation moves on;
//! - every assistant message is one this fake sent (or a prefix of one's text: a partial answer
//!   kept after a cancellation) — nothing the model did not say.
//!
//! Tool-call ids are deterministic: `call_<reply>_<i>` (OpenAI) and `toolu_<reply>_<i>`
//! (Anthropic), `<reply>` counting replies from 0.

use std::collections::{BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use self::wire::{anthropic_sse, anthropic_whole, openai_sse, openai_whole};

pub mod paced;
mod wire;

/// Which wire protocol the fake speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmWire {
    /// OpenAI-compatible chat completions (`/v1/chat/completions`).
    OpenAi,
    /// Anthropic messages (`/v1/messages`).
    Anthropic,
}

/// One scripted answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Text and tool calls (`(name, arguments object)`), either may be empty.
    Message {
        /// The assistant's text; empty for none.
        text: String,
        /// Tool calls as `(name, arguments object)`, in order.
        calls: Vec<(String, Value)>,
    },
    /// An HTTP error with this JSON body.
    Status {
        /// The HTTP status.
        status: u16,
        /// The JSON error body.
        body: Value,
    },
}

impl Reply {
    /// A text answer with no tool calls.
    pub fn text(text: impl Into<String>) -> Self {
        Reply::Message {
            text: text.into(),
            calls: Vec::new(),
        }
    }

    /// One tool call.
    pub fn call(name: impl Into<String>, arguments: Value) -> Self {
        Reply::Message {
            text: String::new(),
            calls: vec![(name.into(), arguments)],
        }
    }

    /// Several calls in one answer (parallel tool calls), with optional text before them.
    pub fn calls(text: impl Into<String>, calls: Vec<(&str, Value)>) -> Self {
        Reply::Message {
            text: text.into(),
            calls: calls.into_iter().map(|(n, a)| (n.to_owned(), a)).collect(),
        }
    }

    /// An HTTP error `status` with `body`.
    pub fn status(status: u16, body: Value) -> Self {
        Reply::Status { status, body }
    }
}

/// One tool call as sent: `(id, name, arguments)`.
type CallRecord = (String, String, Value);
/// One assistant message as sent: `(text, calls)`.
type Said = (String, Vec<CallRecord>);

/// Token counts every reply reports: input 10 + 5 per request message, output 7.
pub const FAKE_OUTPUT_TOKENS: u64 = 7;

#[derive(Debug, Default)]
struct State {
    script: VecDeque<Reply>,
    /// What the fake said, as normalized assistant messages `(text, calls)`.
    said: Vec<Said>,
    replies_sent: usize,
    requests: Vec<Value>,
    violations: Vec<String>,
}

/// The running fake; dropping it stops the server.
pub struct FakeLlm {
    server: MockServer,
    wire: LlmWire,
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for FakeLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeLlm")
            .field("uri", &self.server.uri())
            .field("wire", &self.wire)
            .finish()
    }
}

impl FakeLlm {
    /// Starts the fake with its script.
    pub async fn start(wire: LlmWire, script: Vec<Reply>) -> FakeLlm {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            ..State::default()
        }));
        let path = match wire {
            LlmWire::OpenAi => "/v1/chat/completions",
            LlmWire::Anthropic => "/v1/messages",
        };
        Mock::given(wiremock::matchers::method("POST"))
            .and(wiremock::matchers::path(path))
            .respond_with(Responder {
                wire,
                state: state.clone(),
            })
            .mount(&server)
            .await;
        FakeLlm {
            server,
            wire,
            state,
        }
    }

    /// The `api_base` a client must use: `…/v1` for OpenAI-compatible, the root for Anthropic.
    pub fn api_base(&self) -> String {
        match self.wire {
            LlmWire::OpenAi => format!("{}/v1", self.server.uri()),
            LlmWire::Anthropic => self.server.uri(),
        }
    }

    /// Which wire protocol this fake speaks.
    pub fn wire(&self) -> LlmWire {
        self.wire
    }

    /// Every request body received, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.lock().requests.clone()
    }

    /// Invariant violations seen so far (empty when every request was well-formed).
    pub fn violations(&self) -> Vec<String> {
        self.lock().violations.clone()
    }

    /// Scripted replies not used yet.
    pub fn remaining(&self) -> usize {
        self.lock().script.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The tool results of one request as `(call id, content text)`, in order, for either wire.
pub fn tool_results(wire: LlmWire, body: &Value) -> Vec<(String, String)> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for message in messages {
        match wire {
            LlmWire::OpenAi if message["role"] == "tool" => out.push((
                message["tool_call_id"].as_str().unwrap_or("").to_owned(),
                message["content"].as_str().unwrap_or("").to_owned(),
            )),
            LlmWire::Anthropic if message["role"] == "user" => {
                for block in message["content"].as_array().into_iter().flatten() {
                    if block["type"] == "tool_result" {
                        let text = match &block["content"] {
                            Value::String(s) => s.clone(),
                            Value::Array(parts) => parts
                                .iter()
                                .filter_map(|p| p["text"].as_str())
                                .collect::<Vec<_>>()
                                .join(""),
                            _ => String::new(),
                        };
                        out.push((block["tool_use_id"].as_str().unwrap_or("").to_owned(), text));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The names of the functions a request declares.
pub fn declared_tools(wire: LlmWire, body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| match wire {
            LlmWire::OpenAi => t["function"]["name"].as_str(),
            LlmWire::Anthropic => t["name"].as_str(),
        })
        .map(str::to_owned)
        .collect()
}

/// The user texts of one request, in order (Anthropic text blocks of user messages).
pub fn user_texts(wire: LlmWire, body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        if message["role"] != "user" {
            continue;
        }
        match (wire, &message["content"]) {
            (_, Value::String(s)) => out.push(s.clone()),
            (_, Value::Array(blocks)) => {
                for block in blocks {
                    if block["type"] == "text" {
                        out.push(block["text"].as_str().unwrap_or("").to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

struct Responder {
    wire: LlmWire,
    state: Arc<Mutex<State>>,
}

impl Respond for Responder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = match serde_json::from_slice(&request.body) {
            Ok(body) => body,
            Err(e) => return ResponseTemplate::new(400).set_body_string(format!("not JSON: {e}")),
        };
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let problems = check_request(self.wire, &body, &state.said);
        state.violations.extend(problems);
        state.requests.push(body.clone());
        let Some(reply) = state.script.pop_front() else {
            return ResponseTemplate::new(500)
                .set_body_string("fake LLM: no scripted reply left for this request");
        };
        let index = state.replies_sent;
        state.replies_sent += 1;
        let (text, calls) = match reply {
            Reply::Status { status, body } => {
                return ResponseTemplate::new(status)
                    .set_body_raw(body.to_string(), "application/json");
            }
            Reply::Message { text, calls } => (text, calls),
        };
        let ids: Vec<CallRecord> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                let id = match self.wire {
                    LlmWire::OpenAi => format!("call_{index}_{i}"),
                    LlmWire::Anthropic => format!("toolu_{index}_{i}"),
                };
                (id, name.clone(), args.clone())
            })
            .collect();
        state.said.push((text.clone(), ids.clone()));
        let input_tokens = 10 + 5 * body["messages"].as_array().map_or(0, Vec::len) as u64;
        let stream = body["stream"].as_bool().unwrap_or(false);
        match (self.wire, stream) {
            (LlmWire::OpenAi, true) => sse(openai_sse(&text, &ids, input_tokens)),
            (LlmWire::OpenAi, false) => whole(openai_whole(&text, &ids, input_tokens)),
            (LlmWire::Anthropic, true) => sse(anthropic_sse(&text, &ids, input_tokens)),
            (LlmWire::Anthropic, false) => whole(anthropic_whole(&text, &ids, input_tokens)),
        }
    }
}

fn sse(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

fn whole(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.to_string(), "application/json")
}

/// The invariant checks described in the module docs.
fn check_request(wire: LlmWire, body: &Value, said: &[Said]) -> Vec<String> {
    let Some(messages) = body["messages"].as_array() else {
        return vec!["request has no messages array".to_owned()];
    };
    let mut problems = Vec::new();
    let mut open: BTreeSet<String> = BTreeSet::new();
    for (i, message) in messages.iter().enumerate() {
        let role = message["role"].as_str().unwrap_or("");
        let (results, assistant) = match (wire, role) {
            (LlmWire::OpenAi, "tool") => (
                vec![message["tool_call_id"].as_str().unwrap_or("").to_owned()],
                None,
            ),
            (LlmWire::OpenAi, "assistant") => (Vec::new(), Some(openai_assistant(message))),
            (LlmWire::Anthropic, "user") => (
                message["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|b| b["type"] == "tool_result")
                    .map(|b| b["tool_use_id"].as_str().unwrap_or("").to_owned())
                    .collect(),
                None,
            ),
            (LlmWire::Anthropic, "assistant") => (Vec::new(), Some(anthropic_assistant(message))),
            _ => (Vec::new(), None),
        };
        for id in &results {
            if !open.remove(id) {
                problems.push(format!(
                    "message {i}: tool result for unknown or already answered call {id:?}"
                ));
            }
        }
        let answers_only = wire == LlmWire::OpenAi && role == "tool";
        if !answers_only && !open.is_empty() {
            problems.push(format!("message {i}: calls {open:?} left unanswered"));
            open.clear();
        }
        if let Some((text, calls)) = assistant {
            if text.is_empty() && calls.is_empty() {
                problems.push(format!("message {i}: empty assistant message"));
            }
            if !was_said(&text, &calls, said) {
                problems.push(format!(
                    "message {i}: assistant message the model never sent: {text:?} {calls:?}"
                ));
            }
            open.extend(calls.into_iter().map(|(id, _, _)| id));
        }
    }
    if !open.is_empty() {
        problems.push(format!("end: calls {open:?} left unanswered"));
    }
    problems
}

fn was_said(text: &str, calls: &[CallRecord], said: &[Said]) -> bool {
    said.iter().any(|(t, c)| {
        (t == text && c.as_slice() == calls)
            || (calls.is_empty() && !text.is_empty() && t.starts_with(text))
    })
}

fn openai_assistant(message: &Value) -> Said {
    let text = message["content"].as_str().unwrap_or("").to_owned();
    let calls = message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let args = c["function"]["arguments"]
                .as_str()
                .and_then(|a| serde_json::from_str(a).ok())
                .unwrap_or(Value::Null);
            (
                c["id"].as_str().unwrap_or("").to_owned(),
                c["function"]["name"].as_str().unwrap_or("").to_owned(),
                args,
            )
        })
        .collect();
    (text, calls)
}

fn anthropic_assistant(message: &Value) -> Said {
    let mut text = String::new();
    let mut calls = Vec::new();
    match &message["content"] {
        Value::String(s) => text.push_str(s),
        Value::Array(blocks) => {
            for block in blocks {
                match block["type"].as_str() {
                    Some("text") => text.push_str(block["text"].as_str().unwrap_or("")),
                    Some("tool_use") => calls.push((
                        block["id"].as_str().unwrap_or("").to_owned(),
                        block["name"].as_str().unwrap_or("").to_owned(),
                        block["input"].clone(),
                    )),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    (text, calls)
}
