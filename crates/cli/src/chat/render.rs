//! One-shot output: the answer on stdout (Markdown-rendered on a terminal, verbatim otherwise),
//! one status line per tool call and every warning on stderr — or, with `--json`, every
//! session event as one JSON object per line on stdout.
//!
//! Invariants: stdout carries only the answer (or only JSON lines), so `coyote … > file` and
//! `| jq` work; write errors (a closed pipe) silence the output instead of failing the turn;
//! nothing printed here contains a secret (events hold the model's and the servers' words only).

use std::io::Write;
use std::sync::Mutex;

use coyote_session::{EventSink, SessionEvent, ToolCallStatus};
use serde_json::{Value, json};

use crate::markdown::{Discarded, RenderOptions, StreamRenderer};
use crate::reasoning::ReasoningView;
use crate::term::{Paint, sanitize};
use crate::ui::progress::delegate_progress_line;

/// Where rendered output goes (stdout/stderr, or buffers in tests).
pub struct Streams {
    pub out: Box<dyn Write + Send>,
    pub err: Box<dyn Write + Send>,
}

impl Streams {
    pub fn std() -> Self {
        Streams {
            out: Box::new(std::io::stdout()),
            err: Box::new(std::io::stderr()),
        }
    }
}

/// Output mode chosen by the flags and the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// The answer rendered by the Markdown renderer, status lines on stderr.
    Text {
        /// How the answer is rendered (it sanitizes on a terminal).
        answer: RenderOptions,
        /// Status words in colour.
        status_color: bool,
        /// `--show-reasoning`: the model's reasoning on stderr.
        show_reasoning: bool,
    },
    /// Every event as a JSON line.
    Json,
}

struct State {
    streams: Streams,
    markdown: StreamRenderer,
    /// The reasoning shown on stderr (`--show-reasoning`), else `None`.
    reasoning: Option<ReasoningView>,
    out_broken: bool,
    /// A refusal hint was already shown in this turn.
    refusal_hinted: bool,
    /// Tool calls seen in the current round (the answer text before them is complete).
    round_calls: usize,
}

/// The one-shot [`EventSink`].
pub struct Output {
    mode: Mode,
    state: Mutex<State>,
}

/// Shown once when a call was refused for lack of `--yes`.
pub const REFUSAL_HINT: &str =
    "a tool call needed approval and was refused; rerun with --yes to allow such calls";

impl Output {
    pub fn new(mode: Mode, streams: Streams) -> Self {
        let markdown = match &mode {
            Mode::Text { answer, .. } => StreamRenderer::new(answer.clone()),
            Mode::Json => StreamRenderer::new(RenderOptions::raw(false)),
        };
        let reasoning = match &mode {
            Mode::Text {
                show_reasoning: true,
                status_color,
                ..
            } => Some(ReasoningView::new(None, *status_color)),
            _ => None,
        };
        Output {
            mode,
            state: Mutex::new(State {
                streams,
                markdown,
                reasoning,
                out_broken: false,
                refusal_hinted: false,
                round_calls: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A final error: a JSON line in `--json` mode (stderr gets the message from the caller).
    pub fn error(&self, message: &str, exit_code: u8) {
        if self.mode == Mode::Json {
            let mut state = self.lock();
            state.write_out(&json_line(
                &json!({"type": "error", "message": message, "exit_code": exit_code}),
            ));
        }
    }

    /// Ends the answer's last line (text mode).
    pub fn finish(&self) {
        if let Mode::Text { .. } = self.mode {
            let mut state = self.lock();
            let rest = state.markdown.finish_line();
            state.write_out(&rest);
        }
    }
}

impl State {
    /// The reasoning is over (the answer or a tool call starts): its last line, on stderr.
    fn end_reasoning(&mut self) {
        if let Some(rest) = self.reasoning.as_mut().map(ReasoningView::finish) {
            self.write_err(&rest);
        }
    }

    fn write_out(&mut self, text: &str) {
        if self.out_broken || text.is_empty() {
            return;
        }
        let out = &mut self.streams.out;
        if out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            self.out_broken = true;
        }
    }

    /// Writes to stderr as it is: callers sanitize the parts they did not write themselves.
    fn write_err(&mut self, text: &str) {
        let err = &mut self.streams.err;
        let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
    }
}

fn json_line(value: &Value) -> String {
    let mut line = serde_json::to_string(value).unwrap_or_default();
    line.push('\n');
    line
}

impl EventSink for Output {
    fn emit(&self, event: SessionEvent) {
        let mut state = self.lock();
        let status_color = match self.mode {
            Mode::Json => {
                let line = json_line(&serde_json::to_value(&event).unwrap_or(Value::Null));
                state.write_out(&line);
                return;
            }
            Mode::Text { status_color, .. } => status_color,
        };
        match event {
            SessionEvent::ReasoningDelta { text } => {
                if let Some(view) = state.reasoning.as_mut() {
                    let shown = view.push(&text);
                    state.write_err(&shown);
                }
            }
            SessionEvent::TextDelta { text } => {
                state.end_reasoning();
                let rendered = state.markdown.push(&text);
                state.write_out(&rendered);
            }
            SessionEvent::RequestStarted { .. } => state.round_calls = 0,
            SessionEvent::ToolCallStarted { .. } => {
                state.end_reasoning();
                if state.round_calls == 0 {
                    let rest = state.markdown.finish_line();
                    state.write_out(&rest);
                }
                state.round_calls += 1;
            }
            SessionEvent::ToolCallFinished {
                name,
                server,
                tool,
                status,
                duration_ms,
                ..
            } => {
                let line = status_line(
                    &name,
                    server.as_deref(),
                    tool.as_deref(),
                    status,
                    duration_ms,
                    status_color,
                );
                state.write_err(&line);
                if status == ToolCallStatus::Refused && !state.refusal_hinted {
                    state.refusal_hinted = true;
                    state.write_err(&format!("coyote: {REFUSAL_HINT}\n"));
                }
            }
            SessionEvent::AttemptDiscarded { message, .. } => {
                let void = match state.markdown.discard() {
                    Discarded::NothingShown => "",
                    Discarded::ShownMidLine => {
                        state.write_out("\n");
                        " (the text above is not the model's answer)"
                    }
                    Discarded::Shown => " (the text above is not the model's answer)",
                };
                state.write_err(&format!("coyote: warning: {}{void}\n", sanitize(&message)));
            }
            SessionEvent::Warning { message } => {
                let rest = state.markdown.finish_line();
                state.write_out(&rest);
                state.write_err(&format!("coyote: warning: {}\n", sanitize(&message)));
            }
            SessionEvent::TurnFinished { .. } => {
                state.end_reasoning();
                let rest = state.markdown.finish_line();
                state.write_out(&rest);
            }
            SessionEvent::DelegateProgress {
                agent,
                depth,
                message,
            } => state.write_err(&format!(
                "{}\n",
                sanitize(&delegate_progress_line(&agent, depth, &message))
            )),
            SessionEvent::Usage { .. } | SessionEvent::RoundFinished { .. } => {}
        }
    }
}

/// `tool mcp_invoke_everything (everything: echo): ok, 12 ms`.
pub fn status_line(
    name: &str,
    server: Option<&str>,
    tool: Option<&str>,
    status: ToolCallStatus,
    duration_ms: u64,
    color: bool,
) -> String {
    let target = match (server, tool) {
        (Some(server), Some(tool)) => format!(" ({}: {})", sanitize(server), sanitize(tool)),
        _ => String::new(),
    };
    let name = sanitize(name);
    let word = match status {
        ToolCallStatus::Ok => "ok",
        ToolCallStatus::Error => "error",
        ToolCallStatus::Refused => "refused (not approved)",
        ToolCallStatus::Cancelled => "cancelled",
        ToolCallStatus::Repeated => "not run (repeated call)",
    };
    let paint = match status {
        ToolCallStatus::Ok => Paint::Ok,
        ToolCallStatus::Error => Paint::Error,
        ToolCallStatus::Refused | ToolCallStatus::Cancelled | ToolCallStatus::Repeated => {
            Paint::Warn
        }
    };
    let word = crate::term::paint(word, paint, color);
    format!("tool {name}{target}: {word}, {duration_ms} ms\n")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use coyote_llm::Usage;
    use coyote_session::StopReason;

    use super::*;

    /// A cloneable in-memory writer.
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Buffer {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    fn events() -> Vec<SessionEvent> {
        vec![
            SessionEvent::RequestStarted {
                round: 1,
                tools: 3,
                retrieved: vec![],
            },
            SessionEvent::TextDelta {
                text: "Let me".into(),
            },
            SessionEvent::TextDelta {
                text: " check.".into(),
            },
            SessionEvent::Usage {
                input: 5,
                output: 2,
            },
            SessionEvent::ToolCallStarted {
                call_id: "c1".into(),
                name: "mcp_invoke_fs".into(),
                server: Some("fs".into()),
                tool: Some("wipe".into()),
                arguments: json!({"tool": "wipe"}),
            },
            SessionEvent::ToolCallFinished {
                call_id: "c1".into(),
                name: "mcp_invoke_fs".into(),
                server: Some("fs".into()),
                tool: Some("wipe".into()),
                status: ToolCallStatus::Refused,
                duration_ms: 0,
                output: "no".into(),
            },
            SessionEvent::RoundFinished {
                round: 1,
                tool_calls: 1,
            },
            SessionEvent::RequestStarted {
                round: 2,
                tools: 3,
                retrieved: vec![],
            },
            SessionEvent::TextDelta {
                text: "I could not.".into(),
            },
            SessionEvent::TurnFinished {
                stop: StopReason::Answered,
                rounds: 2,
                usage: Usage {
                    input: 5,
                    output: 2,
                },
            },
        ]
    }

    #[test]
    fn text_mode_separates_answer_and_status() {
        let (out, err) = (Buffer::default(), Buffer::default());
        let output = Output::new(
            Mode::Text {
                answer: RenderOptions::raw(false),
                status_color: false,
                show_reasoning: false,
            },
            Streams {
                out: Box::new(out.clone()),
                err: Box::new(err.clone()),
            },
        );
        for e in events() {
            output.emit(e);
        }
        output.finish();
        assert_eq!(out.text(), "Let me check.\nI could not.\n");
        assert_eq!(
            err.text(),
            format!(
                "tool mcp_invoke_fs (fs: wipe): refused (not approved), 0 ms\ncoyote: {REFUSAL_HINT}\n"
            )
        );
    }

    #[test]
    fn json_mode_writes_one_object_per_line() {
        let (out, err) = (Buffer::default(), Buffer::default());
        let output = Output::new(
            Mode::Json,
            Streams {
                out: Box::new(out.clone()),
                err: Box::new(err.clone()),
            },
        );
        for e in events() {
            output.emit(e);
        }
        output.error("boom", 1);
        let lines: Vec<Value> = out
            .text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), events().len() + 1);
        assert_eq!(lines[1], json!({"type": "text_delta", "text": "Let me"}));
        assert_eq!(
            lines[10],
            json!({"type": "error", "message": "boom", "exit_code": 1})
        );
        assert_eq!(err.text(), "");
    }
}
