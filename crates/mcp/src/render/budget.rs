//! Result budgets: how many bytes of one result of a server reach the model. A
//! tool's `toolLimits.<tool>.maxResultBytes` wins over the server's `maxResultBytes`, which
//! wins over the default the session derives from the model's context window
//! ([`default_result_bytes`]). Text beyond the budget is cut and kept behind a
//! `coyote-result://` handle, so nothing is lost ([`bound_text`]).
//!
//! Invariant: a budget never exceeds [`MAX_RESULT_BYTES`], the ceiling every result had
//! before budgets existed, and is never 0.

use std::collections::BTreeMap;

use coyote_protocol::{McpServerSpec, ResultLimits};

use super::text::page_text;
use super::{RenderContext, TOOL_RESULT_TEXT_CEILING_BYTES};

/// The largest budget (and the budget of `coyote mcp call/read`, which have none).
pub const MAX_RESULT_BYTES: usize = TOOL_RESULT_TEXT_CEILING_BYTES;
/// Share of the context window one result may take by default, in percent.
pub const DEFAULT_RESULT_SHARE_PERCENT: u64 = 10;
/// Bytes per token assumed when a window in tokens becomes a budget in bytes.
pub const RESULT_BYTES_PER_TOKEN: u64 = 4;

/// min([`MAX_RESULT_BYTES`], window × 4 × 10 %): the default budget for a model whose
/// context window is `window_tokens`.
pub fn default_result_bytes(window_tokens: u64) -> usize {
    let bytes =
        window_tokens.saturating_mul(RESULT_BYTES_PER_TOKEN) * DEFAULT_RESULT_SHARE_PERCENT / 100;
    usize::try_from(bytes)
        .unwrap_or(MAX_RESULT_BYTES)
        .clamp(1, MAX_RESULT_BYTES)
}

/// Where a server's budget comes from, for `coyote mcp servers` and `.info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetSource {
    /// The server's `maxResultBytes`.
    Server,
    /// The default (from the model's context window).
    Default,
}

/// The budgets of one session's servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultBudgets {
    default: usize,
    servers: BTreeMap<String, ResultLimits>,
}

impl Default for ResultBudgets {
    /// No per-server limits and the largest default: what `coyote mcp call/read` use.
    fn default() -> Self {
        ResultBudgets {
            default: MAX_RESULT_BYTES,
            servers: BTreeMap::new(),
        }
    }
}

impl ResultBudgets {
    /// The servers' own limits, with the largest default (set the model's with
    /// [`ResultBudgets::with_default`]).
    pub fn from_specs(specs: &[McpServerSpec]) -> Self {
        ResultBudgets {
            default: MAX_RESULT_BYTES,
            servers: specs
                .iter()
                .map(|s| (s.name.clone(), s.limits.clone()))
                .collect(),
        }
    }

    /// The default budget (clamped to 1..=[`MAX_RESULT_BYTES`]).
    pub fn with_default(mut self, bytes: usize) -> Self {
        self.default = bytes.clamp(1, MAX_RESULT_BYTES);
        self
    }

    /// Sets one server's limits (agents' own servers, tests).
    pub fn set(&mut self, server: impl Into<String>, limits: ResultLimits) {
        self.servers.insert(server.into(), limits);
    }

    /// The default budget.
    pub fn default_bytes(&self) -> usize {
        self.default
    }

    /// The budget of a result of `server` (of `tool`, for a tool call).
    pub fn for_call(&self, server: &str, tool: Option<&str>) -> usize {
        let limits = self.servers.get(server);
        let tool_limit = tool.and_then(|t| limits.and_then(|l| l.tools.get(t)));
        tool_limit
            .copied()
            .or_else(|| limits.and_then(|l| l.max_result_bytes))
            .and_then(|b| usize::try_from(b).ok())
            .map_or(self.default, |b| b.clamp(1, MAX_RESULT_BYTES))
    }

    /// The server's budget and where it comes from (tool limits aside).
    pub fn for_server(&self, server: &str) -> (usize, BudgetSource) {
        let own = self
            .servers
            .get(server)
            .and_then(|l| l.max_result_bytes)
            .is_some();
        let source = if own {
            BudgetSource::Server
        } else {
            BudgetSource::Default
        };
        (self.for_call(server, None), source)
    }

    /// The tools of `server` with a limit of their own, with it.
    pub fn tool_limits(&self, server: &str) -> BTreeMap<String, u64> {
        self.servers
            .get(server)
            .map(|l| l.tools.clone())
            .unwrap_or_default()
    }
}

/// The note after text cut at the budget: where the rest is (≤ 300 bytes for any server
/// name and handle).
pub(crate) fn continuation_note(
    shown: usize,
    total: usize,
    next: usize,
    handle: &str,
    read: &str,
) -> String {
    format!(
        "[coyote: truncated at {shown} of {total} bytes (the result budget). The rest: call \
         {read} with uri \"{handle}\" and offset {next}.]"
    )
}

/// `text` within the context's budget: unchanged when it fits, else its first page plus a
/// continuation note, the whole text kept behind a handle (or, when it cannot be kept, a note
/// saying so).
pub fn bound_text(text: String, ctx: &RenderContext<'_>) -> String {
    if text.len() <= ctx.max_result_bytes {
        return text;
    }
    let page = page_text(&text, 0, ctx.max_result_bytes);
    let next = page.next_offset.unwrap_or(page.total_bytes);
    let note = match ctx.spill.put_result_text(ctx.server, &text) {
        Ok(handle) => continuation_note(
            page.text.len(),
            page.total_bytes,
            next,
            &handle,
            ctx.read_function,
        ),
        Err(e) => format!(
            "[coyote: truncated at {} of {} bytes (the result budget); the rest could not be \
             kept ({e})]",
            page.text.len(),
            page.total_bytes
        ),
    };
    format!("{}\n{note}", page.text)
}
