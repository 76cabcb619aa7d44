//! Runs the tool calls of one round: first, in the order the model made them, each call is
//! checked (its name resolved once into a [`CallTarget`], arguments, the repeat guard,
//! approval — one question at a time); then the calls that may run go to their target — a
//! delegate or the MCP dispatcher — concurrently, at most [`crate::MAX_CONCURRENT_TOOL_CALLS`]
//! at once (`run`). What was approved is what runs: dispatch takes the resolved target, it
//! does not parse the name again.
//!
//! Invariants: every call gets exactly one [`ToolResult`] and exactly one
//! `ToolCallStarted`/`ToolCallFinished` pair, whatever happens; results come back in call
//! order. On cancellation the in-flight dispatch futures are dropped — the MCP host then sends
//! `notifications/cancelled` for each request — and every unfinished call is answered
//! "cancelled by the user". A call to a server that is not Ready is answered with its state at
//! check time, so a server that becomes Ready mid-round can never run an unapproved tool.
//!
//! A call identical (same function, same canonical arguments) to one that already succeeded in
//! this turn is not run again: it gets the earlier result back with an instruction to answer
//! (small models otherwise repeat themselves). The turn loop sets aside an answer made
//! only of calls that already ran ([`CallState::all_ran`]) before it gets here. The repeat
//! guard still stops the [`crate::MAX_IDENTICAL_CALLS`]-th identical call in a row, whatever
//! came before.

mod run;

use std::collections::{BTreeMap, BTreeSet};

use coyote_llm::{ToolCall, ToolOutcome, ToolResult};
use coyote_mcp::McpError;
use coyote_mcp::meta::health_line;
use serde_json::Value;

use self::run::execute;

use crate::approval::{
    ApprovalDecision, ApprovalRequest, ToolAnnotations, approval_reason, refusal_text,
};
use crate::event::ToolCallStatus;
use crate::repeat::{RepeatGuard, call_key, repeated_text, reused_text};
use crate::session::{Session, TurnContext};
use crate::tools::CallTarget;

/// The tool result of a call the user cancelled.
pub const CANCELLED_TEXT: &str = "cancelled by the user";

/// What to do with one call after the checks.
#[derive(Debug)]
enum Plan {
    Run {
        arguments: Value,
    },
    Answer {
        status: ToolCallStatus,
        text: String,
    },
    /// The earlier result of an identical call of this turn, handed back without running.
    Reuse {
        text: String,
    },
    /// Identical to call `first` of this round (which runs): gets its result once it is in.
    Same {
        first: usize,
    },
}

#[derive(Debug)]
struct Checked {
    call: ToolCall,
    target: CallTarget,
    /// For events: the parsed object, or the raw text when it was not an object.
    shown_arguments: Value,
    plan: Plan,
}

/// Per-turn state of the call checks.
#[derive(Debug, Default)]
pub(crate) struct CallState {
    pub(crate) guard: RepeatGuard,
    /// Tool annotations by server, listed at most once per turn.
    annotations: BTreeMap<String, Option<BTreeMap<String, Option<Value>>>>,
    /// Results of the calls that succeeded this turn, by [`call_key`].
    answered: BTreeMap<String, String>,
    /// Every call that ran this turn (succeeded or failed), by [`call_key`].
    ran: BTreeSet<String>,
}

impl CallState {
    /// Whether every call of `calls` (at least one) is identical to a call that already ran in
    /// this turn, successfully or not: the model asked only for outcomes it already has.
    pub(crate) fn all_ran(&self, calls: &[ToolCall]) -> bool {
        !calls.is_empty()
            && calls
                .iter()
                .all(|call| self.ran.contains(&call_key(&call.name, &call.arguments)))
    }
}

/// Whether the round ran to the end or was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RoundEnd {
    Completed,
    Cancelled,
}

/// Answers every call of `calls`; results in call order.
pub(crate) async fn run_round(
    session: &Session,
    state: &mut CallState,
    calls: &[ToolCall],
    ctx: &TurnContext<'_>,
) -> (Vec<ToolResult>, RoundEnd) {
    let mut checked = Vec::with_capacity(calls.len());
    let mut end = RoundEnd::Completed;
    // The first call of this round that runs, by call key: identical ones wait for its result.
    let mut first_of: BTreeMap<String, usize> = BTreeMap::new();
    for (index, call) in calls.iter().enumerate() {
        let key = call_key(&call.name, &call.arguments);
        let item = if end == RoundEnd::Cancelled {
            cancelled_unchecked(session, call)
        } else if let Some(&first) = first_of.get(&key) {
            duplicate(session, state, call, first)
        } else {
            match check(session, state, call, ctx).await {
                Some(item) => item,
                None => {
                    end = RoundEnd::Cancelled;
                    cancelled_unchecked(session, call)
                }
            }
        };
        if matches!(item.plan, Plan::Run { .. }) {
            first_of.entry(key).or_insert(index);
        }
        checked.push(item);
    }
    if end == RoundEnd::Cancelled {
        // Nothing runs once the user cancelled during the checks.
        for item in &mut checked {
            if matches!(item.plan, Plan::Run { .. } | Plan::Same { .. }) {
                item.plan = Plan::Answer {
                    status: ToolCallStatus::Cancelled,
                    text: CANCELLED_TEXT.to_owned(),
                };
            }
        }
    }
    let ran: Vec<Option<String>> = checked
        .iter()
        .map(|item| match item.plan {
            Plan::Run { .. } => Some(call_key(&item.call.name, &item.call.arguments)),
            Plan::Answer { .. } | Plan::Reuse { .. } | Plan::Same { .. } => None,
        })
        .collect();
    let (results, run_end) = execute(session, checked, ctx).await;
    for (key, result) in ran.into_iter().zip(&results) {
        if let Some(key) = key {
            if result.outcome == ToolOutcome::Success {
                state.answered.insert(key.clone(), result.content.clone());
            }
            state.ran.insert(key);
        }
    }
    let end = if run_end == RoundEnd::Cancelled {
        RoundEnd::Cancelled
    } else {
        end
    };
    (results, end)
}

fn cancelled_unchecked(session: &Session, call: &ToolCall) -> Checked {
    Checked {
        call: call.clone(),
        target: CallTarget::resolve(session, &call.name),
        shown_arguments: shown_arguments(call),
        plan: Plan::Answer {
            status: ToolCallStatus::Cancelled,
            text: CANCELLED_TEXT.to_owned(),
        },
    }
}

/// A call identical to call `first` of the same round: not checked again (no second approval
/// question), answered with `first`'s result — unless the repeat guard stops it.
fn duplicate(session: &Session, state: &mut CallState, call: &ToolCall, first: usize) -> Checked {
    let target = CallTarget::resolve(session, &call.name);
    let target = match call.parse_arguments() {
        Ok(map) => target.with_arguments(&Value::Object(map)),
        Err(_) => target,
    };
    let plan = if state.guard.record(&call.name, &call.arguments) {
        Plan::Answer {
            status: ToolCallStatus::Repeated,
            text: repeated_text(&call.name),
        }
    } else {
        Plan::Same { first }
    };
    Checked {
        call: call.clone(),
        target,
        shown_arguments: shown_arguments(call),
        plan,
    }
}

fn shown_arguments(call: &ToolCall) -> Value {
    match call.parse_arguments() {
        Ok(map) => Value::Object(map),
        Err(_) => Value::String(call.arguments.clone()),
    }
}

/// Checks one call; `None` when the user cancelled while it was being checked.
async fn check(
    session: &Session,
    state: &mut CallState,
    call: &ToolCall,
    ctx: &TurnContext<'_>,
) -> Option<Checked> {
    let target = CallTarget::resolve(session, &call.name);
    let arguments = match call.parse_arguments() {
        Ok(map) => Value::Object(map),
        Err(e) => {
            state.guard.record(&call.name, &call.arguments);
            return Some(Checked {
                call: call.clone(),
                target,
                shown_arguments: Value::String(call.arguments.clone()),
                plan: Plan::Answer {
                    status: ToolCallStatus::Error,
                    text: e.to_string(),
                },
            });
        }
    };
    let target = target.with_arguments(&arguments);
    let answer = |status, text| Plan::Answer { status, text };
    let earlier = state.answered.get(&call_key(&call.name, &call.arguments));
    let plan = if state.guard.record(&call.name, &call.arguments) {
        answer(ToolCallStatus::Repeated, repeated_text(&call.name))
    } else if let Some(earlier) = earlier {
        Plan::Reuse {
            text: reused_text(earlier),
        }
    } else if let (Some(server), Some(tool)) = (target.server(), &target.tool) {
        let tool_arguments = target.tool_arguments(&arguments);
        let invoke = Invocation {
            call,
            server,
            tool,
            arguments: &tool_arguments,
        };
        match approve(session, state, &invoke, ctx).await? {
            Ok(()) => Plan::Run {
                arguments: arguments.clone(),
            },
            Err(plan) => plan,
        }
    } else {
        Plan::Run {
            arguments: arguments.clone(),
        }
    };
    Some(Checked {
        call: call.clone(),
        target,
        shown_arguments: arguments,
        plan,
    })
}

/// A call that runs a tool (`mcp_invoke_*` or a direct name) being checked: which tool of
/// which server, with the tool's own arguments.
struct Invocation<'a> {
    call: &'a ToolCall,
    server: &'a str,
    tool: &'a str,
    arguments: &'a Value,
}

/// `Some(Ok(()))` to run, `Some(Err(answer))` not to, `None` when cancelled while asking.
async fn approve(
    session: &Session,
    state: &mut CallState,
    invoke: &Invocation<'_>,
    ctx: &TurnContext<'_>,
) -> Option<Result<(), Plan>> {
    let Invocation {
        call,
        server,
        tool,
        arguments,
    } = *invoke;
    // A server that is not Ready answers with its health line now, and is not asked again;
    // an Idle one (declared from its cached catalog) is started by this first call.
    if let Err(e) = session.runtime.acquire(server).await {
        let text = match e {
            McpError::ServerNotReady { server, state } => health_line(&server, &state),
            // In the model's words (a sign-in it needs: what to ask the user).
            other => coyote_mcp::meta::DispatchError::from(other).to_string(),
        };
        return Some(Err(Plan::Answer {
            status: ToolCallStatus::Error,
            text,
        }));
    }
    if session.approvals.is_always(server, tool) {
        return Some(Ok(()));
    }
    let annotations = tokio::select! {
        biased;
        _ = ctx.cancel.cancelled() => return None,
        a = annotations(session, state, server, tool) => a,
    };
    let policy = session.options.approvals.get(server);
    let Some(reason) = approval_reason(&policy, tool, &annotations) else {
        return Some(Ok(()));
    };
    let request = ApprovalRequest {
        call_id: call.id.clone(),
        server: server.to_owned(),
        tool: tool.to_owned(),
        arguments: arguments.clone(),
        reason,
    };
    let decision = tokio::select! {
        biased;
        _ = ctx.cancel.cancelled() => return None,
        d = ctx.approver.approve(request) => d,
    };
    Some(match decision {
        ApprovalDecision::Approve => Ok(()),
        ApprovalDecision::ApproveAlways => {
            session.approvals.remember(server, tool);
            Ok(())
        }
        ApprovalDecision::Refuse { note } => Err(Plan::Answer {
            status: ToolCallStatus::Refused,
            text: refusal_text(server, tool, note.as_deref()),
        }),
    })
}

/// The tool's annotations from the server's list (listed once per server per turn).
async fn annotations(
    session: &Session,
    state: &mut CallState,
    server: &str,
    tool: &str,
) -> ToolAnnotations {
    if !state.annotations.contains_key(server) {
        let listed = match session.runtime.server(server) {
            Ok(handle) => match handle.list_tools().await {
                Ok(tools) => Some(
                    tools
                        .into_iter()
                        .map(|t| (t.name, t.annotations))
                        .collect::<BTreeMap<_, _>>(),
                ),
                Err(e) => {
                    tracing::warn!(server, "cannot list tools to check approval: {e}");
                    None
                }
            },
            Err(_) => None,
        };
        state.annotations.insert(server.to_owned(), listed);
    }
    match state.annotations.get(server) {
        Some(Some(tools)) => match tools.get(tool) {
            Some(hints) => ToolAnnotations::Listed(hints.clone()),
            None => ToolAnnotations::NotListed,
        },
        Some(None) | None => ToolAnnotations::Unknown,
    }
}
