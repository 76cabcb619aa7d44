//! What a turn reports while it runs: typed [`SessionEvent`]s delivered to the front-end's
//! [`EventSink`] (the REPL renders them, one-shot `--json` prints each as one JSON line).
//!
//! Order within a turn: per model request `RequestStarted`, `TextDelta*`, at most one `Usage`;
//! then, if the model called tools, one `ToolCallStarted` and exactly one `ToolCallFinished`
//! per call (calls run concurrently, so the pairs of different calls interleave) and
//! `RoundFinished`; `Warning`s anywhere; `TurnFinished` last when the turn ends without error.
//! Events never carry API keys: arguments and outputs are the model's and the servers' words.

use coyote_llm::Usage;
use coyote_mcp::meta::Retrieved;
use serde::{Deserialize, Serialize};

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    /// The function ran and succeeded.
    Ok,
    /// It ran and failed (tool `isError`, server error, bad arguments, server not ready).
    Error,
    /// The user (or a non-interactive front-end) did not approve it; it did not run.
    Refused,
    /// Cancelled by the user before it finished.
    Cancelled,
    /// The same call came a third time in a row; it did not run.
    Repeated,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum StopReason {
    /// The model answered without calling tools.
    Answered,
    /// The model was still calling tools after `limit` rounds; the turn stopped without asking
    /// it again (the last results are in the conversation for the next turn).
    MaxToolRounds {
        /// The round limit reached.
        limit: u32,
    },
    /// The user cancelled; the partial answer is kept.
    Cancelled,
}

/// One increment of a running turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionEvent {
    /// A model request was sent (`round` counts requests in this turn, from 1).
    RequestStarted {
        /// The request's number in this turn, from 1.
        round: u32,
        /// Functions declared in it.
        tools: usize,
        /// The tools `retrieve` servers declared in it as themselves, and why (rank,
        /// mention, used earlier); empty when no server is retrieved.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        retrieved: Vec<Retrieved>,
    },
    /// Streamed answer text.
    TextDelta {
        /// The next piece of text.
        text: String,
    },
    /// Streamed reasoning (shown dimmed or hidden; never part of the conversation).
    ReasoningDelta {
        /// The next piece of reasoning.
        text: String,
    },
    /// Token counts of one response.
    Usage {
        /// Input tokens, prompt-cache reads and writes included.
        input: u64,
        /// Output tokens.
        output: u64,
    },
    /// A tool call starts running (or is about to be answered without running).
    ToolCallStarted {
        /// The model's id of the call.
        call_id: String,
        /// The function name the model called (`mcp_invoke_fs`, …).
        name: String,
        /// The MCP server it addresses, when the name parses as one of its functions.
        server: Option<String>,
        /// For `mcp_invoke_*`: the tool it runs.
        tool: Option<String>,
        /// The arguments as the model sent them (a JSON object, or the raw text when it was not
        /// valid JSON).
        arguments: serde_json::Value,
    },
    /// A tool call ended; `output` is exactly what the model receives.
    ToolCallFinished {
        /// The model's id of the call.
        call_id: String,
        /// The function name the model called.
        name: String,
        /// The MCP server it addressed, if any.
        server: Option<String>,
        /// For `mcp_invoke_*`: the tool it ran.
        tool: Option<String>,
        /// How it ended.
        status: ToolCallStatus,
        /// How long it ran, in milliseconds.
        duration_ms: u64,
        /// Exactly what the model receives.
        output: String,
    },
    /// All calls of a round are answered.
    RoundFinished {
        /// The round's number, from 1.
        round: u32,
        /// Calls answered in the round.
        tool_calls: usize,
    },
    /// A status line from a delegated agent (`agent_delegate_*`): started, each tool call,
    /// warnings, how it ended. Its own text is not streamed here; its answer is the call's
    /// result. `depth` 1 = a delegate of the user's agent.
    DelegateProgress {
        /// The delegate's name.
        agent: String,
        /// Its depth (1 = a delegate of the user's agent).
        depth: u32,
        /// The status line.
        message: String,
    },
    /// The model server could not parse the answer being streamed: the text streamed since
    /// the request started is not the model's answer and is dropped (front ends drop what they
    /// hold of it and say so), and the request is sent again.
    AttemptDiscarded {
        /// Why, for the user (it also says what the attempt cost, as far as is known).
        message: String,
        /// coyote's estimate of the discarded request's prompt tokens: the server reports no
        /// token counts for a request it could not finish.
        estimated_input_tokens: u64,
    },
    /// Something the user should know that does not stop the turn.
    Warning {
        /// The warning, for the user.
        message: String,
    },
    /// The turn ended (not sent when it failed with an error).
    TurnFinished {
        /// Why the turn ended.
        stop: StopReason,
        /// Model requests made in the turn.
        rounds: u32,
        /// Tokens summed over the turn's responses.
        usage: Usage,
    },
}

/// Receives a turn's events. Called from the task running the turn (and from concurrently
/// running tool calls), so keep it quick: render or forward, never block on input.
pub trait EventSink: Send + Sync {
    /// Receives one event.
    fn emit(&self, event: SessionEvent);
}

impl<F> EventSink for F
where
    F: Fn(SessionEvent) + Send + Sync,
{
    fn emit(&self, event: SessionEvent) {
        self(event)
    }
}

/// Drops every event (tests, delegates whose progress nobody watches).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _event: SessionEvent) {}
}

/// Collects events in memory (tests, and front-ends that render after the turn).
#[derive(Debug, Default)]
pub struct EventLog {
    events: std::sync::Mutex<Vec<SessionEvent>>,
}

impl EventLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of everything emitted so far.
    pub fn events(&self) -> Vec<SessionEvent> {
        self.events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

impl EventSink for EventLog {
    fn emit(&self, event: SessionEvent) {
        self.events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(event);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn events_serialise_with_a_type_tag() {
        let finished = SessionEvent::ToolCallFinished {
            call_id: "c1".into(),
            name: "mcp_invoke_fs".into(),
            server: Some("fs".into()),
            tool: Some("read".into()),
            status: ToolCallStatus::Refused,
            duration_ms: 0,
            output: "no".into(),
        };
        assert_eq!(
            serde_json::to_value(&finished).unwrap(),
            json!({"type": "tool_call_finished", "call_id": "c1", "name": "mcp_invoke_fs",
                   "server": "fs", "tool": "read", "status": "refused", "duration_ms": 0,
                   "output": "no"})
        );
        let done = SessionEvent::TurnFinished {
            stop: StopReason::MaxToolRounds { limit: 3 },
            rounds: 4,
            usage: Usage {
                input: 1,
                output: 2,
            },
        };
        assert_eq!(
            serde_json::to_value(&done).unwrap(),
            json!({"type": "turn_finished", "stop": {"reason": "max_tool_rounds", "limit": 3},
                   "rounds": 4, "usage": {"input": 1, "output": 2}})
        );
    }
}
