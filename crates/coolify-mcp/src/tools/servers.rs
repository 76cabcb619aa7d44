//! Server tools besides `list_servers`/`get_server`:
//! `server_resources`, `server_domains`, `list_destinations` and `validate_server`.
//!
//! Invariant: `validate_server` is the only write here; it goes through the legacy
//! POST→GET fallback exactly like `diagnose_server`'s probe.

use super::{Args, ToolOutput, ToolResult};
use crate::backend::Path;
use crate::call_ctx::CallCtx;

fn uuid(args: &Args) -> &str {
    args.str("uuid").unwrap_or_default()
}

pub async fn server_resources(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let path = Path::new("servers").id(uuid(args)).lit("resources");
    Ok(ToolOutput::Json(ctx.client.get(path).await?))
}

pub async fn server_domains(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let path = Path::new("servers").id(uuid(args)).lit("domains");
    Ok(ToolOutput::Json(ctx.client.get(path).await?))
}

/// `GET /servers/{server_uuid}/destinations`, or the team-wide `GET /destinations` (v4.2+)
/// when no (non-empty) server is given.
pub async fn list_destinations(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let path = match args.nonempty("server_uuid") {
        Some(server) => Path::new("servers").id(server).lit("destinations"),
        None => Path::new("destinations"),
    };
    Ok(ToolOutput::Json(ctx.client.get(path).await?))
}

/// `POST /servers/{uuid}/validate`, `GET` on instances before v4.2.
pub async fn validate_server(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let path = Path::new("servers").id(uuid(args)).lit("validate");
    Ok(ToolOutput::Json(
        ctx.client.post_with_get_fallback(path).await?,
    ))
}
