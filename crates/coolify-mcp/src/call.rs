//! One `tools/call`: schema validation, argument ordering, instance resolution, the
//! [`CallCtx`] (including which confirmation path the request's protocol revision takes),
//! dispatch, the `input_required` answer of a 2026-07-28 round one, the task answer of a call
//! that started Coolify deployments for a client of the tasks extension, and the audit line.
//!
//! Top floor beside `server` (which delegates here); imports the tools, never imported by
//! them.
//!
//! Invariants:
//! - exactly one audit line per call when auditing is on, including schema failures and
//!   unknown instances; it never holds arguments or results (see `audit`);
//! - tool handler failures are `Error: …` text results without `isError`, except when
//!   Coolify could not be reached (connection failure or timeout): `isError: true`; unknown or
//!   unregistered tools are JSON-RPC -32602 `Tool <name> not found`;
//! - a 2026-07-28 request (its own `_meta` names the revision) takes the modern confirmation
//!   path; every other request the legacy one;
//! - a call answers with a task only when its client declared the tasks extension and a
//!   handler handed deployments over (after Coolify accepted the operation); every other
//!   call's answer is built exactly as before.

use std::time::Instant;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};

use crate::audit::{AuditLine, Outcome};
use crate::call_ctx::{
    CallCtx, CallRecord, Confirmation, Guard, ModernRound, Round, StatelessRequest,
};
use crate::follow::{FollowSlot, Pending};
use crate::instances::Client;
use crate::shared::Shared;
use crate::tasks::{self, Follow, Owner};
use crate::tools::{self, Args, ToolName};

/// The OAuth client a request was authorised for; the HTTP layer puts it in the request's
/// extensions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthClient(pub String);

/// The Coolify token of the user an OAuth grant was issued to; the HTTP layer puts it in the
/// request's extensions. Tool calls under the grant use it instead of the server's token.
#[derive(Clone, PartialEq, Eq)]
pub struct SignedInToken(pub String);

impl std::fmt::Debug for SignedInToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SignedInToken(<redacted>)")
    }
}

/// The signed-in user's Coolify token of this request, when it came under an OAuth grant.
pub fn signed_in_token(context: &RequestContext<RoleServer>) -> Option<String> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<SignedInToken>())
        .map(|t| t.0.clone())
}

fn stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .is_some_and(|parts| parts.extensions.get::<StatelessRequest>().is_some())
}

fn oauth_client(context: &RequestContext<RoleServer>) -> Option<String> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<AuthClient>())
        .map(|c| c.0.clone())
}

/// Run one `tools/call`.
pub async fn call_tool(
    shared: &Shared,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let started = Instant::now();
    let name = request.name.as_ref();
    let tool = ToolName::parse(name)
        .filter(|t| shared.tools.has(*t))
        .ok_or_else(|| {
            ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                format!("Tool {name} not found"),
                None,
            )
        })?;
    let mut args = request.arguments.clone().unwrap_or_default();
    let client_id = oauth_client(&context);
    let record = CallRecord::default();
    let mut instance_name = None;
    let mut unreachable_coolify = false;
    let schema = tools::input_schema(shared.tool_definitions(), name).unwrap_or_default();
    if let Err(text) = tools::validate(name, &schema, &args) {
        let inputs = AuditInputs {
            name,
            args: &args,
            started,
            instance: None,
            client_id: client_id.as_deref(),
        };
        audit_outcome(
            shared,
            &inputs,
            Outcome::Error,
            Some(crate::audit::Reason::Validation),
            None,
        );
        return Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into());
    }
    args = ordered(&schema, args);
    let audit_args = args.clone();
    let requested = if shared.mode.fleet {
        args.shift_remove("instance")
            .and_then(|v| v.as_str().map(str::to_string))
    } else {
        None
    };
    // Offered only to clients that declared the tasks extension (on this request or at
    // `initialize`), while the store has room: a handler that started Coolify deployments
    // fills it.
    let slot = FollowSlot::default();
    let may_task = context
        .client_capabilities()
        .is_some_and(|c| c.supports_tasks())
        && !shared.tasks.full();
    let mut follow_client = None;
    let text = match shared.instances.resolve(requested.as_deref()) {
        Err(e) => format!("Error: {e}"),
        Ok(instance) => {
            if shared.mode.fleet {
                instance_name = Some(instance.name().to_string());
            }
            let ctx = CallCtx {
                client: instance.client(),
                instance,
                instances: &shared.instances,
                mode: shared.mode,
                timing: &shared.timing,
                confirmation: Confirmation {
                    elicitation: shared.elicitation,
                    human: shared.human,
                },
                peer: context.peer.clone(),
                progress: context.meta.get_progress_token(),
                cancel: context.ct.clone(),
                client_can_elicit: context
                    .client_capabilities()
                    .is_some_and(|c| c.elicitation.is_some()),
                stateless: stateless(&context),
                round: round(shared, &request, &context, client_id.as_deref()),
                record: &record,
                follow: may_task.then_some(&slot),
            };
            follow_client = Some(ctx.client.clone());
            match tools::dispatch(tool, &Args(args), &ctx).await {
                Ok(out) => out.render(),
                Err(e) => {
                    unreachable_coolify =
                        matches!(&e, tools::ToolError::Api(api) if api.unreachable);
                    format!("Error: {e}")
                }
            }
        }
    };
    let args = audit_args;
    let inputs = AuditInputs {
        name,
        args: &args,
        started,
        instance: instance_name.as_deref(),
        client_id: client_id.as_deref(),
    };
    let guard = record.take();
    if let Some(Guard::Awaiting(input_required)) = guard {
        audit_outcome(shared, &inputs, Outcome::AwaitingConfirmation, None, None);
        return Ok(CallToolResponse::InputRequired(*input_required));
    }
    let (outcome, reason, confirmation) = match guard {
        Some(Guard::Refused(reason)) => (Outcome::Refused, Some(reason), None),
        Some(Guard::Ran(how)) if !text.starts_with("Error:") => (Outcome::Ok, None, Some(how)),
        Some(Guard::Ran(how)) => (Outcome::Error, None, Some(how)),
        _ if text.starts_with("Error:") => (Outcome::Error, None, None),
        _ => (Outcome::Ok, None, None),
    };
    audit_outcome(shared, &inputs, outcome, reason, confirmation);
    // No `isError: false`: the reference omits the field on every handler answer. Coolify out
    // of reach is the exception: the call did not happen at all, so it is a tool error.
    let answer = tasks::tool_result(text, unreachable_coolify);
    Ok(match (slot.take(), follow_client) {
        (Some(pending), Some(client)) => task(shared, pending, answer, client, &context),
        _ => answer.into(),
    })
}

/// A task following the deployments a handler handed over, settling with `answer` (or, for
/// `deploy`, the waited answer).
fn task(
    shared: &Shared,
    pending: Pending,
    answer: CallToolResult,
    client: Client,
    context: &RequestContext<RoleServer>,
) -> CallToolResponse {
    let session = !stateless(context) && !modern(context);
    let follow = Follow {
        client,
        interval: shared.timing.deploy_poll_interval,
        mode: shared.mode,
        owner: task_owner(context),
        notify: session.then(|| context.peer.clone()),
    };
    CallToolResponse::Task(shared.tasks.start(pending, answer, follow))
}

/// Who may read and cancel the tasks this request creates (its OAuth client and signed-in
/// user).
pub fn task_owner(context: &RequestContext<RoleServer>) -> Owner {
    Owner::new(
        oauth_client(context).as_deref(),
        signed_in_token(context).as_deref(),
    )
}

/// Whether the request speaks 2026-07-28 or later (its own `_meta` names the revision).
fn modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The reference's schema layer (zod) rebuilds the arguments in schema order and drops
/// unknown properties: request bodies built from "every argument" keep that order, and
/// nothing outside the schema (e.g. `instance` in single mode) is ever forwarded.
fn ordered(schema: &Map<String, Value>, mut args: Map<String, Value>) -> Map<String, Value> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return args;
    };
    let mut out = Map::new();
    for key in props.keys() {
        if let Some(v) = args.shift_remove(key) {
            out.insert(key.clone(), v);
        }
    }
    out
}

struct AuditInputs<'a> {
    name: &'a str,
    args: &'a Map<String, Value>,
    started: Instant,
    instance: Option<&'a str>,
    client_id: Option<&'a str>,
}

/// The confirmation path of this request: modern when its protocol revision is 2026-07-28 or
/// later.
fn round<'a>(
    shared: &'a Shared,
    request: &'a CallToolRequestParams,
    context: &RequestContext<RoleServer>,
    client_id: Option<&str>,
) -> Round<'a> {
    if !modern(context) {
        return Round::Legacy;
    }
    Round::Modern(ModernRound {
        responses: request.input_responses.as_ref(),
        state: request.request_state.as_deref(),
        seal: &shared.seal,
        binding: format!("tools/call {}", client_id.unwrap_or("")),
    })
}

fn audit_outcome(
    shared: &Shared,
    inputs: &AuditInputs<'_>,
    outcome: Outcome,
    reason: Option<crate::audit::Reason>,
    confirmation: Option<crate::audit::Confirmation>,
) {
    if !shared.audit.enabled() {
        return;
    }
    shared.audit.write(&AuditLine {
        tool: inputs.name,
        args: inputs.args,
        outcome,
        duration_ms: inputs.started.elapsed().as_millis(),
        instance: inputs.instance,
        reason,
        client_id: inputs.client_id,
        confirmation,
    });
}
