//! `.watch SERVER URI` / `.unwatch [SERVER URI]`: a subscription to a resource
//! (`resources/subscribe`) whose updates are listed to the model at the start of the next
//! message — URI and time, one line each, with the `mcp_read_` function that reads it; the
//! model decides whether to read. A change of the server's resource list and a server that
//! goes away are listed the same way.
//!
//! Invariants:
//! - The note goes inside the user's next message (before the typed text), never as a turn of
//!   its own; it is taken once (the message after that has none unless more changed).
//! - Bounded: one line per watched URI (a second update moves its time), one per server for a
//!   list change or its end — the pending changes never outgrow the watches.
//! - Each watch is a task on the runtime that ends when its server goes away; `.unwatch` aborts
//!   it and sends `resources/unsubscribe` (bounded by [`UNSUBSCRIBE_TIMEOUT`]); leaving the
//!   REPL unwatches everything.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use coyote_mcp::subscription::{ListChangeStream, ResourceUpdate, ResourceUpdateStream};
use coyote_mcp::{MetaKind, ServerHandle, ServerState};

use super::Repl;
use super::commands::WatchCommand;
use crate::mcp_cmd::watch::utc_now;

/// Bound of `resources/subscribe` and of each `resources/unsubscribe`.
pub const UNSUBSCRIBE_TIMEOUT: Duration = Duration::from_secs(5);

/// What changed since the last message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// `notifications/resources/updated` for a watched URI.
    Updated { uri: String },
    /// `notifications/resources/list_changed`.
    ListChanged,
    /// The server went away (its watches ended).
    Ended { why: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Pending {
    server: String,
    change: Change,
    time: String,
}

struct Watched {
    server: String,
    uri: String,
    handle: ServerHandle,
    task: tokio::task::JoinHandle<()>,
}

#[derive(Default)]
struct Board {
    watched: Vec<Watched>,
    pending: Vec<Pending>,
}

/// The REPL's watches and the changes not yet told to the model; clones share them.
#[derive(Clone, Default)]
pub struct Watches {
    board: Arc<Mutex<Board>>,
}

impl Watches {
    fn board(&self) -> MutexGuard<'_, Board> {
        self.board.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a change now (replacing an earlier one of the same server and kind).
    pub fn note(&self, server: &str, change: Change) {
        let mut board = self.board();
        let same = |p: &Pending| {
            p.server == server
                && match (&p.change, &change) {
                    (Change::Updated { uri: a }, Change::Updated { uri: b }) => a == b,
                    (Change::ListChanged, Change::ListChanged)
                    | (Change::Ended { .. }, Change::Ended { .. }) => true,
                    _ => false,
                }
        };
        board.pending.retain(|p| !same(p));
        board.pending.push(Pending {
            server: server.to_owned(),
            change,
            time: utc_now(),
        });
    }

    /// The note for the model about everything that changed since the last call on the
    /// servers `include` accepts (the session's selection: the note names only functions the
    /// model has), if anything did; the pending changes are cleared.
    pub fn take_note(&self, include: &dyn Fn(&str) -> bool) -> Option<String> {
        let mut pending = std::mem::take(&mut self.board().pending);
        pending.retain(|p| include(&p.server));
        if pending.is_empty() {
            return None;
        }
        let mut note = String::from(
            "<resource_updates>\nSince the last message, resources the user watches changed:\n",
        );
        for p in pending {
            let read = MetaKind::Read.function_name(&p.server);
            let line = match p.change {
                Change::Updated { uri } => format!(
                    "- {} {uri} (MCP server `{}`) was updated; read it with {read}",
                    p.time, p.server
                ),
                Change::ListChanged => format!(
                    "- {} the resource list of MCP server `{}` changed",
                    p.time, p.server
                ),
                Change::Ended { why } => format!(
                    "- {} MCP server `{}` went away ({why}); its watches ended",
                    p.time, p.server
                ),
            };
            note.push_str(&line);
            note.push('\n');
        }
        note.push_str("</resource_updates>");
        Some(note)
    }

    fn is_watched(&self, server: &str, uri: &str) -> bool {
        self.board()
            .watched
            .iter()
            .any(|w| w.server == server && w.uri == uri)
    }

    /// Takes the watches `pair` names (every one for `None`) out of the board; their pending
    /// updates go too.
    fn remove(&self, pair: Option<&(String, String)>) -> Vec<Watched> {
        let mut board = self.board();
        let (gone, kept) = std::mem::take(&mut board.watched)
            .into_iter()
            .partition(|w| pair.is_none_or(|(s, u)| &w.server == s && &w.uri == u));
        board.watched = kept;
        board.pending.retain(|p| {
            !gone.iter().any(|w: &Watched| {
                w.server == p.server
                    && matches!(&p.change, Change::Updated { uri } if *uri == w.uri)
            })
        });
        gone
    }
}

/// Follows one watched URI until its server goes away.
async fn follow(
    watches: Watches,
    handle: ServerHandle,
    uri: String,
    mut updates: ResourceUpdateStream,
    mut lists: ListChangeStream,
) {
    let server = handle.name().to_owned();
    let mut resources = handle.list_generations().resources;
    loop {
        tokio::select! {
            update = updates.next() => match update {
                ResourceUpdate::Updated(updated) if updated == uri => {
                    watches.note(&server, Change::Updated { uri: updated });
                }
                ResourceUpdate::Updated(_) => {}
                // Ours may be among the skipped ones.
                ResourceUpdate::Skipped(_) => {
                    watches.note(&server, Change::Updated { uri: uri.clone() });
                }
                ResourceUpdate::Closed => {
                    watches.note(&server, Change::Ended { why: "the connection closed".into() });
                    return;
                }
            },
            () = lists.next() => {
                let now = handle.list_generations().resources;
                if now != resources {
                    resources = now;
                    watches.note(&server, Change::ListChanged);
                }
            }
            state = handle.gone() => {
                // What the server sent just before it went away is still noted.
                let late = updates.late(std::time::Duration::from_millis(250)).await;
                if late.iter().any(|u| match u {
                    ResourceUpdate::Updated(updated) => *updated == uri,
                    ResourceUpdate::Skipped(_) => true,
                    ResourceUpdate::Closed => false,
                }) {
                    watches.note(&server, Change::Updated { uri: uri.clone() });
                }
                watches.note(&server, Change::Ended { why: state.to_string() });
                return;
            }
        }
    }
}

impl Repl {
    /// `.watch …` / `.unwatch …`.
    pub(super) fn watch_command(&mut self, command: WatchCommand) {
        match command {
            WatchCommand::List => self.print(&self.watch_list()),
            WatchCommand::Add { server, uri } => match self.watch(&server, &uri) {
                Ok(()) => self.print(&format!(
                    "Watching {uri} on MCP server `{server}`: its updates are listed to the \
                     model with your next message (`.unwatch` stops).\n"
                )),
                Err(error) => self.screen.line(&format!(
                    "coyote: cannot watch {uri} on `{server}`: {}",
                    self.redactor.redact(&error)
                )),
            },
            WatchCommand::Remove(pair) => {
                let gone = self.unwatch(pair.as_ref());
                if gone.is_empty() {
                    self.screen
                        .line("coyote: no such watch; `.watch` shows the watches");
                } else {
                    self.print(&format!("Stopped watching {}.\n", gone.join(", ")));
                }
            }
        }
    }

    fn watch_list(&self) -> String {
        let board = self.watches.board();
        if board.watched.is_empty() {
            return "No resource is watched; `.watch SERVER URI` watches one.\n".to_owned();
        }
        let mut out = String::new();
        for w in &board.watched {
            let state = if w.task.is_finished() {
                "ended"
            } else {
                "watching"
            };
            out.push_str(&format!("{}  {}  {state}\n", w.server, w.uri));
        }
        let pending = board.pending.len();
        if pending > 0 {
            out.push_str(&format!(
                "{pending} change(s) go to the model with your next message.\n"
            ));
        }
        out
    }

    /// Subscribes and starts following; the error says why not.
    fn watch(&mut self, server: &str, uri: &str) -> Result<(), String> {
        let runtime = self.runtime().clone();
        if runtime.state(server).is_none() {
            return Err(format!(
                "no MCP server of that name; configured: {}",
                runtime.server_names().join(", ")
            ));
        }
        if !(self.enabled_filter())(server) {
            return Err("it is disabled in this session (`.mcp enable` it first)".to_owned());
        }
        if self.watches.is_watched(server, uri) {
            return Err("it is watched already".to_owned());
        }
        let handle = self.runtime_handle.block_on(async {
            // An idle server (declared from its cached catalog) starts now.
            let handle = runtime.acquire(server).await.map_err(|e| e.to_string())?;
            let updates = handle.resource_updates();
            let lists = handle.list_changes();
            match tokio::time::timeout(UNSUBSCRIBE_TIMEOUT, handle.subscribe_resource(uri)).await {
                Ok(Ok(())) => Ok((handle, updates, lists)),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err(format!(
                    "the server did not answer resources/subscribe within {} s",
                    UNSUBSCRIBE_TIMEOUT.as_secs()
                )),
            }
        });
        let (handle, updates, lists) = handle?;
        let task = self.runtime_handle.spawn(follow(
            self.watches.clone(),
            handle.clone(),
            uri.to_owned(),
            updates,
            lists,
        ));
        self.watches.board().watched.push(Watched {
            server: server.to_owned(),
            uri: uri.to_owned(),
            handle,
            task,
        });
        Ok(())
    }

    /// Ends the watches `pair` names (every one for `None`): the follower stops and the
    /// server, while it is still there, is told `resources/unsubscribe`. Returns what ended.
    pub(super) fn unwatch(&mut self, pair: Option<&(String, String)>) -> Vec<String> {
        let gone = self.watches.remove(pair);
        let mut ended = Vec::new();
        for w in gone {
            w.task.abort();
            if w.handle.state() == ServerState::Ready {
                let sent = self.runtime_handle.block_on(async {
                    tokio::time::timeout(UNSUBSCRIBE_TIMEOUT, w.handle.unsubscribe_resource(&w.uri))
                        .await
                });
                if !matches!(sent, Ok(Ok(()))) {
                    tracing::warn!(server = %w.server, uri = %w.uri, "unsubscribing failed");
                }
            }
            ended.push(format!("{} on `{}`", w.uri, w.server));
        }
        ended
    }
}

#[cfg(test)]
#[path = "watch_cmd_tests.rs"]
mod tests;
