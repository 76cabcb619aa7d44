//! Deployments: `list_deployments` and `deploy`, including waiting for a terminal status
//! with progress notifications — or, as an MCP task, handing the wait to `tasks` with the
//! same answer at the end. The `deployment` tool is in `deployment.rs`.
//!
//! Invariants: the poll interval and the deadline come from [`crate::call_ctx::Timing`],
//! so tests inject them instead of waiting on the clock; `timeout_seconds` is range-checked
//! before the deploy is triggered (it becomes a [`Duration`], and `1e300` must never reach
//! `Duration::from_secs_f64` after the POST went out).

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::deployment::{deployment_actions, fetch, truncate_logs};
use super::resolve::looks_like_uuid;
use super::{Args, ToolError, ToolOutput, ToolResult, envelope, envelope_in};
use crate::backend::{HttpMethod, Path};
use crate::call_ctx::{CallCtx, Mode};
use crate::follow::{DeployWait, Pending, terminal};
use crate::instances::Client;
use crate::projection::{self as proj, action, str_of, truthy};
use crate::untrusted::{self, BOUNDARY_CHARS};

/// Longest `deploy` wait accepted (one day).
pub const MAX_DEPLOY_WAIT_SECS: f64 = 86_400.0;

pub async fn list_deployments(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let (page, per_page) = (args.num("page"), args.num("per_page"));
    let v = ctx
        .client
        .get_query(Path::new("deployments"), &args.paging())
        .await?;
    let v = if v.is_array() {
        proj::pick_all(&v, proj::DEPLOYMENT_LIST)
    } else {
        v
    };
    let count = v.as_array().map_or(0, Vec::len);
    let pagination = proj::pagination("list_deployments", page, per_page, count);
    Ok(envelope(ctx, v, Vec::new(), pagination))
}

/// `POST /deploy?uuid=<v>&force=<b>` (or `?tag=`), the value encoded like the reference's
/// `encodeURIComponent` (a space is `%20`).
pub(super) async fn trigger(
    client: &Client,
    tag_or_uuid: &str,
    force: bool,
) -> Result<Value, crate::backend::ApiError> {
    let param = if looks_like_uuid(tag_or_uuid) {
        "uuid"
    } else {
        "tag"
    };
    let path = Path::new("deploy")
        .query_component(param, tag_or_uuid)
        .query_opt("force", Some(force.to_string()));
    client.write(HttpMethod::Post, path, None).await
}

/// `deploy`. As a task (the client declared the tasks extension) it always waits: the task is
/// the wait, and its answer is the one `wait: true` gives.
pub async fn deploy(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let tag_or_uuid = args.str("tag_or_uuid").unwrap_or_default();
    let force = args.bool("force").unwrap_or(false);
    if ctx.follow.is_none() && !args.0.get("wait").is_some_and(truthy) {
        let r = trigger(&ctx.client, tag_or_uuid, force).await?;
        let actions = vec![action(
            "list_deployments",
            json!({}),
            "Check deployment status",
        )];
        return Ok(envelope(ctx, r, actions, None));
    }
    let timeout_s = args.num("timeout_seconds").unwrap_or(300.0);
    // Checked before the POST, which is the side effect.
    if !timeout_s.is_finite() || timeout_s > MAX_DEPLOY_WAIT_SECS {
        return Ok(ToolOutput::guard(
            "Error: timeout_seconds must be at most 86400 (one day); nothing was deployed.",
        ));
    }
    let triggered = trigger(&ctx.client, tag_or_uuid, force).await?;
    let deployments = triggered
        .get("deployments")
        .map(proj::as_array)
        .unwrap_or(&[]);
    let Some(first) = deployments
        .first()
        .and_then(|d| d.get("deployment_uuid"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    else {
        return Ok(envelope(ctx, triggered, Vec::new(), None));
    };
    let first = first.to_string();
    let additional: Vec<Value> = deployments
        .iter()
        .skip(1)
        .filter_map(|d| d.get("deployment_uuid"))
        .filter(|u| truthy(u))
        .cloned()
        .collect();
    // Range-checked above; the checked conversion keeps clippy.toml's disallowed-methods clean.
    let deadline = ctx.timing.deploy_deadline.unwrap_or_else(|| {
        Duration::try_from_secs_f64(timeout_s.max(0.0)).unwrap_or(Duration::ZERO)
    });
    if let Some(slot) = ctx.follow {
        let mut cancel = vec![first.clone()];
        cancel.extend(
            additional
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string),
        );
        slot.set(Pending {
            watch: vec![first],
            cancel,
            deadline,
            deploy: Some(DeployWait {
                additional,
                timeout_s,
            }),
        });
        // Replaced by the task's answer.
        return Ok(ToolOutput::Text(String::new()));
    }
    let result = poll(ctx, &first, deadline, timeout_s).await?;
    Ok(waited(ctx.mode, result, additional))
}

/// The answer of a waited `deploy` from the first deployment's summary.
pub fn waited(mode: Mode, mut result: Value, additional: Vec<Value>) -> ToolOutput {
    if !additional.is_empty() {
        result["additional_deployment_uuids"] = Value::Array(additional);
    }
    let actions = if result.get("deployment_uuid").is_some() {
        deployment_actions(
            result.get("deployment_uuid"),
            str_of(&result, "status"),
            result.get("application_uuid"),
        )
    } else {
        Vec::new()
    };
    envelope_in(mode, result, actions, None)
}

fn duration_seconds(created: &Value, updated: &Value) -> Option<i64> {
    let parse = |v: &Value| v.as_str().and_then(parse_epoch_seconds);
    let (a, b) = (parse(created)?, parse(updated)?);
    Some(((b - a).max(0.0)).round() as i64)
}

/// Seconds since the epoch of an ISO-8601 timestamp (`YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]`).
fn parse_epoch_seconds(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    if b.len() < 19 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d, h, mi, se) = (
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
        num(17..19)?,
    );
    let (y2, m2) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * m2 + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let mut rest = &s[19..];
    let mut frac = 0.0;
    if let Some(r) = rest.strip_prefix('.') {
        let digits: String = r.chars().take_while(char::is_ascii_digit).collect();
        frac = format!("0.{digits}").parse().unwrap_or(0.0);
        rest = &r[digits.len()..];
    }
    let offset = match rest {
        "" | "Z" => 0,
        o if o.len() == 6 => {
            let sign = if o.starts_with('-') { -1 } else { 1 };
            sign * (o[1..3].parse::<i64>().ok()? * 3600 + o[4..6].parse::<i64>().ok()? * 60)
        }
        _ => return None,
    };
    Some((days * 86_400 + h * 3600 + mi * 60 + se - offset) as f64 + frac)
}

async fn poll(
    ctx: &CallCtx<'_>,
    uuid: &str,
    deadline: Duration,
    timeout_s: f64,
) -> Result<Value, ToolError> {
    let started = tokio::time::Instant::now();
    let mut current = fetch(&ctx.client, uuid).await?;
    let mut step = 0.0;
    while !terminal(str_of(&current, "status")) && started.elapsed() < deadline {
        step += 1.0;
        ctx.notify_progress(
            step,
            format!("deployment {uuid}: {}", str_of(&current, "status")),
        )
        .await;
        tokio::select! {
            _ = tokio::time::sleep(ctx.timing.deploy_poll_interval) => {}
            _ = ctx.cancel.cancelled() => return Err(ToolError::Message("the tool call was cancelled".into())),
        }
        current = fetch(&ctx.client, uuid).await?;
    }
    Ok(summary(&current, uuid, timeout_s))
}

/// What a waited `deploy` reports of deployment `uuid` in its last-read state `current`.
pub fn summary(current: &Value, uuid: &str, timeout_s: f64) -> Value {
    let status = str_of(current, "status").to_string();
    // Keys the deployment lacks are left out (JS `undefined`), never `null`.
    let mut out = Map::new();
    if let Some(s) = current.get("status") {
        out.insert("status".into(), s.clone());
    }
    out.insert("deployment_uuid".into(), json!(uuid));
    if let Some(a) = current.get("application_uuid") {
        out.insert("application_uuid".into(), a.clone());
    }
    if !terminal(&status) {
        out.insert("timed_out".into(), json!(true));
        let secs = crate::json::compact(&json!(timeout_s));
        // As the reference interpolates `current.status`: a missing status reads "undefined".
        let shown = current
            .get("status")
            .map_or_else(|| "undefined".to_string(), crate::json::js_string);
        out.insert("next_action".into(), json!(format!("Still \"{shown}\" after {secs}s — poll `deployment` (action: \"get\", uuid: \"{uuid}\") to keep watching.")));
        return Value::Object(out);
    }
    for k in ["commit", "created_at", "updated_at"] {
        if let Some(v) = current.get(k) {
            out.insert(k.into(), v.clone());
        }
    }
    if let Some(d) = duration_seconds(&current["created_at"], &current["updated_at"]) {
        out.insert("duration_seconds".into(), json!(d));
    }
    if status == "failed" {
        if let Some(logs) = current.get("logs").filter(|l| truthy(l)) {
            let text = logs
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| logs.to_string());
            let tail = truncate_logs(&text, 30, 10_000 - BOUNDARY_CHARS, 1);
            out.insert("logs_tail".into(), json!(untrusted::wrap(&tail.logs)));
            out.insert("logs_meta".into(), tail.meta());
        }
        out.insert("next_action".into(), json!(format!("Deployment failed. See logs_tail above, or `deployment` (action: \"get\", uuid: \"{uuid}\", lines: N) for more.")));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_whole_seconds_between_timestamps() {
        assert_eq!(
            duration_seconds(
                &json!("2024-01-01T00:00:00Z"),
                &json!("2024-01-01T00:01:30.000000Z")
            ),
            Some(90)
        );
    }

    #[test]
    fn a_timed_out_wait_names_the_status_as_the_reference_interpolates_it() {
        let next = |current: Value| summary(&current, "dep-1", 2.0)["next_action"].clone();
        let tail =
            "after 2s — poll `deployment` (action: \"get\", uuid: \"dep-1\") to keep watching.";
        assert_eq!(
            next(json!({"status": "in_progress"})),
            json!(format!("Still \"in_progress\" {tail}"))
        );
        assert_eq!(
            next(json!({})),
            json!(format!("Still \"undefined\" {tail}"))
        );
        assert_eq!(
            next(json!({"status": null})),
            json!(format!("Still \"null\" {tail}"))
        );
    }
}
