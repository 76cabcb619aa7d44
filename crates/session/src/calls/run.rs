//! Running the checked calls of one round: the answered ones are emitted at once, the others
//! run concurrently (at most [`MAX_CONCURRENT_TOOL_CALLS`] at once) on the target each was
//! resolved to when it was checked — a delegate, or the dispatcher — and identical calls of the
//! round get their first's result. Every call gets exactly one result and one
//! `ToolCallStarted`/`ToolCallFinished` pair, cancelled or not.

use std::sync::Mutex;
use std::time::Instant;

use coyote_llm::{ToolCall, ToolResult};
use coyote_mcp::meta::DispatchError;
use futures::StreamExt;
use serde_json::Value;

use super::{CANCELLED_TEXT, Checked, Plan, RoundEnd};
use crate::event::{SessionEvent, ToolCallStatus};
use crate::repeat::reused_text;
use crate::session::{MAX_CONCURRENT_TOOL_CALLS, Session, TurnContext};
use crate::tools::Callee;

/// Emits the answered calls, runs the others concurrently, and collects every result.
pub(super) async fn execute(
    session: &Session,
    checked: Vec<Checked>,
    ctx: &TurnContext<'_>,
) -> (Vec<ToolResult>, RoundEnd) {
    let mut results: Vec<Option<ToolResult>> = vec![None; checked.len()];
    let started: Mutex<Vec<Option<Instant>>> = Mutex::new(vec![None; checked.len()]);
    let mut runs = Vec::new();
    let mut same = Vec::new();
    for (index, item) in checked.iter().enumerate() {
        match &item.plan {
            Plan::Answer { status, text } => {
                emit_started(ctx, item);
                emit_finished(ctx, item, *status, 0, text);
                results[index] = Some(to_result(&item.call, *status, text.clone()));
            }
            Plan::Reuse { text } => {
                emit_started(ctx, item);
                emit_finished(ctx, item, ToolCallStatus::Repeated, 0, text);
                results[index] = Some(ToolResult::success(item.call.id.clone(), text.clone()));
            }
            Plan::Run { arguments } => runs.push((index, arguments.clone())),
            Plan::Same { first } => same.push((index, *first)),
        }
    }
    let mut pending = futures::stream::iter(runs)
        .map(|(index, arguments)| {
            let item = &checked[index];
            let started = &started;
            async move {
                let begin = Instant::now();
                if let Ok(mut s) = started.lock() {
                    s[index] = Some(begin);
                }
                emit_started(ctx, item);
                let (status, text) = run_one(session, item, arguments, ctx).await;
                emit_finished(ctx, item, status, elapsed_ms(begin), &text);
                (index, to_result(&item.call, status, text))
            }
        })
        .buffer_unordered(MAX_CONCURRENT_TOOL_CALLS);
    let mut end = RoundEnd::Completed;
    loop {
        tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => {
                end = RoundEnd::Cancelled;
                break;
            }
            next = pending.next() => match next {
                Some((index, result)) => results[index] = Some(result),
                None => break,
            },
        }
    }
    // Dropping the stream drops the in-flight requests: the host sends notifications/cancelled.
    drop(pending);
    // Identical calls of this round get their first's result (a cancelled first: see below).
    for (index, first) in same {
        if let Some(earlier) = results[first].clone() {
            let item = &checked[index];
            let text = reused_text(&earlier.content);
            emit_started(ctx, item);
            emit_finished(ctx, item, ToolCallStatus::Repeated, 0, &text);
            results[index] = Some(ToolResult {
                call_id: item.call.id.clone(),
                content: text,
                outcome: earlier.outcome,
            });
        }
    }
    let started = started.into_inner().unwrap_or_else(|p| p.into_inner());
    let results = results
        .into_iter()
        .enumerate()
        .map(|(index, result)| {
            result.unwrap_or_else(|| {
                let item = &checked[index];
                let duration = match started[index] {
                    Some(begin) => elapsed_ms(begin),
                    None => {
                        emit_started(ctx, item);
                        0
                    }
                };
                emit_finished(
                    ctx,
                    item,
                    ToolCallStatus::Cancelled,
                    duration,
                    CANCELLED_TEXT,
                );
                to_result(
                    &item.call,
                    ToolCallStatus::Cancelled,
                    CANCELLED_TEXT.to_owned(),
                )
            })
        })
        .collect();
    (results, end)
}

/// Runs one checked call on the target it was resolved to when it was checked.
async fn run_one(
    session: &Session,
    item: &Checked,
    arguments: Value,
    ctx: &TurnContext<'_>,
) -> (ToolCallStatus, String) {
    let outcome = match &item.target.callee {
        Callee::Delegate(agent) => {
            return crate::delegate::run(session, agent, &arguments, ctx).await;
        }
        Callee::Mcp(target) => {
            session
                .dispatcher
                .dispatch_target(&item.call.name, target.clone(), arguments)
                .await
        }
        Callee::Undeclared => Err(DispatchError::NotDeclared {
            name: item.call.name.clone(),
            callable: callable_names(session),
        }),
    };
    match outcome {
        Ok(outcome) if outcome.is_error => (ToolCallStatus::Error, outcome.to_model_text()),
        Ok(outcome) => (ToolCallStatus::Ok, outcome.to_model_text()),
        Err(e) => (ToolCallStatus::Error, e.to_string()),
    }
}

/// Every function the current request declares: the dispatcher's set and the delegates.
fn callable_names(session: &Session) -> Vec<String> {
    let mut names = session.dispatcher.callable_names();
    names.extend(
        crate::delegate::declarations(session)
            .into_iter()
            .map(|d| d.name),
    );
    names
}

fn to_result(call: &ToolCall, status: ToolCallStatus, text: String) -> ToolResult {
    match status {
        ToolCallStatus::Ok => ToolResult::success(call.id.clone(), text),
        ToolCallStatus::Error
        | ToolCallStatus::Refused
        | ToolCallStatus::Cancelled
        | ToolCallStatus::Repeated => ToolResult::error(call.id.clone(), text),
    }
}

fn elapsed_ms(begin: Instant) -> u64 {
    u64::try_from(begin.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn emit_started(ctx: &TurnContext<'_>, item: &Checked) {
    ctx.events.emit(SessionEvent::ToolCallStarted {
        call_id: item.call.id.clone(),
        name: item.call.name.clone(),
        server: item.target.server().map(str::to_owned),
        tool: item.target.tool.clone(),
        arguments: item.shown_arguments.clone(),
    });
}

fn emit_finished(
    ctx: &TurnContext<'_>,
    item: &Checked,
    status: ToolCallStatus,
    duration_ms: u64,
    output: &str,
) {
    ctx.events.emit(SessionEvent::ToolCallFinished {
        call_id: item.call.id.clone(),
        name: item.call.name.clone(),
        server: item.target.server().map(str::to_owned),
        tool: item.target.tool.clone(),
        status,
        duration_ms,
        output: output.to_owned(),
    });
}
