//! What the model may call: the declarations of the selected servers, and [`CallTarget`], the
//! one resolution of a called name into what it addresses (a delegate, a meta-function or
//! direct tool of its server, or nothing) and, for an invoke, its tool.
//!
//! The selection (config, role, agent, session — already resolved into [`ServerSelection`])
//! picks the servers; the dispatcher's `declarations` turns them into the request's
//! declaration set and records that very set as the callable one, and
//! [`CallTarget::resolve`] asks the dispatcher for it — so a name outside the request's
//! declarations (a disabled server, a server outside the role, an undeclared meta-function)
//! resolves to [`Callee::Undeclared`] and never reaches a server.
//!
//! Ready servers are declared direct or through meta-functions per their exposure,
//! gated by their live features. A server that is starting or failed is declared by
//! one short health line; closed servers are left out. Selection works on server names only.

use coyote_mcp::meta::{MetaDispatcher, RetrieveContext, Retrieved};
use coyote_mcp::{FunctionTarget, McpRuntime, MetaKind, ServerState};
use coyote_protocol::FunctionDeclaration;
use serde_json::Value;

use crate::session::Session;

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
    /// Whether the model may use `server`.
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
    context: &RetrieveContext,
) -> (Vec<FunctionDeclaration>, Vec<NotReady>) {
    let mut selected = Vec::new();
    let mut not_ready = Vec::new();
    for status in runtime.statuses() {
        if !selection.includes(&status.name) {
            continue;
        }
        match status.state {
            ServerState::Ready | ServerState::Idle | ServerState::Closed => {}
            state @ (ServerState::Starting | ServerState::Failed(_) | ServerState::NeedsAuth) => {
                not_ready.push(NotReady {
                    server: status.name.clone(),
                    state,
                });
            }
        }
        selected.push(status.name);
    }
    (
        dispatcher.declarations_for(&selected, context).await,
        not_ready,
    )
}

/// Adds `stable` declarations (the delegates) to a request's `tools` before its `retrieved`
/// tools, which the dispatcher declares last: what changes from request to request stays at
/// the end, so a local server's prompt cache keeps everything before it.
pub(crate) fn insert_before_retrieved(
    tools: &mut Vec<FunctionDeclaration>,
    stable: Vec<FunctionDeclaration>,
    retrieved: &[Retrieved],
) {
    let at = tools
        .iter()
        .position(|t| retrieved.iter().any(|r| r.function == t.name))
        .unwrap_or(tools.len());
    tools.splice(at..at, stable);
}

/// What a called name addresses, resolved once when the call is checked: approval, the
/// events, delegation and dispatch all read this value, and nothing parses the name again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Callee {
    /// `agent_delegate_<agent>` in a session with delegates (the agent may still be unknown:
    /// delegation answers that).
    Delegate(String),
    /// A meta-function or direct tool, by the dispatcher's one parser.
    Mcp(FunctionTarget),
    /// No function of this session has the name (dispatch answers that).
    Undeclared,
}

/// A call's [`Callee`] and the MCP tool it runs, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallTarget {
    pub(crate) callee: Callee,
    /// The MCP tool an invoke (meta or direct) runs (the only calls that run server tools);
    /// for `mcp_invoke_<server>` it is named in the arguments ([`CallTarget::with_arguments`]).
    pub(crate) tool: Option<String>,
}

impl CallTarget {
    /// Resolves `name`: this session's delegate functions first, then the names of the
    /// latest declaration set (the current request's).
    pub(crate) fn resolve(session: &Session, name: &str) -> CallTarget {
        if let Some(agent) = crate::delegate::target(session, name) {
            return CallTarget {
                callee: Callee::Delegate(agent.to_owned()),
                tool: None,
            };
        }
        match session.dispatcher.resolve(name) {
            None => CallTarget {
                callee: Callee::Undeclared,
                tool: None,
            },
            Some(target) => {
                let tool = match &target {
                    FunctionTarget::Direct(direct) => Some(direct.tool.clone()),
                    FunctionTarget::Meta(_) => None,
                };
                CallTarget {
                    callee: Callee::Mcp(target),
                    tool,
                }
            }
        }
    }

    /// Takes the tool an `mcp_invoke_<server>` call runs from its (parsed) arguments.
    pub(crate) fn with_arguments(mut self, arguments: &Value) -> CallTarget {
        if let Callee::Mcp(FunctionTarget::Meta(function)) = &self.callee {
            self.tool = match function.kind {
                MetaKind::Invoke => arguments
                    .get("tool")
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned),
                MetaKind::Search | MetaKind::Describe | MetaKind::Read | MetaKind::Prompt => None,
            };
        }
        self
    }

    /// The MCP server the call goes to.
    pub(crate) fn server(&self) -> Option<&str> {
        match &self.callee {
            Callee::Mcp(target) => Some(target.server()),
            Callee::Delegate(_) | Callee::Undeclared => None,
        }
    }

    /// The arguments the tool itself receives (what the approval question shows), so a direct
    /// call and an `mcp_invoke_` of the same tool ask the same question.
    pub(crate) fn tool_arguments(&self, arguments: &Value) -> Value {
        match &self.callee {
            Callee::Mcp(FunctionTarget::Direct(_)) => arguments.clone(),
            Callee::Mcp(FunctionTarget::Meta(_)) | Callee::Delegate(_) | Callee::Undeclared => {
                arguments.get("arguments").cloned().unwrap_or(Value::Null)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Refuses every launch (resolution never launches).
    struct NoLauncher;

    impl crate::delegate::DelegateLauncher for NoLauncher {
        fn launch<'a>(
            &'a self,
            request: crate::delegate::DelegateLaunch<'a>,
        ) -> futures::future::BoxFuture<'a, Result<crate::DelegateRun, crate::DelegateError>>
        {
            let agent = request.agent.to_owned();
            Box::pin(async move {
                Err(crate::DelegateError::Launch {
                    agent,
                    reason: "test".into(),
                })
            })
        }
    }

    fn session(spill: &std::path::Path, delegates: &[&str]) -> Session {
        let provider = coyote_llm::build_provider(coyote_llm::ProviderConfig::new(
            coyote_llm::ProviderKind::OpenAiCompatible,
            "t",
            "http://127.0.0.1:9/v1",
        ))
        .unwrap();
        let runtime = McpRuntime::new(coyote_mcp::RuntimeOptions::default());
        let builder = Session::builder(
            provider,
            crate::ModelSettings::named("m"),
            runtime,
            coyote_mcp::SpillStore::new(spill),
        );
        if delegates.is_empty() {
            return builder.build();
        }
        let agents = delegates
            .iter()
            .map(|name| crate::DelegateInfo {
                name: (*name).to_owned(),
                description: None,
            })
            .collect();
        builder
            .delegates(crate::Delegates::new(
                agents,
                std::sync::Arc::new(NoLauncher),
            ))
            .build()
    }

    fn meta(kind: MetaKind, server: &str) -> Callee {
        Callee::Mcp(FunctionTarget::Meta(coyote_mcp::MetaFunction::new(
            kind, server,
        )))
    }

    #[test]
    fn targets() {
        let spill = tempfile::tempdir().unwrap();
        let s = session(spill.path(), &[]);
        let args = json!({"tool": "wipe", "arguments": {"a": 1}});
        let invoke = CallTarget {
            callee: meta(MetaKind::Invoke, "fs"),
            tool: None,
        }
        .with_arguments(&args);
        assert_eq!(
            invoke,
            CallTarget {
                callee: meta(MetaKind::Invoke, "fs"),
                tool: Some("wipe".into()),
            }
        );
        assert_eq!(invoke.server(), Some("fs"));
        assert_eq!(invoke.tool_arguments(&args), json!({"a": 1}));
        let search = CallTarget {
            callee: meta(MetaKind::Search, "fs"),
            tool: None,
        };
        assert_eq!(search.clone().with_arguments(&args), search);
        // No declaration set named them: neither a meta-function nor a direct tool resolves.
        for name in ["mcp_invoke_fs", "mcp_search_fs", "fs__wipe"] {
            let undeclared = CallTarget::resolve(&s, name).with_arguments(&args);
            assert_eq!(
                undeclared,
                CallTarget {
                    callee: Callee::Undeclared,
                    tool: None,
                },
                "{name}"
            );
            assert_eq!(undeclared.server(), None);
        }
        // A delegate name is a delegate only in a session with delegates.
        assert_eq!(
            CallTarget::resolve(&s, "agent_delegate_writer").callee,
            Callee::Undeclared
        );
        let with_delegates = session(spill.path(), &["writer"]);
        let delegate = CallTarget::resolve(&with_delegates, "agent_delegate_writer");
        assert_eq!(
            delegate,
            CallTarget {
                callee: Callee::Delegate("writer".into()),
                tool: None,
            }
        );
        assert_eq!(delegate.server(), None);
    }

    #[test]
    fn delegates_are_declared_before_the_retrieved_tools() {
        let declaration = |name: &str| FunctionDeclaration {
            name: name.into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
        };
        let names = |tools: &[FunctionDeclaration]| -> Vec<String> {
            tools.iter().map(|t| t.name.clone()).collect()
        };
        let retrieved = |function: &str| Retrieved {
            server: "big".into(),
            tool: function.trim_start_matches("big__").into(),
            function: function.into(),
            why: coyote_mcp::meta::Why::Mention,
            tokens: 1,
        };
        let mut tools: Vec<FunctionDeclaration> = ["mcp_search_big", "big__a", "big__b"]
            .into_iter()
            .map(declaration)
            .collect();
        let delegates = vec![declaration("agent_delegate_w")];
        insert_before_retrieved(
            &mut tools,
            delegates.clone(),
            &[retrieved("big__b"), retrieved("big__a")],
        );
        assert_eq!(
            names(&tools),
            ["mcp_search_big", "agent_delegate_w", "big__a", "big__b"]
        );
        // Nothing retrieved: after everything.
        let mut tools = vec![declaration("mcp_search_big")];
        insert_before_retrieved(&mut tools, delegates, &[]);
        assert_eq!(names(&tools), ["mcp_search_big", "agent_delegate_w"]);
    }

    #[test]
    fn selection() {
        assert!(ServerSelection::All.includes("x"));
        assert!(ServerSelection::Only(vec!["a".into()]).includes("a"));
        assert!(!ServerSelection::Only(vec![]).includes("a"));
    }
}
