//! Renders a turn's [`SessionEvent`]s on the [`Screen`]: the streamed answer, a spinner while
//! the model thinks or tools run, and one status line per tool call — name, server, duration,
//! ok/error — so the user sees every call the model made.

use std::collections::BTreeMap;
use std::sync::Mutex;

use coyote_session::{EventSink, SessionEvent, StopReason, ToolCallStatus};

use crate::markdown::{Discarded, StreamRenderer};
use crate::reasoning::{REPL_LINES, ReasoningView};
use crate::term::{Paint, paint as paint_text, sanitize};
use crate::ui::screen::Screen;

/// The REPL's [`EventSink`].
pub struct TurnRenderer {
    screen: Screen,
    /// Tool calls started and not finished yet, by call id → label.
    running: Mutex<BTreeMap<String, String>>,
    /// The answer's Markdown renderer.
    answer: Mutex<StreamRenderer>,
    /// The reasoning of this turn's answers (first lines shown, the rest on `.reasoning`).
    reasoning: Mutex<ReasoningView>,
}

impl TurnRenderer {
    /// A renderer for one turn on `screen`.
    pub fn new(screen: Screen) -> Self {
        TurnRenderer {
            answer: Mutex::new(screen.answer_renderer()),
            reasoning: Mutex::new(ReasoningView::new(
                Some(REPL_LINES),
                crate::term::caps().color_stdout,
            )),
            screen,
            running: Mutex::new(BTreeMap::new()),
        }
    }

    fn answer(&self) -> std::sync::MutexGuard<'_, StreamRenderer> {
        self.answer.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Ends the reasoning shown so far (its `… N more lines` note) and keeps its text for
    /// `.reasoning`.
    fn end_reasoning(&self) {
        let mut view = self.reasoning.lock().unwrap_or_else(|p| p.into_inner());
        let rest = view.finish();
        if !rest.is_empty() {
            self.screen.styled(&rest);
            self.screen.set_reasoning(view.text());
        }
    }

    /// Renders what the answer still holds (before a status line, at the end).
    fn flush_answer(&self) {
        let rest = self.answer().finish_line();
        if rest != "\n" {
            self.screen.styled(&rest);
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.running.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `tool (server)` for a status line: the MCP tool for invoke, else the function name.
fn call_label(name: &str, server: Option<&str>, tool: Option<&str>) -> String {
    match (tool, server) {
        (Some(tool), Some(server)) => format!("{tool} ({server}, via {name})"),
        (None, Some(server)) => format!("{name} ({server})"),
        _ => name.to_owned(),
    }
}

/// One status line for a finished call.
pub fn status_line(
    name: &str,
    server: Option<&str>,
    tool: Option<&str>,
    status: ToolCallStatus,
    duration_ms: u64,
) -> String {
    let (mark, word) = match status {
        ToolCallStatus::Ok => ("✓", "ok"),
        ToolCallStatus::Error => ("✗", "error"),
        ToolCallStatus::Refused => ("✗", "refused"),
        ToolCallStatus::Cancelled => ("✗", "cancelled"),
        ToolCallStatus::Repeated => ("✗", "repeated call not run"),
    };
    format!(
        "  {mark} {} {} {word}",
        call_label(name, server, tool),
        format_duration(duration_ms)
    )
}

/// The status line with its mark coloured (green ok, red otherwise) when stderr allows it.
fn painted(line: &str, status: ToolCallStatus) -> String {
    let paint = match status {
        ToolCallStatus::Ok => Paint::Ok,
        ToolCallStatus::Error => Paint::Error,
        ToolCallStatus::Refused | ToolCallStatus::Cancelled | ToolCallStatus::Repeated => {
            Paint::Warn
        }
    };
    let enabled = crate::term::caps().color_stderr;
    match line.strip_prefix("  ").and_then(|l| l.split_once(' ')) {
        Some((mark, rest)) => format!("  {} {rest}", paint_text(mark, paint, enabled)),
        None => line.to_owned(),
    }
}

fn format_duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

impl EventSink for TurnRenderer {
    fn emit(&self, event: SessionEvent) {
        match event {
            SessionEvent::RequestStarted { .. } => self.screen.spin("thinking…"),
            SessionEvent::ReasoningDelta { text } => {
                let shown = self
                    .reasoning
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(&text);
                self.screen.styled(&shown);
            }
            SessionEvent::TextDelta { text } => {
                self.end_reasoning();
                // The spinner goes on until a rendered block is ready to show.
                let rendered = self.answer().push(&text);
                self.screen.styled(&rendered);
            }
            SessionEvent::Usage { .. } | SessionEvent::RoundFinished { .. } => {}
            SessionEvent::ToolCallStarted {
                call_id,
                name,
                server,
                tool,
                ..
            } => {
                self.end_reasoning();
                self.flush_answer();
                let label = call_label(&name, server.as_deref(), tool.as_deref());
                self.screen.spin(&format!("running {label}…"));
                self.running().insert(call_id, label);
            }
            SessionEvent::ToolCallFinished {
                call_id,
                name,
                server,
                tool,
                status,
                duration_ms,
                ..
            } => {
                let next = {
                    let mut running = self.running();
                    running.remove(&call_id);
                    running.values().next().cloned()
                };
                let line = status_line(
                    &name,
                    server.as_deref(),
                    tool.as_deref(),
                    status,
                    duration_ms,
                );
                self.screen.styled_line(&painted(&sanitize(&line), status));
                match next {
                    Some(label) => self.screen.spin(&format!("running {label}…")),
                    None => self.screen.spin("thinking…"),
                }
            }
            SessionEvent::AttemptDiscarded { message, .. } => {
                let discarded = self.answer().discard();
                let void = match discarded {
                    Discarded::NothingShown => "",
                    Discarded::ShownMidLine => {
                        self.screen.styled("\n");
                        " (the text above is not the model's answer)"
                    }
                    Discarded::Shown => " (the text above is not the model's answer)",
                };
                self.screen
                    .line(&format!("coyote: warning: {message}{void}"));
            }
            SessionEvent::Warning { message } => {
                self.flush_answer();
                self.screen.line(&format!("coyote: warning: {message}"));
            }
            SessionEvent::DelegateProgress {
                agent,
                depth,
                message,
            } => self
                .screen
                .line(&crate::ui::progress::delegate_progress_line(
                    &agent, depth, &message,
                )),
            SessionEvent::TurnFinished { stop, .. } => {
                self.end_reasoning();
                self.flush_answer();
                self.screen.finish();
                match stop {
                    StopReason::Answered => {}
                    StopReason::Cancelled => self.screen.line("(cancelled)"),
                    StopReason::MaxToolRounds { limit } => self.screen.line(&format!(
                        "(stopped after {limit} rounds of tool calls; say \"continue\" to go on)"
                    )),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_name_the_tool_server_duration_and_outcome() {
        assert_eq!(
            status_line(
                "mcp_invoke_fake",
                Some("fake"),
                Some("wipe"),
                ToolCallStatus::Refused,
                0
            ),
            "  ✗ wipe (fake, via mcp_invoke_fake) 0 ms refused"
        );
        assert_eq!(
            status_line(
                "mcp_search_fake",
                Some("fake"),
                None,
                ToolCallStatus::Ok,
                1234
            ),
            "  ✓ mcp_search_fake (fake) 1.2 s ok"
        );
        assert_eq!(
            status_line("get_weather", None, None, ToolCallStatus::Error, 5),
            "  ✗ get_weather 5 ms error"
        );
    }
}
