//! What the model may call: the gated meta-function declarations of the selected servers, and
//! the mapping of a called name back to its server (and, for invoke, its tool).
//!
//! Servers still starting or failed keep their always-on functions (search, describe, and
//! invoke by D7's fail-open rule) so the model can see them and a call answers with the
//! server's state ("starting", "failed: … stderr: …") instead of the server vanishing. Ready
//! servers are gated by their live features (`McpRuntime::server_features`, D7/R15). Closed
//! servers are left out. Selection works on server names only (R12).

use coyote_mcp::meta::declarations_for_all;
use coyote_mcp::{McpRuntime, McpServerFeatures, MetaFunction, MetaKind, ServerState};
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
pub(crate) fn declarations(
    runtime: &McpRuntime,
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
    (declarations_for_all(&features), not_ready)
}

/// What a called function addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallTarget {
    pub(crate) server: Option<String>,
    /// The MCP tool an `mcp_invoke_*` call runs (the only kind that runs server tools).
    pub(crate) tool: Option<String>,
}

impl CallTarget {
    pub(crate) fn of(name: &str, arguments: Option<&Value>) -> CallTarget {
        let Some(function) = MetaFunction::parse(name) else {
            return CallTarget {
                server: None,
                tool: None,
            };
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
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn targets() {
        let args = json!({"tool": "wipe", "arguments": {}});
        assert_eq!(
            CallTarget::of("mcp_invoke_fs", Some(&args)),
            CallTarget {
                server: Some("fs".into()),
                tool: Some("wipe".into())
            }
        );
        assert_eq!(
            CallTarget::of("mcp_search_fs", Some(&args)),
            CallTarget {
                server: Some("fs".into()),
                tool: None
            }
        );
        assert_eq!(
            CallTarget::of("get_weather", Some(&args)),
            CallTarget {
                server: None,
                tool: None
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
