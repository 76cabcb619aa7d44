//! The inactivity timeout of a request, owned here instead of by rmcp, so that it can pause
//! while the user is answering the server's question ("the call's inactivity timeout
//! pauses while the question is open").
//!
//! Invariants:
//! - A request expires after `call_timeout` with no sign of life. A progress notification for
//!   the request (matched by its progress token) restarts the full timeout.
//! - While any elicitation of the same connection is open, no request of that connection can
//!   expire; when the last question closes every timer restarts from the full timeout. The
//!   client cannot tell which request an elicitation belongs to (stdio carries no related
//!   request id), so pausing every request of the connection is the safe choice: a question a
//!   person is reading must never make the call it belongs to fail.
//! - A request made under [`crate::progress::observe`] hands its progress to that observer.
//! - Watchers are removed when the request finishes (guard `Drop`), so the map holds only
//!   requests in flight.
//! - Once a request of the connection expired, the connection remembers it: its server is
//!   stuck, so closing it kills the process group at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::ProgressToken;
use tokio::sync::{Notify, watch};

use crate::progress::{ProgressObserver, ProgressUpdate};

/// Per-connection signals shared by the client handler (which observes them) and the handles
/// (whose requests wait on them).
#[derive(Debug)]
pub(crate) struct CallActivity {
    /// Number of elicitations being answered right now.
    questions: watch::Sender<usize>,
    progress: Mutex<HashMap<ProgressToken, Watcher>>,
    /// A request of this connection timed out.
    timed_out: AtomicBool,
}

/// What a request in flight registered: its timer's signal and its caller's observer.
struct Watcher {
    notify: Arc<Notify>,
    observer: Option<ProgressObserver>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("observed", &self.observer.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for CallActivity {
    fn default() -> Self {
        CallActivity {
            questions: watch::channel(0).0,
            progress: Mutex::new(HashMap::new()),
            timed_out: AtomicBool::new(false),
        }
    }
}

impl CallActivity {
    /// Marks a question open until the guard drops (also on panic or cancellation).
    pub(crate) fn question_opened(&self) -> QuestionGuard<'_> {
        self.questions.send_modify(|n| *n += 1);
        QuestionGuard { activity: self }
    }

    /// A progress notification arrived for `token`.
    #[cfg(test)]
    pub(crate) fn progress(&self, token: &ProgressToken) {
        self.progress_update(token, None);
    }

    /// A progress notification arrived for `token`: restarts its timer and, when its caller
    /// observes progress, hands it the update (outside the lock).
    pub(crate) fn progress_update(&self, token: &ProgressToken, update: Option<&ProgressUpdate>) {
        let found = self
            .progress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(token)
            .map(|w| (w.notify.clone(), w.observer.clone()));
        if let Some((notify, observer)) = found {
            // `notify_one` stores a permit when nobody waits yet, so no progress is lost.
            notify.notify_one();
            if let (Some(observer), Some(update)) = (observer, update) {
                observer(update);
            }
        }
    }

    /// A request of this connection expired (see [`CallActivity::expired`]).
    pub(crate) fn mark_timed_out(&self) {
        self.timed_out.store(true, Ordering::Release);
    }

    /// Whether a request of this connection ever expired.
    pub(crate) fn any_timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Acquire)
    }

    /// Starts watching the progress of one request.
    pub(crate) fn watch(&self, token: ProgressToken) -> ProgressWatch<'_> {
        let notify = Arc::new(Notify::new());
        let watcher = Watcher {
            notify: notify.clone(),
            observer: crate::progress::current(),
        };
        self.progress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(token.clone(), watcher);
        ProgressWatch {
            activity: self,
            token,
            notify,
        }
    }

    /// Completes once the request watched by `watch` was inactive for `timeout` while no
    /// question was open. Never completes while a question stays open.
    pub(crate) async fn expired(&self, timeout: Duration, watch: &ProgressWatch<'_>) {
        let mut questions = self.questions.subscribe();
        loop {
            // Paused while a question is open (the sender lives in `self`, so this cannot
            // fail while we borrow it).
            if questions.wait_for(|n| *n == 0).await.is_err() {
                return;
            }
            tokio::select! {
                () = tokio::time::sleep(timeout) => return,
                () = watch.notify.notified() => {}
                _ = questions.wait_for(|n| *n > 0) => {}
            }
        }
    }

    #[cfg(test)]
    pub(crate) fn open_questions(&self) -> usize {
        *self.questions.borrow()
    }
}

/// An open question; dropping it closes the question.
#[derive(Debug)]
pub(crate) struct QuestionGuard<'a> {
    activity: &'a CallActivity,
}

impl Drop for QuestionGuard<'_> {
    fn drop(&mut self) {
        self.activity
            .questions
            .send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// The progress watcher of one request; dropping it unregisters it.
#[derive(Debug)]
pub(crate) struct ProgressWatch<'a> {
    activity: &'a CallActivity,
    token: ProgressToken,
    notify: Arc<Notify>,
}

impl Drop for ProgressWatch<'_> {
    fn drop(&mut self) {
        self.activity
            .progress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.token);
    }
}

#[cfg(test)]
#[path = "activity_tests.rs"]
mod tests;
