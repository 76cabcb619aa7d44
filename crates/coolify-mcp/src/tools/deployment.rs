//! The `deployment` tool: `get` with the paginated, truncated log tail,
//! `cancel` and `list_for_app` — and the log truncation shared with `deploy`'s failure tail.
//!
//! Invariant: page and line counts from outside are computed in saturating 128-bit
//! integers with the reference's JS semantics (a page past the end is a negative end index that `slice`
//! counts from the back), so no input can overflow or index out of range.

use serde_json::{Map, Value, json};

use super::{Args, ToolError, ToolOutput, ToolResult, envelope};
use crate::backend::{HttpMethod, Path};
use crate::call_ctx::CallCtx;
use crate::instances::Client;
use crate::projection::{self as proj, action, str_of, truthy};
use crate::untrusted::{self, BOUNDARY_CHARS, utf16_len};

const TRUNCATION_PREFIX: &str = "...[truncated]...\n";

/// `_actions` of a deployment.
pub(super) fn deployment_actions(
    uuid: Option<&Value>,
    status: &str,
    app_uuid: Option<&Value>,
) -> Vec<Value> {
    let mut actions = Vec::new();
    if status == "in_progress" || status == "queued" {
        let mut args = json!({"action": "cancel"});
        if let Some(u) = uuid.filter(|u| !u.is_null()) {
            args["uuid"] = u.clone();
        }
        actions.push(action("deployment", args, "Cancel"));
    }
    if let Some(app) = app_uuid.filter(|a| truthy(a)) {
        actions.push(action("get_application", json!({"uuid": app}), "View app"));
        actions.push(action(
            "logs",
            json!({"resource": "application", "uuid": app}),
            "App logs",
        ));
    }
    actions
}

/// `GET /deployments/{uuid}`, masked.
pub(super) async fn fetch(client: &Client, uuid: &str) -> Result<Value, crate::backend::ApiError> {
    client.get(Path::new("deployments").id(uuid)).await
}

/// A page of log lines.
pub struct Truncated {
    pub logs: String,
    pub total: usize,
    /// 1-based first entry shown.
    pub start: i128,
    /// Last entry shown (`min(end, total)`: negative for a page past the end, as in JS).
    pub end: i128,
}

impl Truncated {
    pub fn meta(&self) -> Value {
        json!({"total_entries": self.total, "showing": format!("{}-{} of {}", self.start, self.end, self.total)})
    }
}

/// The entries of a log: a JSON array of `{timestamp, output, hidden}` (hidden dropped) or
/// plain lines.
fn entries(logs: &str) -> Vec<String> {
    match serde_json::from_str::<Value>(logs) {
        Ok(Value::Array(entries)) => entries
            .iter()
            .filter(|e| !e.get("hidden").is_some_and(truthy))
            .map(|e| {
                let field = |k: &str| match e.get(k) {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => crate::json::compact(other),
                };
                format!("[{}] {}", field("timestamp"), field("output"))
            })
            .collect(),
        _ => logs.split('\n').map(str::to_string).collect(),
    }
}

/// JS `array.slice(start, end)` bounds for `start >= 0` and any `end`.
fn js_slice(len: usize, start: i128, end: i128) -> (usize, usize) {
    let len_i = len as i128;
    let end = if end < 0 {
        (len_i + end).max(0)
    } else {
        end.min(len_i)
    };
    let start = start.min(len_i);
    // Both clamped to 0..=len above.
    (start as usize, end.max(start) as usize)
}

/// Newest `lines` entries of page `page` (1 = newest), within `char_limit` UTF-16 units.
pub fn truncate_logs(logs: &str, lines: u64, char_limit: usize, page: u64) -> Truncated {
    let all = entries(logs);
    let total = all.len();
    let (lines_i, page_i) = (i128::from(lines), i128::from(page));
    let end = (total as i128).saturating_sub((page_i - 1).saturating_mul(lines_i));
    let start = end.saturating_sub(lines_i).max(0);
    let (from, to) = js_slice(total, start, end);
    let mut result = all[from..to].join("\n");
    if utf16_len(&result) > char_limit {
        let keep = char_limit.saturating_sub(TRUNCATION_PREFIX.len());
        let units: Vec<u16> = result.encode_utf16().collect();
        let tail = String::from_utf16_lossy(&units[units.len().saturating_sub(keep)..]);
        result = format!("{TRUNCATION_PREFIX}{tail}");
    }
    Truncated {
        logs: result,
        total,
        start: start + 1,
        end: end.min(total as i128),
    }
}

/// A `deployment` call's page of the tool (`{tool: deployment, args: {…, page}}`).
fn page_link(uuid: &str, lines: f64, page: f64) -> Value {
    json!({"tool": "deployment", "args": {"action": "get", "uuid": uuid, "lines": lines, "page": page}})
}

/// `deployment get`: the essential projection, plus the wrapped log page when `lines`.
async fn get(args: &Args, ctx: &CallCtx<'_>, uuid: &str) -> ToolResult {
    let raw = fetch(&ctx.client, uuid).await?;
    let mut dep = proj::deployment_essential(&raw);
    let mut pagination = None;
    if let Some(lines) = args.num("lines") {
        let page = args.num("page").unwrap_or(1.0);
        let (ll, p) = (lines.max(0.0) as u64, page.max(1.0) as u64);
        let mut pg = Map::new();
        if let Some(logs) = raw.get("logs").filter(|l| truthy(l)) {
            let text = logs
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| logs.to_string());
            let max_chars = args.num("max_chars").unwrap_or(50_000.0);
            let budget = (max_chars - BOUNDARY_CHARS as f64)
                .max(500.0)
                .min(usize::MAX as f64) as usize;
            let t = truncate_logs(&text, ll, budget, p);
            dep["logs"] = json!(untrusted::wrap(&t.logs));
            dep["logs_meta"] = t.meta();
            if i128::from(p).saturating_mul(i128::from(ll)) < t.total as i128 {
                pg.insert("next".into(), page_link(uuid, lines, page + 1.0));
            }
        }
        if p > 1 {
            pg.insert("prev".into(), page_link(uuid, lines, page - 1.0));
        }
        pagination = (!pg.is_empty()).then_some(Value::Object(pg));
    }
    let actions = deployment_actions(
        dep.get("uuid"),
        str_of(&dep, "status"),
        dep.get("application_uuid"),
    );
    Ok(envelope(ctx, dep, actions, pagination))
}

/// `deployment list_for_app`: `{count, deployments}` of essential rows, `?skip=&take=` only
/// when paging was asked for.
async fn list_for_app(args: &Args, ctx: &CallCtx<'_>, uuid: &str) -> ToolResult {
    let (page, per_page) = (args.num("page"), args.num("per_page"));
    let include_logs = args.truthy("include_logs");
    let mut q: Vec<(&str, Option<String>)> = Vec::new();
    if page.is_some() || per_page.is_some() {
        let p = page.unwrap_or(1.0).max(1.0);
        let pp = per_page.unwrap_or(10.0).max(1.0);
        q.push(("skip", Some(crate::json::compact(&json!((p - 1.0) * pp)))));
        q.push(("take", Some(crate::json::compact(&json!(pp)))));
    }
    let env = ctx
        .client
        .get_query(Path::new("deployments").lit("applications").id(uuid), &q)
        .await?;
    let deps = env.get("deployments").map(proj::as_array).unwrap_or(&[]);
    let count = env
        .get("count")
        .filter(|c| c.is_number())
        .cloned()
        .unwrap_or(json!(deps.len()));
    let rows: Vec<Value> = deps
        .iter()
        .map(|d| {
            let mut e = proj::deployment_essential(d);
            if include_logs && let Some(l) = d.get("logs").filter(|l| truthy(l)) {
                e["logs"] = match l.as_str() {
                    Some(s) => json!(untrusted::wrap(s)),
                    None => l.clone(),
                };
            }
            e
        })
        .collect();
    Ok(ToolOutput::Json(
        json!({"count": count, "deployments": rows}),
    ))
}

pub async fn deployment(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let uuid = args.str("uuid").unwrap_or_default();
    match args.str("action").unwrap_or("get") {
        "get" => get(args, ctx, uuid).await,
        "cancel" => Ok(ToolOutput::Json(
            ctx.client
                .write(
                    HttpMethod::Post,
                    Path::new("deployments").id(uuid).lit("cancel"),
                    None,
                )
                .await?,
        )),
        "list_for_app" => list_for_app(args, ctx, uuid).await,
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_pages_from_the_newest_entry() {
        let logs = "a\nb\nc\nd\ne";
        let t = truncate_logs(logs, 2, 1000, 1);
        assert_eq!(
            (t.logs.as_str(), t.total, t.start, t.end),
            ("d\ne", 5, 4, 5)
        );
        let t = truncate_logs(logs, 2, 1000, 2);
        assert_eq!((t.logs.as_str(), t.start, t.end), ("b\nc", 2, 3));
        let json_logs =
            r#"[{"timestamp":"t1","output":"x"},{"hidden":true,"output":"h"},{"output":"y"}]"#;
        assert_eq!(truncate_logs(json_logs, 10, 1000, 1).logs, "[t1] x\n[] y");
        // A page past the end: JS `slice` counts a negative end from the back.
        let t = truncate_logs(logs, 2, 1000, 4);
        assert_eq!((t.logs.as_str(), t.start, t.end), ("a\nb\nc\nd", 1, -1));
        let t = truncate_logs(logs, u64::MAX, 1000, u64::MAX);
        assert_eq!((t.logs.as_str(), t.start), ("", 1));
    }
}
