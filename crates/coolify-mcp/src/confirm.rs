//! Human confirmation of destructive operations through elicitation:
//! the confirmation hook tool handlers call, acting on the call's
//! [`Confirmation`](crate::call_ctx::Confirmation) policy and its caller channel.
//!
//! Invariants:
//! - no mutating request is sent before the decision: the pre-flight summary may only
//!   read;
//! - a client that cannot be asked (no `elicitation` capability, or
//!   `COOLIFY_MCP_ELICITATION=off`) runs the operation unconfirmed, unless the server
//!   requires a human, in which case it is refused with nothing sent;
//! - a summary of `None` means there is nothing to confirm (the operation runs);
//! - a 2026-07-28 confirmation is single-use: its sealed state is redeemed (its nonce spent)
//!   before the operation runs, and a replay is refused with nothing sent;
//! - decline, cancel, timeout and transport failure all refuse with an `Aborted: …` text
//!   (no `Error:` prefix, no `isError`); cancelling the tool call withdraws the prompt;
//! - while waiting, progress notifications keep the call alive for clients that sent a
//!   progress token;
//! - names from Coolify are flattened and clamped by [`sanitize_for_prompt`] before they
//!   appear in a dialog.

use std::collections::BTreeMap;
use std::future::Future;

use rmcp::model::ClientResult;
use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitationAction, ElicitationSchema, InputRequest,
    InputRequiredResult, ServerRequest,
};
use rmcp::service::PeerRequestOptions;
use sha2::{Digest, Sha256};

use crate::audit::{Confirmation as Let, Reason};
use crate::call_ctx::{CallCtx, Guard, ModernRound, Round};
use crate::config::{ElicitationSetting, HumanPolicy};
use crate::request_state::StateError;

/// The key of the embedded elicitation in `inputRequests`, and of its answer.
pub const CONFIRM_KEY: &str = "confirm";

/// Why an operation did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The client cannot be asked and the policy requires a human.
    NoElicitation,
    /// The user declined.
    Declined,
    /// The user dismissed the question, or it timed out.
    Cancelled,
}

fn abort_text(reason: &str) -> String {
    format!(
        "Aborted: {reason}. Nothing was changed. Do not retry without new instructions from the user."
    )
}

/// The refusal text when the server requires a human and the client cannot be asked.
pub fn require_human_text() -> String {
    abort_text(
        "this server requires human confirmation for destructive operations, and this client does not support elicitation. Read-only tools work normally. For destructive operations, connect with a client that supports elicitation or use the stdio server locally",
    )
}

/// The refusal text when the server requires a human and, serving `--stateless` HTTP, has no
/// session to ask a 2025-era client on.
pub fn stateless_text() -> String {
    abort_text(
        "this server runs in stateless HTTP mode (--stateless), where it cannot ask for confirmation during a call, and it requires human confirmation for destructive operations. Read-only tools work normally. For destructive operations, use a client that speaks MCP 2026-07-28 (it confirms through input_required), or a server without --stateless",
    )
}

/// Whether this client can be asked at all (a 2025-era call over `--stateless` HTTP cannot be:
/// there is no session to send `elicitation/create` on).
pub fn can_ask(ctx: &CallCtx<'_>) -> bool {
    ctx.confirmation.elicitation != ElicitationSetting::Off
        && ctx.client_can_elicit
        && !(ctx.stateless && matches!(ctx.round, Round::Legacy))
}

fn refuse(ctx: &CallCtx<'_>, reason: Reason, text: String) -> Result<(), String> {
    ctx.record.set(Guard::Refused(reason));
    Err(text)
}

fn let_through(ctx: &CallCtx<'_>, how: Let) -> Result<(), String> {
    ctx.record.set(Guard::Ran(how));
    Ok(())
}

/// First 32 hex chars of SHA-256 of `text`: what the 2026-07-28 state seals.
pub fn summary_digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The text shown and its digest; `None` when there is nothing to confirm. A failed
/// pre-flight still asks, with the label, and seals `degraded:<label>` (stable across
/// failures, distinct per operation).
async fn describe<F>(ctx: &CallCtx<'_>, label: &str, summarize: F) -> Option<(String, String)>
where
    F: Future<Output = Result<Option<String>, String>>,
{
    let fleet = ctx.mode.fleet;
    let scoped_label = if fleet {
        format!("{label} on instance \"{}\"", ctx.instance.name())
    } else {
        label.to_string()
    };
    match summarize.await {
        Ok(None) => None,
        Ok(Some(summary)) => {
            let text = if fleet {
                format!("Instance: {}\n{summary}", ctx.instance.name())
            } else {
                summary
            };
            let digest = summary_digest(&text);
            Some((text, digest))
        }
        Err(e) => Some((
            format!("{scoped_label}\n\nProceed? (Could not load the details first: {e})"),
            summary_digest(&format!("degraded:{scoped_label}")),
        )),
    }
}

/// Ask the human, or decide without asking. `Ok(())` means proceed; `Err(text)` is the
/// refusal to return as the tool result (on 2026-07-28 round one, the call answers with the
/// recorded `input_required` instead). The decision is recorded in the call's record.
pub async fn confirm<F>(ctx: &CallCtx<'_>, label: &str, summarize: F) -> Result<(), String>
where
    F: Future<Output = Result<Option<String>, String>>,
{
    if let Round::Modern(round) = &ctx.round {
        return confirm_modern(ctx, round, label, summarize).await;
    }
    if !can_ask(ctx) {
        return match ctx.confirmation.human {
            HumanPolicy::RequireHuman
                if ctx.stateless && ctx.confirmation.elicitation != ElicitationSetting::Off =>
            {
                refuse(ctx, Reason::NoElicitation, stateless_text())
            }
            HumanPolicy::RequireHuman => refuse(ctx, Reason::NoElicitation, require_human_text()),
            HumanPolicy::AskWhenPossible => let_through(ctx, Let::Unconfirmed),
        };
    }
    let Some((message, _)) = describe(ctx, label, summarize).await else {
        return let_through(ctx, Let::NothingToConfirm);
    };
    match ask(ctx, message).await {
        Ok(ElicitationAction::Accept) => let_through(ctx, Let::Confirmed),
        Ok(ElicitationAction::Decline) => {
            refuse(ctx, Reason::Declined, abort_text("the user declined"))
        }
        Ok(_) => refuse(
            ctx,
            Reason::Cancelled,
            abort_text("the user cancelled the prompt"),
        ),
        Err(e) => refuse(
            ctx,
            Reason::Unavailable,
            abort_text(&format!("could not confirm with the user ({e})")),
        ),
    }
}

fn empty_schema() -> Result<ElicitationSchema, String> {
    serde_json::from_value(serde_json::json!({"type": "object", "properties": {}}))
        .map_err(|e| e.to_string())
}

/// The 2026-07-28 path: round one answers `input_required` with the question and
/// sealed state; round two runs only on an accepted elicitation answer whose sealed digest
/// still matches what the operation would do now. Never approves without an answer.
async fn confirm_modern<F>(
    ctx: &CallCtx<'_>,
    round: &ModernRound<'_>,
    label: &str,
    summarize: F,
) -> Result<(), String>
where
    F: Future<Output = Result<Option<String>, String>>,
{
    if !can_ask(ctx) {
        return refuse(ctx, Reason::NoElicitation, require_human_text());
    }
    let Some(answer) = round.responses.and_then(|r| r.get(CONFIRM_KEY)) else {
        let Some((message, digest)) = describe(ctx, label, summarize).await else {
            return let_through(ctx, Let::NothingToConfirm);
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: empty_schema()?,
        };
        let mut requests = BTreeMap::new();
        requests.insert(
            CONFIRM_KEY.to_string(),
            InputRequest::Elicitation(ElicitRequest::new(params)),
        );
        let state = round.seal.seal(&digest, &round.binding);
        ctx.record
            .set(Guard::Awaiting(Box::new(InputRequiredResult::new(
                Some(requests),
                Some(state),
            ))));
        return Err(String::new());
    };
    let action = answer
        .get("action")
        .and_then(|a| serde_json::from_value::<ElicitationAction>(a.clone()).ok());
    match action {
        None => {
            return refuse(
                ctx,
                Reason::Unavailable,
                abort_text(
                    "the confirmation came back as something other than an elicitation answer",
                ),
            );
        }
        Some(ElicitationAction::Accept) => {}
        Some(ElicitationAction::Decline) => {
            return refuse(ctx, Reason::Declined, abort_text("the user declined"));
        }
        Some(_) => {
            return refuse(
                ctx,
                Reason::Cancelled,
                abort_text("the user cancelled the prompt"),
            );
        }
    }
    let stale = |why: &str| {
        abort_text(&format!(
            "{why}, so the approval no longer describes it. Re-run {} to see the current blast radius and confirm that",
            serde_json::Value::String(label.to_string())
        ))
    };
    let redeemed = match round.state {
        Some(state) => Some(round.seal.redeem(state, &round.binding).await),
        None => None,
    };
    let sealed = match redeemed {
        Some(Ok(digest)) => digest,
        Some(Err(StateError::Expired)) => {
            return refuse(
                ctx,
                Reason::StaleConfirmation,
                stale("the confirmation expired"),
            );
        }
        Some(Err(StateError::Replayed)) => {
            return refuse(
                ctx,
                Reason::ReplayedConfirmation,
                abort_text(&format!(
                    "this confirmation was already used: one approval runs the operation once. To run {} again, call it without requestState so the user is asked again",
                    serde_json::Value::String(label.to_string())
                )),
            );
        }
        Some(Err(StateError::StoreUnavailable)) => {
            return refuse(
                ctx,
                Reason::Unavailable,
                abort_text(
                    "the server could not record that this confirmation was used, so it did not run the operation. Retry the call with the same answer and state once the server's state store is reachable",
                ),
            );
        }
        Some(Err(StateError::Invalid)) | None => {
            return refuse(
                ctx,
                Reason::StaleConfirmation,
                stale("the confirmation state is missing or failed verification"),
            );
        }
    };
    match describe(ctx, label, summarize).await {
        None => let_through(ctx, Let::NothingToConfirm),
        Some((_, digest)) if digest == sealed => let_through(ctx, Let::Confirmed),
        Some(_) => refuse(
            ctx,
            Reason::StaleConfirmation,
            stale("what this would do changed between the confirmation and the answer"),
        ),
    }
}

/// Send `elicitation/create` with an empty object schema; bounded by the elicitation
/// timeout and the tool call's cancellation, with progress keep-alives while waiting.
async fn ask(ctx: &CallCtx<'_>, message: String) -> Result<ElicitationAction, String> {
    let schema = empty_schema()?;
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: schema,
    };
    let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
    let mut handle = ctx
        .peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .map_err(|e| client_error_text(&e))?;
    let timeout = ctx.timing.elicitation_timeout;
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let mut tick = tokio::time::interval(ctx.timing.progress_interval);
    tick.tick().await;
    let mut progress = 0.0;
    enum Ended {
        Answer(Result<ClientResult, String>),
        TimedOut,
        Withdrawn,
    }
    let ended = loop {
        tokio::select! {
            r = &mut handle.rx => break Ended::Answer(match r {
                Ok(Ok(result)) => Ok(result),
                Ok(Err(e)) => Err(client_error_text(&e)),
                Err(_) => Err("the connection closed".to_string()),
            }),
            _ = &mut deadline => break Ended::TimedOut,
            _ = ctx.cancel.cancelled() => break Ended::Withdrawn,
            _ = tick.tick() => {
                progress += 1.0;
                ctx.notify_progress(progress, "waiting for the user to confirm".into()).await;
            }
        }
    };
    match ended {
        Ended::Answer(Ok(ClientResult::ElicitResult(r))) => Ok(r.action),
        Ended::Answer(Ok(_)) => Err("unexpected response to elicitation/create".into()),
        Ended::Answer(Err(e)) => Err(e),
        Ended::TimedOut => {
            let _ = handle.cancel(Some("confirmation timed out".into())).await;
            Err(mcp_error_text(REQUEST_TIMEOUT, "Request timed out"))
        }
        Ended::Withdrawn => {
            let _ = handle
                .cancel(Some("the tool call was cancelled".into()))
                .await;
            Err("the tool call was cancelled".into())
        }
    }
}

/// JSON-RPC error code of a request the server gave up waiting for (the TypeScript SDK's
/// `ErrorCode.RequestTimeout`).
const REQUEST_TIMEOUT: i32 = -32001;

/// How a failed request reads inside `could not confirm with the user (…)`: the TypeScript
/// SDK's `MCP error <code>: <message>` for an error the client answered, so the text is the
/// same as the reference server's; a transport failure as rmcp words it.
fn client_error_text(e: &rmcp::ServiceError) -> String {
    match e {
        rmcp::ServiceError::McpError(data) => mcp_error_text(data.code.0, &data.message),
        other => other.to_string(),
    }
}

fn mcp_error_text(code: i32, message: &str) -> String {
    format!("MCP error {code}: {message}")
}

/// `S()`: control chars → space; strip `` ` * [ ] < > " ( ) # ``; collapse whitespace;
/// clamp to 64 chars (63 + `…`). Keeps `_`.
pub fn sanitize_for_prompt(name: &str) -> String {
    let replaced: String = name
        .chars()
        .map(|c| {
            if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) {
                ' '
            } else {
                c
            }
        })
        .filter(|c| !matches!(c, '`' | '*' | '[' | ']' | '<' | '>' | '"' | '(' | ')' | '#'))
        .collect();
    let flat = replaced.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.encode_utf16().count() <= 64 {
        return flat;
    }
    let mut out: String = flat.chars().take(63).collect();
    out.push('…');
    out
}

/// `N noun[s] (a, b, …)`: names sorted by code point, sanitized, at most 8 then `and K more`.
pub fn blast_radius(noun: &str, names: &[String]) -> String {
    let count = format!(
        "{} {noun}{}",
        names.len(),
        if names.len() == 1 { "" } else { "s" }
    );
    if names.is_empty() {
        return count;
    }
    let mut sorted: Vec<&String> = names.iter().collect();
    sorted.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    let safe: Vec<String> = sorted.iter().map(|n| sanitize_for_prompt(n)).collect();
    if safe.len() <= 8 {
        format!("{count} ({})", safe.join(", "))
    } else {
        format!(
            "{count} ({} and {} more)",
            safe[..8].join(", "),
            safe.len() - 8
        )
    }
}

/// The delete-resource summary.
pub fn delete_summary(kind: &str, name: &str, uuid: &str, delete_volumes: Option<bool>) -> String {
    let volumes = match delete_volumes {
        Some(false) => "Persistent volumes are kept.".to_string(),
        Some(true) => "Persistent volumes will be DESTROYED and their data is not recoverable.".to_string(),
        None => "Persistent volumes will be DESTROYED and their data is not recoverable (delete_volumes was not set, and it defaults to true).".to_string(),
    };
    format!(
        "Delete {kind} \"{}\" ({})?\n\n{volumes} This cannot be undone.",
        sanitize_for_prompt(name),
        sanitize_for_prompt(uuid)
    )
}

/// The move-resource summary.
pub fn move_summary(
    kind: &str,
    name: &str,
    uuid: &str,
    target: &str,
    current: Option<&str>,
) -> String {
    let from = current
        .filter(|c| !c.is_empty())
        .map(|c| {
            format!(
                " It is currently in environment {}.",
                sanitize_for_prompt(c)
            )
        })
        .unwrap_or_default();
    format!(
        "Move {kind} \"{}\" ({}) to environment {}?\n\nContainers are not affected and keep running.{from} From its next deployment onwards it will use the target environment's shared environment variables instead of its current ones, so check the target is the environment you mean. The move is reversible: moving it back is the same operation in the other direction.",
        sanitize_for_prompt(name),
        sanitize_for_prompt(uuid),
        sanitize_for_prompt(target)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_60_names_are_flattened_and_clamped() {
        assert_eq!(
            sanitize_for_prompt("a\nb  `*[x]*` \"q\" (p) #h my_app"),
            "a b x q p h my_app"
        );
        let long = "x".repeat(80);
        let s = sanitize_for_prompt(&long);
        assert_eq!(s.chars().count(), 64);
        assert!(s.ends_with('…'));
        let names: Vec<String> = (0..10).map(|i| format!("app{i}")).collect();
        assert_eq!(
            blast_radius("application", &names),
            "10 applications (app0, app1, app2, app3, app4, app5, app6, app7 and 2 more)"
        );
        assert_eq!(
            blast_radius("application", &["b".into(), "a".into()]),
            "2 applications (a, b)"
        );
    }
}
