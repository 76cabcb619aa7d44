//! The client features against the fake server: what is advertised per hook and
//! per mcp.json entry, sampling through the hook with the per-server limits, roots (the
//! session's list, a server's own, a change while a call waits), server log messages and
//! their level, and structured content checked against the output schema.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use coyote_mcp::{
    ContentItem, McpLogLevel, McpRuntime, Roots, RuntimeOptions, SamplingContent, SamplingHook,
    SamplingRefusal, SamplingRequest, SamplingResponse, SamplingStop, ServerLogMessage,
    ServerLogSink,
};
use coyote_protocol::{SamplingMode, Timeouts};
use coyote_test_support::{
    Capabilities, Event, Scenario, ServerNotice, ToolBehavior, ToolSpec, in_process,
};
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::support::{PROMPT, relaxed, stdio};

/// Answers every sampling request with `answer: <last user text>` and records the requests.
#[derive(Default)]
struct Answering {
    seen: Mutex<Vec<SamplingRequest>>,
}

impl SamplingHook for Answering {
    fn supports_tools(&self) -> bool {
        true
    }

    fn sample(
        &self,
        request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SamplingResponse, SamplingRefusal>> {
        let text = request
            .messages
            .last()
            .map(|m| m.text())
            .unwrap_or_default();
        self.seen.lock().unwrap().push(request);
        Box::pin(std::future::ready(Ok(SamplingResponse {
            model: "test:model".into(),
            stop: SamplingStop::EndTurn,
            content: vec![SamplingContent::Text {
                text: format!("answer: {text}"),
            }],
        })))
    }
}

#[derive(Default)]
struct Collect(Mutex<Vec<ServerLogMessage>>);

impl ServerLogSink for Collect {
    fn log(&self, message: ServerLogMessage) {
        self.0.lock().unwrap().push(message);
    }
}

fn text(items: &[ContentItem]) -> String {
    items
        .iter()
        .map(|i| match i {
            ContentItem::Text { text, .. } => text.clone(),
            other => format!("{other:?}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn sample_tool() -> ToolBehavior {
    ToolBehavior::Sample {
        prompt: "say hi".into(),
        system: Some("be brief".into()),
        max_tokens: 40,
        hints: vec!["fast".into()],
    }
}

fn capabilities_seen(events: &coyote_test_support::EventLog) -> Value {
    events
        .events
        .iter()
        .find_map(|e| match e {
            Event::Initialize { capabilities, .. } => Some(capabilities.clone()),
            _ => None,
        })
        .expect("initialize seen")
}

#[tokio::test]
async fn capabilities_sampling_and_roots_follow_the_hooks_and_each_entry() {
    let dir = tempfile::tempdir().unwrap();
    let builder = || {
        Scenario::builder().tool("sample", sample_tool()).tool(
            "roots",
            ToolBehavior::Roots {
                wait_for_change: false,
                wait_ms: 0,
            },
        )
    };
    let (asks_file, asks) = stdio(dir.path(), "asks", builder(), relaxed());
    let (never_file, mut never) = stdio(dir.path(), "never", builder(), relaxed());
    never.client.sampling = SamplingMode::Never;
    never.client.roots = Some(vec![PathBuf::from("/srv/own dir")]);
    let hook = Arc::new(Answering::default());
    let runtime = McpRuntime::new(RuntimeOptions {
        sampling: Some(hook.clone()),
        roots: Some(Roots::new(vec![PathBuf::from("/work/repo")])),
        ..RuntimeOptions::default()
    });
    runtime.start_all(vec![asks, never]).await;

    let caps = capabilities_seen(&asks_file.events());
    assert_eq!(caps["sampling"], json!({"tools": {}}), "{caps}");
    assert_eq!(caps["roots"], json!({"listChanged": true}), "{caps}");
    assert_eq!(
        caps["elicitation"],
        json!({"form": {}, "url": {}}),
        "{caps}"
    );
    let caps = capabilities_seen(&never_file.events());
    assert!(caps.get("sampling").is_none(), "{caps}");
    assert_eq!(caps["roots"], json!({"listChanged": true}), "{caps}");

    let asks = runtime.server("asks").unwrap();
    let out = asks.call_tool("sample", Map::new()).await.unwrap();
    assert_eq!(text(&out.content), "answer: say hi");
    let seen = hook.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].server, "asks");
    assert_eq!(seen[0].system_prompt.as_deref(), Some("be brief"));
    assert_eq!(seen[0].max_tokens, 40);
    assert_eq!(seen[0].model_hints, vec!["fast"]);

    let never = runtime.server("never").unwrap();
    let out = never.call_tool("sample", Map::new()).await.unwrap();
    assert!(out.is_error);
    assert!(
        text(&out.content).contains("does not offer sampling"),
        "{out:?}"
    );
    assert_eq!(hook.seen.lock().unwrap().len(), 1, "the hook was not asked");

    let roots = asks.call_tool("roots", Map::new()).await.unwrap();
    assert_eq!(text(&roots.content), "[\"file:///work/repo\"]");
    let roots = never.call_tool("roots", Map::new()).await.unwrap();
    assert_eq!(text(&roots.content), "[\"file:///srv/own%20dir\"]");
    runtime.shutdown().await;
}

#[tokio::test]
async fn the_token_cap_and_the_rate_limit_refuse_with_the_setting_named() {
    let dir = tempfile::tempdir().unwrap();
    let builder = Scenario::builder().tool("sample", sample_tool());
    let (_file, mut spec) = stdio(dir.path(), "srv", builder, relaxed());
    spec.client.sampling_max_tokens = 50;
    spec.client.sampling_per_minute = 2;
    let hook = Arc::new(Answering::default());
    let runtime = McpRuntime::new(RuntimeOptions {
        sampling: Some(hook.clone()),
        ..RuntimeOptions::default()
    });
    runtime.start_all(vec![spec]).await;
    let server = runtime.server("srv").unwrap();

    let over = server
        .call_tool("sample", args(json!({"max_tokens": 51})))
        .await
        .unwrap();
    assert!(over.is_error);
    let message = text(&over.content);
    assert!(message.contains("asked for 51 tokens"), "{message}");
    assert!(message.contains("at most 50"), "{message}");
    assert!(message.contains("samplingMaxTokens"), "{message}");

    for _ in 0..2 {
        let ok = server.call_tool("sample", Map::new()).await.unwrap();
        assert!(!ok.is_error, "{ok:?}");
    }
    let limited = server.call_tool("sample", Map::new()).await.unwrap();
    assert!(limited.is_error);
    assert!(
        text(&limited.content).contains("samplingPerMinute"),
        "{limited:?}"
    );
    assert_eq!(
        hook.seen.lock().unwrap().len(),
        2,
        "refused requests never reach the hook"
    );
    runtime.shutdown().await;
}

#[tokio::test]
async fn roots_changing_during_a_call_are_announced_and_listed_again() {
    let scenario = Scenario::builder()
        .tool(
            "roots",
            ToolBehavior::Roots {
                wait_for_change: true,
                wait_ms: 60_000,
            },
        )
        .build();
    let runtime = McpRuntime::new(RuntimeOptions {
        roots: Some(Roots::new(vec![PathBuf::from("/a")])),
        ..RuntimeOptions::default()
    });
    let ((read, write), server) = in_process(scenario);
    let handle = runtime
        .attach_stream("fake", Timeouts::default(), read, write)
        .await
        .unwrap();
    assert!(handle.uses_shared_roots());
    let call = tokio::spawn(async move { handle.call_tool("roots", Map::new()).await });
    server
        .wait_for(PROMPT, |log| {
            log.events.iter().any(|e| matches!(e, Event::Roots { .. }))
        })
        .await
        .unwrap();
    assert!(runtime.add_root(PathBuf::from("/b")).await);
    assert!(
        !runtime.add_root(PathBuf::from("/b")).await,
        "already there"
    );
    let out = call.await.unwrap().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&text(&out.content)).unwrap(),
        json!({"before": ["file:///a"], "after": ["file:///a", "file:///b"]})
    );
    let events = server.events();
    assert_eq!(
        events
            .events
            .iter()
            .filter(|e| matches!(e, Event::RootsListChanged))
            .count(),
        1
    );
    assert!(runtime.remove_root(std::path::Path::new("/a")).await);
    assert_eq!(runtime.roots().unwrap().dirs(), vec![PathBuf::from("/b")]);
    runtime.shutdown().await;
}

fn log_notice(level: &str, data: Value) -> ServerNotice {
    ServerNotice::Log {
        level: level.into(),
        data,
    }
}

#[tokio::test]
async fn log_messages_reach_the_sink_from_the_level_set_and_a_flood_stays_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let mut flood: Vec<ServerNotice> = (0..500)
        .map(|i| log_notice("error", json!(format!("flood {i}"))))
        .collect();
    flood.push(log_notice("critical", json!("x".repeat(20_000))));
    let builder = Scenario::builder()
        .capabilities(Capabilities::none().with_tools().with_logging())
        .tool(
            "levels",
            ToolBehavior::Notify {
                notifications: vec![
                    log_notice("debug", json!("a debug line")),
                    log_notice("info", json!({"structured": true})),
                    log_notice("warning", json!("a warning")),
                    log_notice("error", json!("an error")),
                ],
            },
        )
        .tool(
            "flood",
            ToolBehavior::Notify {
                notifications: flood,
            },
        );
    let (file, spec) = stdio(dir.path(), "srv", builder, relaxed());
    let sink = Arc::new(Collect::default());
    let runtime = McpRuntime::new(RuntimeOptions {
        server_log: sink.clone(),
        ..RuntimeOptions::default()
    });
    runtime.start_all(vec![spec]).await;
    let server = runtime.server("srv").unwrap();

    server.call_tool("levels", Map::new()).await.unwrap();
    // Notifications are handled beside the call's response, so a result can arrive before the
    // last lines of its notifications reach the sink: collect until `n` lines are there (or 10 s
    // passed), then take whatever else arrived, so that extra lines still fail the test.
    let shown = |sink: &Arc<Collect>, n: usize| {
        let sink = Arc::clone(sink);
        async move {
            let drain = || -> Vec<(McpLogLevel, String)> {
                sink.0
                    .lock()
                    .unwrap()
                    .drain(..)
                    .map(|m| (m.level, m.text))
                    .collect()
            };
            let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
            let mut lines = drain();
            while lines.len() < n && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                lines.extend(drain());
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            lines.extend(drain());
            lines
        }
    };
    // The fake does not filter by level itself: coyote does, from `warning`.
    assert_eq!(
        shown(&sink, 2).await,
        vec![
            (McpLogLevel::Warning, "a warning".to_owned()),
            (McpLogLevel::Error, "an error".to_owned())
        ]
    );
    assert!(
        runtime
            .set_log_level("srv", McpLogLevel::Debug)
            .await
            .unwrap()
    );
    server.call_tool("levels", Map::new()).await.unwrap();
    let all = shown(&sink, 4).await;
    assert_eq!(all.len(), 4, "{all:?}");
    assert_eq!(
        all[1],
        (McpLogLevel::Info, "{\"structured\":true}".to_owned())
    );
    let levels: Vec<String> = file
        .events()
        .events
        .iter()
        .filter_map(|e| match e {
            Event::SetLevel { level } => Some(level.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(levels, vec!["warning", "debug"]);

    server.call_tool("flood", Map::new()).await.unwrap();
    let flood = shown(&sink, 501).await;
    assert_eq!(flood.len(), 501);
    let longest = flood.iter().map(|(_, t)| t.len()).max().unwrap();
    assert!(
        longest <= coyote_mcp::client_handler::logging::MAX_LOG_TEXT_BYTES + 3,
        "{longest}"
    );
    runtime.shutdown().await;
}

#[tokio::test]
async fn structured_content_that_breaks_the_output_schema_is_delivered_with_a_warning() {
    let scenario = Scenario::builder()
        .tool_spec(ToolSpec {
            name: "weather".into(),
            title: None,
            description: None,
            input_schema: None,
            annotations: None,
            output_schema: Some(json!({
                "type": "object",
                "properties": {"temperature": {"type": "number"}},
                "required": ["temperature"]
            })),
            behavior: ToolBehavior::Structured {
                value: json!({"temperature": "warm"}),
            },
        })
        .tool_spec(ToolSpec {
            name: "fine".into(),
            title: None,
            description: None,
            input_schema: None,
            annotations: None,
            output_schema: Some(json!({"type": "object"})),
            behavior: ToolBehavior::Structured {
                value: json!({"temperature": 21}),
            },
        })
        .build();
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let ((read, write), _server) = in_process(scenario);
    let handle = runtime
        .attach_stream("fake", Timeouts::default(), read, write)
        .await
        .unwrap();
    // No listing yet: the call lists the tools once to learn the schema.
    let out = handle.call_tool("weather", Map::new()).await.unwrap();
    assert_eq!(out.structured_content, Some(json!({"temperature": "warm"})));
    let warning = out.schema_warning.expect("a warning");
    assert!(
        warning.contains("/temperature: expected number, got string"),
        "{warning}"
    );
    let fine = handle.call_tool("fine", Map::new()).await.unwrap();
    assert_eq!(fine.schema_warning, None);
    runtime.shutdown().await;
}
