//! Tool behaviours of the fake server (`ToolBehavior`), one function per behaviour family.
//!
//! Invariants: the call is logged before anything else happens; a behaviour that waits
//! (slow, hang, elicit) watches the request's cancellation token and logs `tool_cancelled`
//! when it fires; behaviours that need bytes rmcp would not write (garbage, raw results,
//! streamed oversized text) use the transport's raw writer and fail clearly without one.

use std::io::Write as _;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ElicitRequestParams, ProgressNotificationParam,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value, json};

use crate::content::{big_text, png_base64};
use crate::events::Event;
use crate::scenario::{RAW_REPLY_INJECT_MARK, ServerNotice, ToolBehavior};
use crate::server::{CrashMode, FakeServer, from_json, io_error, raw_unavailable};

fn text_result(text: &str) -> Result<CallToolResult, ErrorData> {
    from_json(json!({"content": [{"type": "text", "text": text}]}))
}

fn empty_result() -> Result<CallToolResult, ErrorData> {
    from_json(json!({"content": []}))
}

pub(crate) async fn call(
    server: &FakeServer,
    request: CallToolRequestParams,
    ctx: RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let name = request.name.to_string();
    let arguments = request.arguments.unwrap_or_default();
    server.record(Event::CallTool {
        name: name.clone(),
        arguments: Value::Object(arguments.clone()),
    });
    if !server.shared.scenario.capabilities.tools {
        return Err(crate::server::not_advertised("tools"));
    }
    let spec = server
        .shared
        .catalog
        .tool_specs
        .get(&name)
        .ok_or_else(|| ErrorData::invalid_params(format!("tool not found: {name}"), None))?;
    match &spec.behavior {
        ToolBehavior::Echo => {
            let text = match arguments.get("text") {
                Some(Value::String(s)) => s.clone(),
                _ => Value::Object(arguments.clone()).to_string(),
            };
            text_result(&text)
        }
        ToolBehavior::Text { text } => text_result(text),
        ToolBehavior::Error { text } => {
            from_json(json!({"content": [{"type": "text", "text": text}], "isError": true}))
        }
        ToolBehavior::Slow {
            duration_ms,
            progress_every_ms,
        } => slow(server, &name, *duration_ms, *progress_every_ms, &ctx).await,
        ToolBehavior::ProgressFlood { count } => progress_flood(*count, &ctx).await,
        ToolBehavior::Hang => {
            ctx.ct.cancelled().await;
            server.record(Event::ToolCancelled { name });
            Err(ErrorData::internal_error("cancelled", None))
        }
        ToolBehavior::Crash { stderr, exit_code } => crash(server, stderr, *exit_code).await,
        ToolBehavior::GarbageStdout { line } => {
            let raw = server.raw.as_ref().ok_or_else(raw_unavailable)?;
            raw.write_line(line.as_bytes()).await.map_err(io_error)?;
            text_result("ok")
        }
        ToolBehavior::StderrNoise { lines, text } => stderr_noise(*lines, text),
        ToolBehavior::Oversized { mib } => {
            let Some(raw) = &server.raw else {
                let len = usize::try_from(mib * 1024 * 1024).unwrap_or(usize::MAX);
                return text_result(&"x".repeat(len));
            };
            let chunk = vec![b'x'; 1024 * 1024];
            let body = std::iter::repeat_n(chunk, usize::try_from(*mib).unwrap_or(usize::MAX));
            raw.respond_streamed(
                &ctx.id,
                r#"{"content":[{"type":"text","text":""#,
                body,
                r#""}]}"#,
            )
            .await
            .map_err(io_error)?;
            empty_result()
        }
        ToolBehavior::BigText { bytes } => text_result(&big_text(*bytes)),
        ToolBehavior::Image => from_json(json!({"content": [
            {"type": "text", "text": "a 1x1 png follows"},
            {"type": "image", "data": png_base64(), "mimeType": "image/png"}
        ]})),
        ToolBehavior::RawResult { result } => {
            let raw = server.raw.as_ref().ok_or_else(raw_unavailable)?;
            raw.respond_json(&ctx.id, result).await.map_err(io_error)?;
            empty_result()
        }
        ToolBehavior::RawReply { result, inject } => raw_reply(server, result, inject, &ctx).await,
        ToolBehavior::UrlRequired {
            url,
            message,
            times,
        } => url_required(server, &name, url, message, *times),
        ToolBehavior::Elicit { message, schema } => {
            elicit(server, &name, message, schema, &ctx).await
        }
        ToolBehavior::Notify { notifications } => {
            for notice in notifications {
                notify(&ctx, notice).await?;
            }
            text_result("ok")
        }
        ToolBehavior::Sample {
            prompt,
            system,
            max_tokens,
            hints,
        } => {
            let request = SampleRequest {
                prompt: arguments
                    .get("prompt")
                    .and_then(Value::as_str)
                    .unwrap_or(prompt),
                system: system.as_deref(),
                max_tokens: arguments
                    .get("max_tokens")
                    .and_then(Value::as_u64)
                    .unwrap_or(u64::from(*max_tokens)),
                hints,
            };
            sample(server, &request, &ctx).await
        }
        ToolBehavior::Roots {
            wait_for_change,
            wait_ms,
        } => roots(server, *wait_for_change, *wait_ms, &ctx).await,
        ToolBehavior::Structured { value } => from_json(
            json!({"content": [{"type": "text", "text": value.to_string()}], "structuredContent": value}),
        ),
    }
}

fn stderr_noise(lines: u32, text: &str) -> Result<CallToolResult, ErrorData> {
    let mut err = std::io::stderr().lock();
    for _ in 0..lines {
        let _ = writeln!(err, "{text}");
    }
    let _ = err.flush();
    text_result("ok")
}

/// [`ToolBehavior::RawReply`]: `result` written verbatim, `inject` in place of the mark.
async fn raw_reply(
    server: &FakeServer,
    result: &str,
    inject: &[u8],
    ctx: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let raw = server.raw.as_ref().ok_or_else(raw_unavailable)?;
    let (head, tail) = result
        .split_once(RAW_REPLY_INJECT_MARK)
        .unwrap_or((result, ""));
    let body = std::iter::once(inject.to_vec());
    raw.respond_streamed(&ctx.id, head, body, tail)
        .await
        .map_err(io_error)?;
    empty_result()
}

async fn slow(
    server: &FakeServer,
    name: &str,
    duration_ms: u64,
    progress_every_ms: Option<u64>,
    ctx: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let token = ctx.meta.get_progress_token();
    let step = progress_every_ms
        .filter(|ms| *ms > 0)
        .unwrap_or(duration_ms.max(1));
    let mut elapsed = 0u64;
    while elapsed < duration_ms {
        let wait = step.min(duration_ms - elapsed);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(wait)) => {}
            () = ctx.ct.cancelled() => {
                server.record(Event::ToolCancelled { name: name.to_owned() });
                return Err(ErrorData::internal_error("cancelled", None));
            }
        }
        elapsed += wait;
        if let (Some(token), Some(_)) = (&token, progress_every_ms) {
            let progress = elapsed as f64;
            let param = ProgressNotificationParam::new(token.clone(), progress)
                .with_total(duration_ms as f64);
            if ctx.peer.notify_progress(param).await.is_ok() {
                server.record(Event::ProgressSent {
                    name: name.to_owned(),
                    progress,
                });
            }
        }
    }
    text_result(&format!("done after {duration_ms} ms"))
}

/// `count` progress notifications, as fast as the transport takes them.
async fn progress_flood(
    count: u64,
    ctx: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    if let Some(token) = ctx.meta.get_progress_token() {
        for n in 1..=count {
            let param = ProgressNotificationParam::new(token.clone(), n as f64)
                .with_total(count as f64)
                .with_message(format!("step {n}"));
            if ctx.peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    }
    text_result(&format!("flooded {count}"))
}

async fn crash(
    server: &FakeServer,
    stderr: &str,
    exit_code: i32,
) -> Result<CallToolResult, ErrorData> {
    {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{stderr}");
        let _ = err.flush();
    }
    match server.shared.crash {
        CrashMode::ExitProcess => std::process::exit(exit_code),
        CrashMode::CloseTransport => {
            let raw = server.raw.as_ref().ok_or_else(raw_unavailable)?;
            raw.kill().await;
            std::future::pending::<()>().await;
            empty_result()
        }
    }
}

async fn elicit(
    server: &FakeServer,
    name: &str,
    message: &str,
    schema: &Value,
    ctx: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let requested_schema = serde_json::from_value(schema.clone()).map_err(|e| {
        ErrorData::internal_error(format!("scenario elicitation schema is invalid: {e}"), None)
    })?;
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message.to_owned(),
        requested_schema,
    };
    let answer = tokio::select! {
        answer = ctx.peer.create_elicitation(params) => answer,
        () = ctx.ct.cancelled() => {
            server.record(Event::ToolCancelled { name: name.to_owned() });
            return Err(ErrorData::internal_error("cancelled", None));
        }
    };
    match answer {
        Ok(result) => {
            let value = serde_json::to_value(&result).unwrap_or(Value::Null);
            let action = value
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_owned();
            let content = value.get("content").cloned().filter(|c| !c.is_null());
            server.record(Event::Elicitation {
                action: action.clone(),
                content: content.clone(),
            });
            let mut answer = Map::new();
            answer.insert("action".into(), json!(action));
            answer.insert("content".into(), content.unwrap_or(Value::Null));
            text_result(&Value::Object(answer).to_string())
        }
        Err(e) => {
            server.record(Event::Elicitation {
                action: "error".into(),
                content: Some(json!(e.to_string())),
            });
            from_json(
                json!({"content": [{"type": "text", "text": format!("elicitation failed: {e}")}], "isError": true}),
            )
        }
    }
}

/// What a `sample` tool sends.
struct SampleRequest<'a> {
    prompt: &'a str,
    system: Option<&'a str>,
    max_tokens: u64,
    hints: &'a [String],
}

#[expect(deprecated)] // sampling is deprecated by SEP-2577 but clients still answer it
async fn sample(
    server: &FakeServer,
    request: &SampleRequest<'_>,
    ctx: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let mut params = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": request.prompt}}],
        "maxTokens": request.max_tokens,
    });
    if let Some(system) = request.system {
        params["systemPrompt"] = json!(system);
    }
    if !request.hints.is_empty() {
        let hints: Vec<Value> = request.hints.iter().map(|h| json!({"name": h})).collect();
        params["modelPreferences"] = json!({"hints": hints});
    }
    let params: rmcp::model::CreateMessageRequestParams = from_json(params)?;
    let answer = tokio::select! {
        answer = ctx.peer.create_message(params) => answer,
        () = ctx.ct.cancelled() => {
            server.record(Event::ToolCancelled { name: "sample".to_owned() });
            return Err(ErrorData::internal_error("cancelled", None));
        }
    };
    match answer {
        Ok(result) => {
            let value = serde_json::to_value(&result).unwrap_or(Value::Null);
            let text = match value.get("content") {
                Some(Value::Array(blocks)) => blocks
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
                Some(block) => block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                None => String::new(),
            };
            server.record(Event::Sampling {
                outcome: "answered".into(),
                text: text.clone(),
            });
            text_result(&text)
        }
        Err(e) => {
            let message = match &e {
                rmcp::ServiceError::McpError(data) => data.message.to_string(),
                other => other.to_string(),
            };
            server.record(Event::Sampling {
                outcome: "error".into(),
                text: message.clone(),
            });
            from_json(json!({
                "content": [{"type": "text", "text": format!("sampling failed: {message}")}],
                "isError": true
            }))
        }
    }
}

#[expect(deprecated)] // roots are deprecated by SEP-2577 but clients still answer them
async fn list_roots(
    server: &FakeServer,
    ctx: &RequestContext<RoleServer>,
) -> Result<Vec<String>, ErrorData> {
    let listed = ctx
        .peer
        .list_roots()
        .await
        .map_err(|e| ErrorData::internal_error(format!("roots/list failed: {e}"), None))?;
    let uris: Vec<String> = listed.roots.iter().map(|r| r.uri.clone()).collect();
    server.record(Event::Roots { uris: uris.clone() });
    Ok(uris)
}

async fn roots(
    server: &FakeServer,
    wait_for_change: bool,
    wait_ms: u64,
    ctx: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    // Listen before the first list, so a change right after it is not missed.
    let changed = server.shared.roots_changed.notified();
    tokio::pin!(changed);
    changed.as_mut().enable();
    let before = list_roots(server, ctx).await?;
    if !wait_for_change {
        return text_result(&json!(before).to_string());
    }
    tokio::select! {
        () = &mut changed => {}
        () = tokio::time::sleep(Duration::from_millis(wait_ms)) => {
            return text_result(&json!({"before": before, "after": null}).to_string());
        }
        () = ctx.ct.cancelled() => {
            server.record(Event::ToolCancelled { name: "roots".to_owned() });
            return Err(ErrorData::internal_error("cancelled", None));
        }
    }
    let after = list_roots(server, ctx).await?;
    text_result(&json!({"before": before, "after": after}).to_string())
}

async fn notify(ctx: &RequestContext<RoleServer>, notice: &ServerNotice) -> Result<(), ErrorData> {
    let peer = &ctx.peer;
    let sent = match notice {
        ServerNotice::ToolsListChanged => peer.notify_tool_list_changed().await,
        ServerNotice::ResourcesListChanged => peer.notify_resource_list_changed().await,
        ServerNotice::PromptsListChanged => peer.notify_prompt_list_changed().await,
        ServerNotice::ResourceUpdated { uri } => {
            peer.notify_resource_updated(from_json(json!({"uri": uri}))?)
                .await
        }
        #[expect(deprecated)] // logging is deprecated by SEP-2577 but clients still handle it
        ServerNotice::Log { level, data } => {
            let param = from_json(json!({"level": level, "logger": "coyote-fake", "data": data}))?;
            peer.notify_logging_message(param).await
        }
    };
    sent.map_err(|e| ErrorData::internal_error(format!("sending {notice:?} failed: {e}"), None))
}

/// [`ToolBehavior::UrlRequired`]: error -32042 naming the page for the first `times` calls.
fn url_required(
    server: &FakeServer,
    name: &str,
    url: &str,
    message: &str,
    times: usize,
) -> Result<CallToolResult, ErrorData> {
    let calls = server.shared.events.snapshot().tool_calls(name);
    if calls > times {
        return text_result("page confirmed");
    }
    let data = json!({"elicitations": [{
        "mode": "url",
        "elicitationId": format!("{name}-{calls}"),
        "url": url,
        "message": message,
    }]});
    Err(ErrorData::new(
        rmcp::model::ErrorCode(-32042),
        "URL elicitation required",
        Some(data),
    ))
}
