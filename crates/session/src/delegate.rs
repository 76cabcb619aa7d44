//! Delegation: an agent with `delegates: [other]` gets one function per delegate,
//! `agent_delegate_<name>(task)`, that runs that agent's own turn loop — its own [`Session`]
//! (own model, own MCP runtime built by the front-end's [`DelegateLauncher`], typically from
//! `coyote_mcp::McpFactory::agent_runtime`) and its own [`Conversation`] — and returns the
//! delegate's final answer as the tool result.
//!
//! Invariants:
//! - Depth is bounded: a session at depth `d` may start delegates at depth `d + 1` only while
//!   `d + 1 <= max_depth` ([`MAX_DELEGATE_DEPTH`] unless set); beyond it the call is answered
//!   with a teaching error and nothing is launched, so even a cyclic agent set terminates.
//! - The delegate's meta-functions come from ITS runtime (`McpRuntime::server_features()`:
//!   what its live servers offer): this module never looks at the parent's servers, and the delegate's servers never
//!   enter the parent's runtime.
//! - The delegate's text never streams into the parent's answer; the parent's sink sees one
//!   [`SessionEvent::DelegateProgress`] line per start, tool call, warning and end.
//! - Cancellation propagates: the delegate turn runs with a child of the parent's token; its
//!   servers are released after the task whatever the outcome ([`DelegateRun::close`]).

use std::sync::Arc;

use coyote_protocol::FunctionDeclaration;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use crate::calls::CANCELLED_TEXT;
use crate::conversation::Conversation;
use crate::event::{EventSink, SessionEvent, StopReason, ToolCallStatus};
use crate::session::{Session, TurnContext};

/// Prefix of the delegate functions: `agent_delegate_<agent>`.
pub const DELEGATE_PREFIX: &str = "agent_delegate_";

/// How deep `agent → delegate → delegate …` may go unless the front-end sets another bound.
pub const MAX_DELEGATE_DEPTH: u32 = 3;

/// One agent a session may delegate to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelegateInfo {
    /// The agent's name, as in `agent_delegate_<name>`.
    pub name: String,
    /// Shown to the model in the function description.
    pub description: Option<String>,
}

/// What the launcher is asked to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelegateLaunch<'a> {
    /// The agent's name.
    pub agent: &'a str,
    /// The delegate's depth (1 = called by the user's agent). Give the delegate's own
    /// [`Delegates`] this depth ([`Delegates::at_depth`]).
    pub depth: u32,
}

/// A delegate ready to run one task.
pub struct DelegateRun {
    /// The delegate's session (its model, servers and delegates).
    pub session: Session,
    /// Starts with the delegate's instructions as the system prompt.
    pub conversation: Conversation,
    /// Releases the delegate's servers (e.g. `AgentRuntime::close`); awaited after the task.
    /// If the task is dropped (parent cancelled) it is dropped too, and the servers' own
    /// drop fallback closes them.
    pub close: BoxFuture<'static, ()>,
    /// Things the user should know about the start (a shadowed app server, a server that
    /// did not start); reported as progress lines.
    pub warnings: Vec<String>,
}

impl std::fmt::Debug for DelegateRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DelegateRun")
            .field("session", &self.session)
            .field("conversation", &self.conversation)
            .finish_non_exhaustive()
    }
}

/// Why a delegate could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DelegateError {
    /// The agent is not a delegate of this session.
    #[error("agent `{agent}` is not one of your delegates; call one of: {}", known.join(", "))]
    Unknown {
        /// The name the model called.
        agent: String,
        /// The delegates it may call.
        known: Vec<String>,
    },
    /// Delegating would go deeper than allowed.
    #[error(
        "delegation is limited to {max} levels (agent → delegate → …) and `{agent}` would be \
         level {depth}; do this part of the task yourself with your own functions and answer"
    )]
    TooDeep {
        /// The agent asked for.
        agent: String,
        /// The depth it would run at.
        depth: u32,
        /// The deepest level allowed.
        max: u32,
    },
    /// The call has no `task`.
    #[error("call {DELEGATE_PREFIX}{agent} with {{\"task\": \"what the agent should do\"}}")]
    MissingTask {
        /// The agent called.
        agent: String,
    },
    /// The front-end could not build the delegate (bad config, model, servers).
    #[error("agent `{agent}` could not start: {reason}")]
    Launch {
        /// The agent called.
        agent: String,
        /// Why it could not start.
        reason: String,
    },
}

/// Builds delegates on demand (implemented by the front-end: it knows the agent files, models
/// and the MCP factory).
pub trait DelegateLauncher: Send + Sync {
    /// Builds the delegate `request` names, at its depth.
    fn launch<'a>(
        &'a self,
        request: DelegateLaunch<'a>,
    ) -> BoxFuture<'a, Result<DelegateRun, DelegateError>>;
}

/// The delegates of one session and where it stands in the delegation chain.
#[derive(Clone)]
pub struct Delegates {
    agents: Vec<DelegateInfo>,
    launcher: Arc<dyn DelegateLauncher>,
    depth: u32,
    max_depth: u32,
}

impl std::fmt::Debug for Delegates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Delegates")
            .field("agents", &self.agents)
            .field("depth", &self.depth)
            .field("max_depth", &self.max_depth)
            .finish_non_exhaustive()
    }
}

impl Delegates {
    /// Delegates of the user's agent (depth 0), bounded by [`MAX_DELEGATE_DEPTH`].
    pub fn new(agents: Vec<DelegateInfo>, launcher: Arc<dyn DelegateLauncher>) -> Self {
        Delegates {
            agents,
            launcher,
            depth: 0,
            max_depth: MAX_DELEGATE_DEPTH,
        }
    }

    /// The depth of the session these delegates belong to.
    pub fn at_depth(mut self, depth: u32) -> Self {
        self.depth = depth;
        self
    }

    /// Sets the deepest delegation level (default [`MAX_DELEGATE_DEPTH`]).
    pub fn max_depth(mut self, max_depth: u32) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// The depth of the session these delegates belong to (0 = the user's agent).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The agents the model may delegate to.
    pub fn agents(&self) -> &[DelegateInfo] {
        &self.agents
    }

    /// The function declarations, one per delegate.
    pub fn declarations(&self) -> Vec<FunctionDeclaration> {
        self.agents.iter().map(declaration).collect()
    }
}

/// The function name for delegate `agent`.
pub fn delegate_function_name(agent: &str) -> String {
    format!("{DELEGATE_PREFIX}{agent}")
}

fn declaration(info: &DelegateInfo) -> FunctionDeclaration {
    let about = info
        .description
        .as_deref()
        .map(|d| format!(" ({})", d.trim()))
        .unwrap_or_default();
    FunctionDeclaration {
        name: delegate_function_name(&info.name),
        description: format!(
            "Delegate a task to agent `{}`{about}. It works on its own with its own tools and \
             returns its final answer; describe the task completely, it does not see this \
             conversation.",
            info.name
        ),
        parameters: json!({
            "type": "object",
            "properties": {
                "task": {"type": "string", "description": "What the agent should do, with all the context it needs."}
            },
            "required": ["task"],
        }),
    }
}

/// The session's delegate declarations (none without delegates).
pub(crate) fn declarations(session: &Session) -> Vec<FunctionDeclaration> {
    session
        .delegates
        .as_ref()
        .map(Delegates::declarations)
        .unwrap_or_default()
}

/// The agent a called function delegates to, if it is one of this session's delegate
/// functions.
pub(crate) fn target<'a>(session: &Session, function: &'a str) -> Option<&'a str> {
    let agent = function.strip_prefix(DELEGATE_PREFIX)?;
    session.delegates.as_ref()?;
    Some(agent)
}

/// Runs one delegated task; the tool result for the call.
pub(crate) fn run<'a>(
    session: &'a Session,
    agent: &'a str,
    arguments: &'a Value,
    ctx: &'a TurnContext<'_>,
) -> BoxFuture<'a, (ToolCallStatus, String)> {
    Box::pin(async move {
        let Some(delegates) = session.delegates.as_ref() else {
            return (ToolCallStatus::Error, format!("no delegate `{agent}`"));
        };
        match start(delegates, agent, arguments).await {
            Ok((run, task)) => run_task(run, agent, delegates.depth + 1, &task, ctx).await,
            Err(error) => (ToolCallStatus::Error, error.to_string()),
        }
    })
}

async fn start(
    delegates: &Delegates,
    agent: &str,
    arguments: &Value,
) -> Result<(DelegateRun, String), DelegateError> {
    if !delegates.agents.iter().any(|a| a.name == agent) {
        return Err(DelegateError::Unknown {
            agent: agent.to_owned(),
            known: delegates
                .agents
                .iter()
                .map(|a| delegate_function_name(&a.name))
                .collect(),
        });
    }
    let task = arguments
        .get("task")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| DelegateError::MissingTask {
            agent: agent.to_owned(),
        })?;
    let depth = delegates.depth + 1;
    if depth > delegates.max_depth {
        return Err(DelegateError::TooDeep {
            agent: agent.to_owned(),
            depth,
            max: delegates.max_depth,
        });
    }
    let run = delegates
        .launcher
        .launch(DelegateLaunch { agent, depth })
        .await?;
    Ok((run, task.to_owned()))
}

async fn run_task(
    run: DelegateRun,
    agent: &str,
    depth: u32,
    task: &str,
    ctx: &TurnContext<'_>,
) -> (ToolCallStatus, String) {
    let DelegateRun {
        session,
        mut conversation,
        close,
        warnings,
    } = run;
    let progress = Progress {
        parent: ctx.events,
        agent: agent.to_owned(),
        depth,
    };
    progress.say(format!("started ({})", session.model_label()));
    for warning in warnings {
        progress.say(format!("warning: {warning}"));
    }
    let child = TurnContext {
        events: &progress,
        approver: ctx.approver,
        cancel: ctx.cancel.child_token(),
    };
    let outcome = session.run_turn(&mut conversation, task, &child).await;
    close.await;
    let answer = conversation.last_assistant_text().map(str::to_owned);
    match outcome {
        Ok(outcome) => match outcome.stop {
            StopReason::Answered => {
                progress.say(format!("answered after {} request(s)", outcome.rounds));
                (
                    ToolCallStatus::Ok,
                    answer.unwrap_or_else(|| format!("agent `{agent}` gave no answer")),
                )
            }
            StopReason::MaxToolRounds { limit } => {
                progress.say(format!("stopped after {limit} tool rounds"));
                let last = answer
                    .map(|a| format!(" Its last words: {a}"))
                    .unwrap_or_default();
                (
                    ToolCallStatus::Error,
                    format!(
                        "agent `{agent}` stopped after {limit} rounds of tool calls without \
                         answering; give it a smaller task or do it yourself.{last}"
                    ),
                )
            }
            StopReason::Cancelled => {
                progress.say("cancelled".to_owned());
                (ToolCallStatus::Cancelled, CANCELLED_TEXT.to_owned())
            }
        },
        Err(error) => {
            progress.say(format!("failed: {error}"));
            (
                ToolCallStatus::Error,
                format!("agent `{agent}` failed: {error}"),
            )
        }
    }
}

/// The delegate's sink: forwards a status line per notable event to the parent's sink.
struct Progress<'a> {
    parent: &'a dyn EventSink,
    agent: String,
    depth: u32,
}

impl Progress<'_> {
    fn say(&self, message: String) {
        self.parent.emit(SessionEvent::DelegateProgress {
            agent: self.agent.clone(),
            depth: self.depth,
            message,
        });
    }
}

impl EventSink for Progress<'_> {
    fn emit(&self, event: SessionEvent) {
        match event {
            SessionEvent::ToolCallFinished {
                name, tool, status, ..
            } => {
                let what = tool.map(|t| format!("{name} ({t})")).unwrap_or(name);
                self.say(format!("{what}: {}", status_word(status)));
            }
            SessionEvent::Warning { message } | SessionEvent::AttemptDiscarded { message, .. } => {
                self.say(format!("warning: {message}"));
            }
            // Nested delegates report through us, one level further down.
            nested @ SessionEvent::DelegateProgress { .. } => self.parent.emit(nested),
            SessionEvent::RequestStarted { .. }
            | SessionEvent::TextDelta { .. }
            | SessionEvent::ReasoningDelta { .. }
            | SessionEvent::Usage { .. }
            | SessionEvent::ToolCallStarted { .. }
            | SessionEvent::RoundFinished { .. }
            | SessionEvent::TurnFinished { .. } => {}
        }
    }
}

fn status_word(status: ToolCallStatus) -> &'static str {
    match status {
        ToolCallStatus::Ok => "ok",
        ToolCallStatus::Error => "error",
        ToolCallStatus::Refused => "refused",
        ToolCallStatus::Cancelled => "cancelled",
        ToolCallStatus::Repeated => "repeated",
    }
}

#[cfg(test)]
#[path = "delegate_tests.rs"]
mod tests;
