//! Approval of tool calls before they run: which calls need the user's yes, the
//! front-end's [`Approver`] callback that asks, and the session's memory of "always for this
//! tool". Nothing is ever approved on the user's behalf: an approver that cannot ask refuses.
//!
//! Rule per server ([`ServerPolicy`], from mcp.json `approve` and `autoApprove`):
//! - a tool listed in `auto_approve` never asks;
//! - `destructive` (default) asks for tools that may be destructive: `destructiveHint` is true,
//!   or not given — the MCP spec's default, so a tool without annotations counts — unless
//!   `readOnlyHint: true`;
//! - `all` asks for every tool not annotated `readOnlyHint: true`;
//! - `never` never asks.
//!
//! When the server's tool list cannot be read, the annotations are unknown and every policy but
//! `never` asks (fail closed); a tool the list does not contain is not asked about (the server
//! will answer that it does not exist).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use coyote_protocol::{ApprovalPolicy, McpServerSpec};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One server's approval settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerPolicy {
    /// When the user must approve a call (`approve` in mcp.json).
    pub approve: ApprovalPolicy,
    /// Tools the user pre-approved (`autoApprove` / `alwaysAllow`).
    pub auto_approve: Vec<String>,
}

impl ServerPolicy {
    /// The settings of `spec`.
    pub fn from_spec(spec: &McpServerSpec) -> Self {
        ServerPolicy {
            approve: spec.approve,
            auto_approve: spec.auto_approve.clone(),
        }
    }
}

/// Policies by server name; servers not listed get the default (`destructive`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ApprovalPolicies {
    by_server: BTreeMap<String, ServerPolicy>,
}

impl ApprovalPolicies {
    /// The settings of every spec, by server name.
    pub fn from_specs(specs: &[McpServerSpec]) -> Self {
        ApprovalPolicies {
            by_server: specs
                .iter()
                .map(|s| (s.name.clone(), ServerPolicy::from_spec(s)))
                .collect(),
        }
    }

    /// Sets one server's settings.
    pub fn insert(&mut self, server: impl Into<String>, policy: ServerPolicy) {
        self.by_server.insert(server.into(), policy);
    }

    /// A server's settings (the default when not listed).
    pub fn get(&self, server: &str) -> ServerPolicy {
        self.by_server.get(server).cloned().unwrap_or_default()
    }
}

/// What is known about the tool's annotations.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolAnnotations {
    /// The server lists the tool with these annotations (`None`: it sets none).
    Listed(Option<Value>),
    /// The server's list does not contain the tool.
    NotListed,
    /// The list could not be read.
    Unknown,
}

/// Why the user is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalReason {
    /// The tool is annotated `destructiveHint: true` (and not `readOnlyHint: true`).
    Destructive,
    /// The tool does not say whether it is destructive (no `destructiveHint`, not read-only):
    /// the spec's default is destructive.
    Unannotated,
    /// The server's policy is `all` and the tool is not read-only.
    NotReadOnly,
    /// The server's tool list could not be read, so the tool's annotations are unknown.
    AnnotationsUnknown,
}

/// Whether `tool` needs approval under `policy`; `None` when it may run.
pub fn approval_reason(
    policy: &ServerPolicy,
    tool: &str,
    annotations: &ToolAnnotations,
) -> Option<ApprovalReason> {
    if policy.auto_approve.iter().any(|t| t == tool) {
        return None;
    }
    let hints = match annotations {
        ToolAnnotations::NotListed => return None,
        ToolAnnotations::Unknown => {
            return match policy.approve {
                ApprovalPolicy::Never => None,
                ApprovalPolicy::Destructive | ApprovalPolicy::All => {
                    Some(ApprovalReason::AnnotationsUnknown)
                }
            };
        }
        ToolAnnotations::Listed(hints) => hints.as_ref(),
    };
    // The spec's defaults: `readOnlyHint` false, `destructiveHint` true.
    let flag = |key: &str, default: bool| {
        hints
            .and_then(|h| h.get(key))
            .and_then(Value::as_bool)
            .unwrap_or(default)
    };
    let read_only = flag("readOnlyHint", false);
    let marked = hints.and_then(|h| h.get("destructiveHint")).is_some();
    let destructive = match (read_only, marked) {
        (true, _) => None,
        (false, true) if flag("destructiveHint", true) => Some(ApprovalReason::Destructive),
        (false, true) => None,
        (false, false) => Some(ApprovalReason::Unannotated),
    };
    match policy.approve {
        ApprovalPolicy::Never => None,
        ApprovalPolicy::Destructive => destructive,
        ApprovalPolicy::All if read_only => None,
        ApprovalPolicy::All => destructive.or(Some(ApprovalReason::NotReadOnly)),
    }
}

/// What the front-end is asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    /// The model's id of the call.
    pub call_id: String,
    /// The server that would run it.
    pub server: String,
    /// The tool it calls.
    pub tool: String,
    /// The tool's arguments as the model sent them.
    pub arguments: Value,
    /// Why the user is asked.
    pub reason: ApprovalReason,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApprovalDecision {
    /// Run it this once.
    Approve,
    /// Run it, and do not ask again for this tool of this server in this session.
    ApproveAlways,
    /// Do not run it. `note` (e.g. "non-interactive run; start coyote with --yes to allow")
    /// is added to the refusal the model receives.
    Refuse {
        /// Added to the refusal the model reads.
        note: Option<String>,
    },
}

/// Asks the user. Supplied by the front-end: the REPL prompts, one-shot answers from `--yes`.
/// Called one request at a time, in the order the model made the calls.
pub trait Approver: Send + Sync {
    /// Asks about one call; the future resolves with the user's answer.
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'_, ApprovalDecision>;
}

/// Refuses everything (front-ends that cannot ask).
#[derive(Debug, Clone, Default)]
pub struct RefuseAll {
    /// Added to every refusal the model reads.
    pub note: Option<String>,
}

impl Approver for RefuseAll {
    fn approve(&self, _request: ApprovalRequest) -> BoxFuture<'_, ApprovalDecision> {
        let note = self.note.clone();
        Box::pin(std::future::ready(ApprovalDecision::Refuse { note }))
    }
}

/// Approves everything: only for an explicit user choice such as `--yes`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

impl Approver for ApproveAll {
    fn approve(&self, _request: ApprovalRequest) -> BoxFuture<'_, ApprovalDecision> {
        Box::pin(std::future::ready(ApprovalDecision::Approve))
    }
}

/// Tools the user approved "always" in this session, as `(server, tool)`.
#[derive(Debug, Default)]
pub(crate) struct ApprovalMemory {
    always: Mutex<BTreeSet<(String, String)>>,
}

impl ApprovalMemory {
    pub(crate) fn is_always(&self, server: &str, tool: &str) -> bool {
        self.lock().contains(&(server.to_owned(), tool.to_owned()))
    }

    pub(crate) fn remember(&self, server: &str, tool: &str) {
        self.lock().insert((server.to_owned(), tool.to_owned()));
    }

    pub(crate) fn snapshot(&self) -> Vec<(String, String)> {
        self.lock().iter().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<(String, String)>> {
        self.always.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The tool result the model gets for a refused call.
pub(crate) fn refusal_text(server: &str, tool: &str, note: Option<&str>) -> String {
    let mut text = format!(
        "The user did not approve running tool `{tool}` on MCP server `{server}`, so it was not \
         run. Do not call it again in this turn; tell the user what you wanted to do and why, so \
         they can decide."
    );
    if let Some(note) = note {
        text.push_str(" (");
        text.push_str(note);
        text.push(')');
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn policy(approve: ApprovalPolicy) -> ServerPolicy {
        ServerPolicy {
            approve,
            auto_approve: vec!["trusted".into()],
        }
    }

    #[test]
    fn the_policy_table() {
        use ApprovalPolicy::{All, Destructive, Never};
        use ApprovalReason as R;
        let destructive = ToolAnnotations::Listed(Some(json!({"destructiveHint": true})));
        let read_only = ToolAnnotations::Listed(Some(json!({"readOnlyHint": true})));
        let both =
            ToolAnnotations::Listed(Some(json!({"destructiveHint": true, "readOnlyHint": true})));
        let plain = ToolAnnotations::Listed(None);
        let safe = ToolAnnotations::Listed(Some(json!({"destructiveHint": false})));
        let cases = [
            (Destructive, "wipe", &destructive, Some(R::Destructive)),
            (Destructive, "trusted", &destructive, None),
            (Destructive, "read", &read_only, None),
            (Destructive, "odd", &both, None),
            // No annotations: the spec's default is destructive.
            (Destructive, "plain", &plain, Some(R::Unannotated)),
            (Destructive, "safe", &safe, None),
            (Destructive, "ghost", &ToolAnnotations::NotListed, None),
            (
                Destructive,
                "x",
                &ToolAnnotations::Unknown,
                Some(R::AnnotationsUnknown),
            ),
            (All, "plain", &plain, Some(R::Unannotated)),
            (All, "safe", &safe, Some(R::NotReadOnly)),
            (All, "wipe", &destructive, Some(R::Destructive)),
            (All, "read", &read_only, None),
            (All, "trusted", &plain, None),
            (
                All,
                "x",
                &ToolAnnotations::Unknown,
                Some(R::AnnotationsUnknown),
            ),
            (Never, "wipe", &destructive, None),
            (Never, "x", &ToolAnnotations::Unknown, None),
        ];
        for (approve, tool, annotations, expected) in cases {
            assert_eq!(
                approval_reason(&policy(approve), tool, annotations),
                expected,
                "{approve:?} {tool} {annotations:?}"
            );
        }
    }

    #[test]
    fn memory_is_per_server_and_tool() {
        let memory = ApprovalMemory::default();
        memory.remember("fs", "write");
        assert!(memory.is_always("fs", "write"));
        assert!(!memory.is_always("git", "write"));
        assert_eq!(memory.snapshot(), vec![("fs".into(), "write".into())]);
    }
}
