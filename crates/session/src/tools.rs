//! What the model may call: the gated meta-function declarations of the selected servers, and
//! the mapping of a called name back to its server (and, for invoke, its tool).
//!
//! Ready servers are declared direct or through meta-functions per their exposure (issue 7;
//! the dispatcher decides and keeps the name table, so [`CallTarget::of`] and dispatch resolve
//! a direct `<server>__<tool>` name the same way).
//!
//! Servers still starting or failed keep their always-on functions (search, describe, and
//! invoke by D7's fail-open rule) so the model can see them and a call answers with the
//! server's state ("starting", "failed: … stderr: …") instead of the server vanishing. Ready
//! servers are gated by their live features (`McpRuntime::server_features`, D7/R15). Closed
//! servers are left out. Selection works on server names only (R12).

use coyote_mcp::meta::MetaDispatcher;
use coyote_mcp::{FunctionTarget, McpRuntime, McpServerFeatures, MetaKind, ServerState};
use coyote_protocol::FunctionDeclaration;
use serde_json::Value;

/// Which of the runtime's servers the model may use.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ServerSelection {
    /// Every server of the runtime (the default: every configured server is enabled).
    #[default]
    All,
    /// Exactly these names (aliases already expanded); empty = none.
    Only(Vec<String>),
}

impl ServerSelection {
    pub fn includes(&self, server: &str) -> bool {
        match self {
            ServerSelection::All => true,
            ServerSelection::Only(names) => names.iter().any(|n| n == server),
        }
    }
}

/// A selected server that is not Ready, for the turn's warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotReady {
    pub(crate) server: String,
    pub(crate) state: ServerState,
}

/// The declarations for one request and the selected servers that are not Ready.
pub(crate) async fn declarations(
    runtime: &McpRuntime,
    dispatcher: &MetaDispatcher,
    selection: &ServerSelection,
) -> (Vec<FunctionDeclaration>, Vec<NotReady>) {
    let ready = runtime.server_features();
    let mut features = Vec::new();
    let mut not_ready = Vec::new();
    for status in runtime.statuses() {
        if !selection.includes(&status.name) {
            continue;
        }
        match status.state {
            ServerState::Ready => {
                if let Some(f) = ready.iter().find(|f| f.name == status.name) {
                    features.push(f.clone());
                }
            }
            ServerState::Closed => {}
            state @ (ServerState::Starting | ServerState::Failed(_)) => {
                // Unknown capabilities: declare what D7 declares without a handshake result.
                features.push(McpServerFeatures {
                    name: status.name.clone(),
                    peer_info_missing: true,
                    ..McpServerFeatures::default()
                });
                not_ready.push(NotReady {
                    server: status.name,
                    state,
                });
            }
        }
    }
    (dispatcher.declarations(&features).await, not_ready)
}

/// How a call that runs a tool carries the tool's own arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Via {
    /// `mcp_invoke_<server>` (or another meta-function): under `arguments`.
    Meta,
    /// `<server>__<tool>`: the call's arguments are the tool's.
    Direct,
}

/// What a called function addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallTarget {
    pub(crate) server: Option<String>,
    /// The MCP tool an invoke (meta or direct) runs (the only calls that run server tools).
    pub(crate) tool: Option<String>,
    pub(crate) via: Via,
}

impl CallTarget {
    /// Resolves `name` with the dispatcher's one parser (direct names, then meta prefixes).
    pub(crate) fn of(
        dispatcher: &MetaDispatcher,
        name: &str,
        arguments: Option<&Value>,
    ) -> CallTarget {
        let function = match dispatcher.resolve(name) {
            None => {
                return CallTarget {
                    server: None,
                    tool: None,
                    via: Via::Meta,
                };
            }
            Some(FunctionTarget::Direct(direct)) => {
                return CallTarget {
                    server: Some(direct.server),
                    tool: Some(direct.tool),
                    via: Via::Direct,
                };
            }
            Some(FunctionTarget::Meta(function)) => function,
        };
        let tool = match function.kind {
            MetaKind::Invoke => arguments
                .and_then(|a| a.get("tool"))
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
                .map(str::to_owned),
            MetaKind::Search | MetaKind::Describe | MetaKind::Read | MetaKind::Prompt => None,
        };
        CallTarget {
            server: Some(function.server),
            tool,
            via: Via::Meta,
        }
    }

    /// The arguments the tool itself receives (what the approval question shows), so a direct
    /// call and an `mcp_invoke_` of the same tool ask the same question.
    pub(crate) fn tool_arguments(&self, arguments: &Value) -> Value {
        match self.via {
            Via::Meta => arguments.get("arguments").cloned().unwrap_or(Value::Null),
            Via::Direct => arguments.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn targets() {
        let spill = tempfile::tempdir().unwrap();
        let runtime = McpRuntime::new(coyote_mcp::RuntimeOptions::default());
        let d = MetaDispatcher::new(runtime, coyote_mcp::SpillStore::new(spill.path()));
        let args = json!({"tool": "wipe", "arguments": {"a": 1}});
        let invoke = CallTarget::of(&d, "mcp_invoke_fs", Some(&args));
        assert_eq!(
            invoke,
            CallTarget {
                server: Some("fs".into()),
                tool: Some("wipe".into()),
                via: Via::Meta,
            }
        );
        assert_eq!(invoke.tool_arguments(&args), json!({"a": 1}));
        assert_eq!(
            CallTarget::of(&d, "mcp_search_fs", Some(&args)),
            CallTarget {
                server: Some("fs".into()),
                tool: None,
                via: Via::Meta,
            }
        );
        // No declaration set named it: not a direct tool.
        assert_eq!(
            CallTarget::of(&d, "fs__wipe", Some(&args)),
            CallTarget {
                server: None,
                tool: None,
                via: Via::Meta,
            }
        );
    }

    #[test]
    fn selection() {
        assert!(ServerSelection::All.includes("x"));
        assert!(ServerSelection::Only(vec!["a".into()]).includes("a"));
        assert!(!ServerSelection::Only(vec![]).includes("a"));
    }
}
