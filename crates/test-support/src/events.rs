//! What the fake server observed: a typed event stream, kept in memory (in-process handle)
//! and appended to the scenario's event log as JSON lines (binary; one `write` per event, so
//! another process reading the file sees whole lines, at most a trailing partial one).
//!
//! [`EventLog`] is the read side for both: counters (`list_requests`, `tool_calls`, …) and
//! waiting for a condition with a deadline supplied by the test.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The listable kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
    /// `prompts/list`.
    Prompts,
    /// `skills/list` (the skills extension).
    Skills,
}

/// One observation, serialized as `{"event": "<snake_case name>", …fields}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The binary started (before any start-up delay).
    Started {
        /// The server process's id.
        pid: u32,
    },
    /// The grandchild `sleep 1000` spawned at start.
    Grandchild {
        /// The grandchild's process id.
        pid: u32,
    },
    /// HTTP mode is accepting connections at `url`.
    Listening {
        /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
        url: String,
    },
    /// `initialize` received (logged before any hang).
    Initialize {
        /// The version the client asked for.
        protocol_version: String,
        /// `clientInfo.name`.
        client_name: String,
        /// Whether the client declared the elicitation capability.
        elicitation: bool,
        /// The client's whole `capabilities` object.
        #[serde(default)]
        capabilities: Value,
    },
    /// `notifications/initialized` received.
    Initialized,
    /// `server/discover` answered (protocol 2026-07-28's handshake; a server that does not
    /// speak it answers with its supported revisions instead).
    Discover,
    /// A page of a list was requested.
    List {
        /// Which list.
        kind: ListKind,
        /// The cursor the client sent; `None` for the first page.
        cursor: Option<String>,
    },
    /// `tools/call` received.
    CallTool {
        /// The tool called.
        name: String,
        /// The call's arguments, as sent.
        arguments: Value,
    },
    /// A running tool (slow / hang / elicit) observed that its request was cancelled.
    ToolCancelled {
        /// The tool that was cancelled.
        name: String,
    },
    /// A progress notification was sent for a call of `name`.
    ProgressSent {
        /// The tool being called.
        name: String,
        /// The progress value sent.
        progress: f64,
    },
    /// `notifications/cancelled` received.
    Cancelled {
        /// The id of the request the client cancelled.
        request_id: Value,
        /// The reason the client gave, if any.
        reason: Option<String>,
    },
    /// `resources/read` received.
    ReadResource {
        /// The URI read.
        uri: String,
    },
    /// `prompts/get` received.
    GetPrompt {
        /// The prompt asked for.
        name: String,
        /// The arguments as sent.
        arguments: BTreeMap<String, String>,
    },
    /// `resources/subscribe` received.
    Subscribe {
        /// The URI.
        uri: String,
    },
    /// `resources/unsubscribe` received.
    Unsubscribe {
        /// The URI.
        uri: String,
    },
    /// `completion/complete` received.
    Complete {
        /// The argument being completed.
        argument: String,
        /// What the user has typed so far.
        value: String,
    },
    /// The client's answer to `elicitation/create` (or `error` when the request failed).
    Elicitation {
        /// `accept`, `decline`, `cancel`, or `error`.
        action: String,
        /// The form's content, when accepted.
        content: Option<Value>,
    },
    /// The client's answer to `sampling/createMessage`: the model's text, or the error.
    Sampling {
        /// `answered` or `error`.
        outcome: String,
        /// The answer's text, or the error message.
        text: String,
    },
    /// `notifications/roots/list_changed` received.
    RootsListChanged,
    /// `roots/list` answered with these URIs.
    Roots {
        /// The roots' URIs, in order.
        uris: Vec<String>,
    },
    /// `logging/setLevel` received.
    SetLevel {
        /// The level the client asked for.
        level: String,
    },
    /// The transport reached end of input (stdin EOF, duplex closed, HTTP session dropped).
    Disconnect,
}

/// Where events go. Shared (`Arc`) by every part of one server process / instance.
#[derive(Debug)]
pub(crate) struct EventSink {
    memory: Mutex<Vec<Event>>,
    file: Option<Mutex<std::fs::File>>,
    changed: tokio::sync::watch::Sender<u64>,
    /// Request ids whose `notifications/cancelled` the line transport recorded as it read
    /// it; the handler, which rmcp runs in a task of its own (perhaps never, when end of
    /// input follows at once and the process exits), skips those.
    cancels_read: Mutex<Vec<Value>>,
}

impl EventSink {
    pub(crate) fn new(log: Option<&Path>) -> std::io::Result<EventSink> {
        let file = match log {
            Some(path) => Some(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)?,
            )),
            None => None,
        };
        Ok(EventSink {
            memory: Mutex::new(Vec::new()),
            file,
            changed: tokio::sync::watch::Sender::new(0),
            cancels_read: Mutex::new(Vec::new()),
        })
    }

    /// Records a `notifications/cancelled`: `read` from the line transport as it arrives, or
    /// from the handler (which records it only when the transport did not).
    pub(crate) fn record_cancelled(&self, request_id: Value, reason: Option<String>, read: bool) {
        {
            let mut seen = self.cancels_read.lock().unwrap_or_else(|e| e.into_inner());
            if read {
                seen.push(request_id.clone());
            } else if let Some(i) = seen.iter().position(|id| *id == request_id) {
                seen.remove(i);
                return;
            }
        }
        self.record(Event::Cancelled { request_id, reason });
    }

    pub(crate) fn record(&self, event: Event) {
        if let Some(file) = &self.file {
            let mut line = serde_json::to_vec(&event).unwrap_or_default();
            line.push(b'\n');
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            // One write per line: O_APPEND makes it atomic with respect to readers.
            let _ = file.write_all(&line);
            let _ = file.flush();
        }
        self.memory
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(event);
        self.changed.send_modify(|n| *n += 1);
    }

    pub(crate) fn snapshot(&self) -> EventLog {
        EventLog {
            events: self
                .memory
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        }
    }

    pub(crate) fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

/// A snapshot of events, with counters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventLog {
    /// Every event, in the order the server logged them.
    pub events: Vec<Event>,
}

/// Waiting for events failed.
#[derive(Debug, thiserror::Error)]
pub enum WaitError {
    /// No snapshot satisfied the condition in time.
    #[error(
        "the fake server's events did not satisfy the condition within {after:?}; events so far: {events:?}"
    )]
    Timeout {
        /// How long the wait lasted.
        after: Duration,
        /// The events seen by then, for the failure message.
        events: Vec<Event>,
    },
    /// The event log file could not be read.
    #[error("cannot read the event log {path}: {source}")]
    Read {
        /// The event log file.
        path: PathBuf,
        /// The read error.
        source: std::io::Error,
    },
}

impl EventLog {
    /// Reads an event log written by the binary; a trailing partial line is ignored, as are
    /// lines that do not parse (the file is append-only, so nothing else can be wrong).
    pub fn read(path: &Path) -> std::io::Result<EventLog> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e),
        };
        let events = text
            .split_inclusive('\n')
            .filter(|line| line.ends_with('\n'))
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        Ok(EventLog { events })
    }

    /// Polls the log file until `condition` holds or `deadline` passes.
    pub async fn wait_file(
        path: &Path,
        deadline: Duration,
        condition: impl Fn(&EventLog) -> bool,
    ) -> Result<EventLog, WaitError> {
        let poll = async {
            loop {
                let log = EventLog::read(path).map_err(|source| WaitError::Read {
                    path: path.to_owned(),
                    source,
                })?;
                if condition(&log) {
                    return Ok(log);
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        match tokio::time::timeout(deadline, poll).await {
            Ok(result) => result,
            Err(_) => Err(WaitError::Timeout {
                after: deadline,
                events: EventLog::read(path).map(|l| l.events).unwrap_or_default(),
            }),
        }
    }

    /// Number of list requests of `kind` served (every page counts).
    pub fn list_requests(&self, kind: ListKind) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::List { kind: k, .. } if *k == kind))
            .count()
    }

    /// Number of `tools/call` requests for `name`.
    pub fn tool_calls(&self, name: &str) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::CallTool { name: n, .. } if n == name))
            .count()
    }

    /// Number of `resources/read` requests for `uri`.
    pub fn reads(&self, uri: &str) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::ReadResource { uri: u } if u == uri))
            .count()
    }

    /// Every `tools/call` per tool name.
    pub fn tool_call_counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for event in &self.events {
            if let Event::CallTool { name, .. } = event {
                *counts.entry(name.clone()).or_insert(0) += 1;
            }
        }
        counts
    }

    /// `notifications/cancelled` received.
    pub fn cancelled_notifications(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::Cancelled { .. }))
            .count()
    }

    /// Tools that observed their own cancellation, in order.
    pub fn tools_cancelled(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ToolCancelled { name } => Some(name.clone()),
                _ => None,
            })
            .collect()
    }

    /// Whether `initialize` arrived.
    pub fn initialize_seen(&self) -> bool {
        self.events
            .iter()
            .any(|e| matches!(e, Event::Initialize { .. }))
    }

    /// Whether `server/discover` was answered (the server speaks 2026-07-28).
    pub fn discover_seen(&self) -> bool {
        self.events.iter().any(|e| matches!(e, Event::Discover))
    }

    /// Whether `notifications/initialized` arrived.
    pub fn initialized_seen(&self) -> bool {
        self.events.iter().any(|e| matches!(e, Event::Initialized))
    }

    /// Whether the transport reached end of input.
    pub fn disconnect_seen(&self) -> bool {
        self.events.iter().any(|e| matches!(e, Event::Disconnect))
    }

    /// The pid of the grandchild the server spawned, if any.
    pub fn grandchild_pid(&self) -> Option<u32> {
        self.events.iter().find_map(|e| match e {
            Event::Grandchild { pid } => Some(*pid),
            _ => None,
        })
    }

    /// The server process's own pid, from its `started` event.
    pub fn server_pid(&self) -> Option<u32> {
        self.events.iter().find_map(|e| match e {
            Event::Started { pid } => Some(*pid),
            _ => None,
        })
    }

    /// How many `completion/complete` requests arrived.
    pub fn complete_requests(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::Complete { .. }))
            .count()
    }

    /// Each elicitation answer as `(action, content)`, in order.
    pub fn elicitations(&self) -> Vec<(String, Option<Value>)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Elicitation { action, content } => Some((action.clone(), content.clone())),
                _ => None,
            })
            .collect()
    }

    /// How many progress notifications the server sent.
    pub fn progress_sent(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::ProgressSent { .. }))
            .count()
    }
}
