//! Fakes for provider tests: a clock that records requested waits instead of sleeping, request
//! matchers that enforce conversation invariants on the raw wire JSON (a violating request gets
//! no mock response and is recorded, so the test fails loudly), SSE body builders, and a raw
//! HTTP/1.1 server that writes a chunked SSE body one piece per TCP write.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use coyote_llm::{
    ApiKey, ChatRequest, LlmError, Provider, ProviderBuilder, ProviderConfig, ProviderKind,
    ResponseAssembler, RetryClock, StreamEvent,
};
use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use wiremock::{Match, MockServer, Request, ResponseTemplate};

pub const OPENAI_KEY: &str = "sk-test-openai-0123456789";
pub const ANTHROPIC_KEY: &str = "sk-ant-test-0123456789";

/// A clock frozen at a fixed instant that records each requested sleep and returns at once.
#[derive(Debug, Default)]
pub struct RecordingClock {
    sleeps: Mutex<Vec<Duration>>,
}

impl RecordingClock {
    pub const NOW_SECS: u64 = 1_700_000_000;

    pub fn sleeps(&self) -> Vec<Duration> {
        self.sleeps.lock().unwrap().clone()
    }
}

impl RetryClock for RecordingClock {
    fn now(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(Self::NOW_SECS)
    }

    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        self.sleeps.lock().unwrap().push(duration);
        Box::pin(async {})
    }
}

/// A provider of `kind` pointed at `base`, keyed like zero-config would, with a recording clock.
pub fn make_provider(kind: ProviderKind, base: &str) -> (Arc<dyn Provider>, Arc<RecordingClock>) {
    let (name, key) = match kind {
        ProviderKind::OpenAiCompatible => {
            ("openai", ApiKey::from_env("OPENAI_API_KEY", OPENAI_KEY))
        }
        ProviderKind::Anthropic => (
            "anthropic",
            ApiKey::from_env("ANTHROPIC_API_KEY", ANTHROPIC_KEY),
        ),
        other => (other.as_str(), ApiKey::from_env("PROVIDER_KEY", OPENAI_KEY)),
    };
    let clock = Arc::new(RecordingClock::default());
    let config = ProviderConfig::new(kind, name, base).with_api_key(key);
    let provider = ProviderBuilder::new(config)
        .clock(clock.clone())
        .build()
        .expect("provider builds");
    (provider, clock)
}

/// Every item of one streamed request.
pub async fn collect(
    provider: &dyn Provider,
    request: &ChatRequest,
) -> Result<Vec<Result<StreamEvent, LlmError>>, LlmError> {
    let stream = provider.stream(request).await?;
    Ok(stream.collect().await)
}

/// The events of a stream that must succeed, plus their assembly.
pub async fn events_ok(
    provider: &dyn Provider,
    request: &ChatRequest,
) -> (Vec<StreamEvent>, coyote_llm::ChatResponse) {
    let items = collect(provider, request).await.expect("request accepted");
    let events: Vec<StreamEvent> = items.into_iter().map(|i| i.expect("stream item")).collect();
    let mut assembler = ResponseAssembler::new();
    events.iter().for_each(|e| assembler.push(e));
    let response = assembler.finish(provider.name()).expect("complete answer");
    (events, response)
}

/// The JSON bodies the server received, in order.
pub async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).expect("request body is JSON"))
        .collect()
}

/// OpenAI SSE: one `data:` event per chunk, then `[DONE]`.
pub fn openai_sse(chunks: &[Value]) -> String {
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

/// Anthropic SSE: `event: <type>` + `data:` per event.
pub fn anthropic_sse(events: &[Value]) -> String {
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect()
}

pub fn sse_response(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

pub fn json_response(status: u16, body: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_raw(body.to_string(), "application/json")
}

/// Which wire format an invariant matcher reads.
#[derive(Debug, Clone, Copy)]
pub enum Wire {
    OpenAi,
    Anthropic,
}

/// Matches only requests whose conversation is valid on the wire; violations are recorded.
#[derive(Debug, Clone)]
pub struct ConversationInvariants {
    wire: Wire,
    pub violations: Arc<Mutex<Vec<String>>>,
}

impl ConversationInvariants {
    pub fn new(wire: Wire) -> Self {
        ConversationInvariants {
            wire,
            violations: Arc::default(),
        }
    }

    pub fn violations(&self) -> Vec<String> {
        self.violations.lock().unwrap().clone()
    }
}

impl Match for ConversationInvariants {
    fn matches(&self, request: &Request) -> bool {
        let problems = match serde_json::from_slice::<Value>(&request.body) {
            Ok(body) => match self.wire {
                Wire::OpenAi => openai_violations(&body),
                Wire::Anthropic => anthropic_violations(&body),
            },
            Err(e) => vec![format!("body is not JSON: {e}")],
        };
        let ok = problems.is_empty();
        self.violations.lock().unwrap().extend(problems);
        ok
    }
}

fn valid_function_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// OpenAI: each `tool` message answers an id of the latest assistant `tool_calls`, once; every
/// call is answered before the next non-tool message; no assistant message is empty.
pub fn openai_violations(body: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let mut open: BTreeSet<String> = BTreeSet::new();
    let Some(messages) = body["messages"].as_array() else {
        return vec!["no messages array".into()];
    };
    for (i, message) in messages.iter().enumerate() {
        let role = message["role"].as_str().unwrap_or("");
        if role == "tool" {
            let id = message["tool_call_id"].as_str().unwrap_or("");
            if !open.remove(id) {
                problems.push(format!(
                    "message {i}: tool result for unknown or answered call {id:?}"
                ));
            }
            continue;
        }
        if !open.is_empty() {
            problems.push(format!("message {i}: calls {open:?} left unanswered"));
            open.clear();
        }
        if role == "assistant" {
            let calls = message["tool_calls"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let text = message["content"].as_str().unwrap_or("");
            if calls.is_empty() && text.is_empty() {
                problems.push(format!("message {i}: empty assistant message"));
            }
            for call in calls {
                open.insert(call["id"].as_str().unwrap_or("").to_string());
            }
        }
    }
    if !open.is_empty() {
        problems.push(format!("end: calls {open:?} left unanswered"));
    }
    for tool in body["tools"].as_array().into_iter().flatten() {
        let name = tool["function"]["name"].as_str().unwrap_or("");
        if !valid_function_name(name) {
            problems.push(format!("tool name {name:?} breaks the provider charset"));
        }
    }
    problems
}

/// Anthropic: roles alternate; each `tool_result` answers a `tool_use` of the assistant message
/// just before it, every such call is answered; no assistant message is empty; no system role.
pub fn anthropic_violations(body: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(messages) = body["messages"].as_array() else {
        return vec!["no messages array".into()];
    };
    let mut previous_role = "";
    let mut open: BTreeSet<String> = BTreeSet::new();
    for (i, message) in messages.iter().enumerate() {
        let role = message["role"].as_str().unwrap_or("");
        if role == previous_role {
            problems.push(format!("message {i}: two {role} messages in a row"));
        }
        if role != "user" && role != "assistant" {
            problems.push(format!("message {i}: role {role:?}"));
        }
        let blocks = message["content"].as_array().cloned().unwrap_or_default();
        if role == "user" {
            for block in &blocks {
                if block["type"] == "tool_result" {
                    let id = block["tool_use_id"].as_str().unwrap_or("");
                    if !open.remove(id) {
                        problems.push(format!("message {i}: tool_result for unknown call {id:?}"));
                    }
                }
            }
            if !open.is_empty() {
                problems.push(format!("message {i}: tool_use {open:?} left unanswered"));
            }
            open.clear();
        } else if role == "assistant" {
            if !open.is_empty() {
                problems.push(format!("message {i}: tool_use {open:?} left unanswered"));
            }
            open.clear();
            if blocks.is_empty() {
                problems.push(format!("message {i}: empty assistant message"));
            }
            for block in &blocks {
                if block["type"] == "tool_use" {
                    open.insert(block["id"].as_str().unwrap_or("").to_string());
                    if !block["input"].is_object() {
                        problems.push(format!("message {i}: tool_use input is not an object"));
                    }
                }
            }
        }
        previous_role = if role == "user" { "user" } else { "assistant" };
    }
    if !open.is_empty() {
        problems.push(format!("end: tool_use {open:?} left unanswered"));
    }
    for tool in body["tools"].as_array().into_iter().flatten() {
        let name = tool["name"].as_str().unwrap_or("");
        if !valid_function_name(name) {
            problems.push(format!("tool name {name:?} breaks the provider charset"));
        }
    }
    problems
}

/// A one-connection HTTP/1.1 server on 127.0.0.1 that answers any request with `status` and
/// writes `pieces` as separate chunks of a chunked body, each flushed on its own so the client
/// sees the SSE split at those points (as far as TCP preserves write boundaries).
pub struct ChunkedServer {
    pub base: String,
    task: tokio::task::JoinHandle<Vec<u8>>,
}

impl ChunkedServer {
    pub async fn start(pieces: Vec<Vec<u8>>) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            socket.set_nodelay(true).unwrap();
            let request = read_request(&mut socket).await;
            socket
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n")
                .await
                .unwrap();
            for piece in pieces {
                let mut chunk = format!("{:x}\r\n", piece.len()).into_bytes();
                chunk.extend_from_slice(&piece);
                chunk.extend_from_slice(b"\r\n");
                socket.write_all(&chunk).await.unwrap();
                socket.flush().await.unwrap();
                // Give the client a chance to read this piece on its own; correctness of the
                // test never depends on it.
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            socket.write_all(b"0\r\n\r\n").await.unwrap();
            socket.shutdown().await.ok();
            request
        });
        ChunkedServer { base, task }
    }

    /// The raw request bytes the server received.
    pub async fn request(self) -> Vec<u8> {
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("server finished")
            .unwrap()
    }
}

/// An HTTP/1.1 server on 127.0.0.1 that answers the first request of each connection with a
/// kept-alive `200` and `body` (SSE), then closes that connection unanswered when another
/// request arrives on it — what a client with a connection pool meets when the server dropped
/// a kept-alive connection (llama.cpp's server does after an error response). With
/// `answer_none`, every request is closed unanswered.
pub struct ClosingServer {
    pub base: String,
    answered: Arc<AtomicUsize>,
    dropped: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl ClosingServer {
    pub async fn start(body: String, answer_none: bool) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let answered = Arc::new(AtomicUsize::new(0));
        let dropped = Arc::new(AtomicUsize::new(0));
        let (a, d) = (answered.clone(), dropped.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let (a, d, body) = (a.clone(), d.clone(), body.clone());
                tokio::spawn(async move {
                    if read_request(&mut socket).await.is_empty() {
                        return;
                    }
                    if answer_none {
                        d.fetch_add(1, Ordering::SeqCst);
                        return;
                    }
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n",
                        body.len()
                    );
                    socket.write_all(head.as_bytes()).await.unwrap();
                    socket.write_all(body.as_bytes()).await.unwrap();
                    socket.flush().await.unwrap();
                    a.fetch_add(1, Ordering::SeqCst);
                    if !read_request(&mut socket).await.is_empty() {
                        d.fetch_add(1, Ordering::SeqCst);
                    }
                    // Dropped here: closed without an answer.
                });
            }
        });
        ClosingServer {
            base,
            answered,
            dropped,
            task,
        }
    }

    /// (requests answered, requests closed unanswered).
    pub fn counts(&self) -> (usize, usize) {
        (
            self.answered.load(Ordering::SeqCst),
            self.dropped.load(Ordering::SeqCst),
        )
    }
}

impl Drop for ClosingServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Vec<u8> {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = socket.read(&mut buf).await.unwrap();
        if n == 0 {
            return data;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if data.len() >= end + 4 + length {
                return data;
            }
        }
    }
}

/// A provider built from `config` with a recording clock.
pub fn provider_from(config: ProviderConfig) -> (Arc<dyn Provider>, Arc<RecordingClock>) {
    let clock = Arc::new(RecordingClock::default());
    let provider = ProviderBuilder::new(config)
        .clock(clock.clone())
        .build()
        .expect("provider builds");
    (provider, clock)
}

/// SSE with each event named by its `type` (Anthropic, OpenAI Responses).
pub fn named_sse(events: &[Value]) -> String {
    anthropic_sse(events)
}

/// SSE with unnamed `data:` events and no end marker (Gemini), CRLF-separated as Gemini sends.
pub fn data_sse(chunks: &[Value]) -> String {
    chunks
        .iter()
        .map(|c| format!("data: {c}\r\n\r\n"))
        .collect()
}

/// JSON lines (Ollama).
pub fn ndjson_response(lines: &[Value]) -> ResponseTemplate {
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    ResponseTemplate::new(200).set_body_raw(body, "application/x-ndjson")
}

/// Mounts `responses` for POSTs to `at`, answered in order, one request each.
pub async fn mount_sequence(server: &MockServer, at: &str, responses: Vec<ResponseTemplate>) {
    for (i, response) in responses.into_iter().enumerate() {
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .and(wiremock::matchers::path(at))
            .respond_with(response)
            .up_to_n_times(1)
            .with_priority(u8::try_from(i + 1).unwrap())
            .mount(server)
            .await;
    }
}

/// The tool the turn tests declare.
pub fn weather_tool() -> Vec<coyote_protocol::FunctionDeclaration> {
    vec![coyote_protocol::FunctionDeclaration {
        name: "get_weather".into(),
        description: "Weather for a city".into(),
        parameters: serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    }]
}

/// One whole turn: the question, the model's tool call(s), each call answered by `tool`
/// (standing in for the MCP tool the session would call), then the model's answer. Returns
/// the two responses and the conversation as sent the second time.
pub async fn full_turn(
    provider: &dyn Provider,
    model: &str,
    tool: impl Fn(&coyote_llm::ToolCall) -> coyote_llm::ToolResult,
) -> (
    coyote_llm::ChatResponse,
    coyote_llm::ChatResponse,
    Vec<coyote_llm::Message>,
) {
    use coyote_llm::Message;
    let mut messages = vec![
        Message::system("You are terse."),
        Message::user("Weather in Paris?"),
    ];
    let request = ChatRequest::new(model, messages.clone()).with_tools(weather_tool());
    let (_, first) = events_ok(provider, &request).await;
    assert!(!first.message.tool_calls.is_empty(), "{first:?}");
    messages.push(Message::assistant(first.message.clone()));
    for call in &first.message.tool_calls {
        messages.push(Message::tool_result(tool(call)));
    }
    let request = ChatRequest::new(model, messages.clone()).with_tools(weather_tool());
    let (_, second) = events_ok(provider, &request).await;
    (first, second, messages)
}

/// CRC-32 (IEEE), computed here independently of the library's decoder.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// One AWS event-stream message with string headers.
pub fn aws_message(headers: &[(&str, &str)], payload: &Value) -> Vec<u8> {
    let payload = payload.to_string();
    let mut head = Vec::new();
    for (name, value) in headers {
        head.push(u8::try_from(name.len()).unwrap());
        head.extend_from_slice(name.as_bytes());
        head.push(7);
        head.extend_from_slice(&u16::try_from(value.len()).unwrap().to_be_bytes());
        head.extend_from_slice(value.as_bytes());
    }
    let total = 12 + head.len() + payload.len() + 4;
    let mut out = Vec::new();
    out.extend_from_slice(&u32::try_from(total).unwrap().to_be_bytes());
    out.extend_from_slice(&u32::try_from(head.len()).unwrap().to_be_bytes());
    let prelude = crc32(&out);
    out.extend_from_slice(&prelude.to_be_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(payload.as_bytes());
    let crc = crc32(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

/// A Bedrock `converse-stream` body: one event message per `(event type, payload)`.
pub fn aws_event_stream(events: &[(&str, Value)]) -> ResponseTemplate {
    let mut body = Vec::new();
    for (kind, payload) in events {
        body.extend(aws_message(
            &[
                (":event-type", kind),
                (":content-type", "application/json"),
                (":message-type", "event"),
            ],
            payload,
        ));
    }
    ResponseTemplate::new(200).set_body_raw(body, "application/vnd.amazon.eventstream")
}
