//! What a caller sees of a request's progress (`notifications/progress`): every request carries
//! a progress token (rmcp sets one), and a caller that wants the updates runs its request
//! inside [`observe`] with a [`ProgressObserver`]. The observer is a task-local, so it reaches
//! every request made while the future runs — a whole model turn with its parallel tool calls,
//! or one `tools/call` — without a parameter through every layer.
//!
//! Invariants:
//! - The observer is called on the connection's task for every notification that matches a
//!   request in flight: it must be cheap and must not block (keep the latest update, draw at
//!   your own rate). Nothing is queued here, so a flood of notifications costs no memory.
//! - Notifications for finished or unknown requests are dropped.

use std::sync::Arc;

/// One `notifications/progress` of a request in flight.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressUpdate {
    /// The server that sent it.
    pub server: String,
    /// How far the work is (grows with each notification).
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// The server's message (raw: sanitize before showing it on a terminal).
    pub message: Option<String>,
}

impl ProgressUpdate {
    /// The fraction done (0–1) when a positive total is known.
    pub fn fraction(&self) -> Option<f64> {
        self.total
            .filter(|t| *t > 0.0)
            .map(|t| (self.progress / t).clamp(0.0, 1.0))
    }
}

/// Receives the progress of the requests made under [`observe`].
pub type ProgressObserver = Arc<dyn Fn(&ProgressUpdate) + Send + Sync>;

tokio::task_local! {
    static OBSERVER: ProgressObserver;
}

/// Runs `future` with `observer` receiving the progress of every request it makes.
pub async fn observe<F: Future>(observer: ProgressObserver, future: F) -> F::Output {
    OBSERVER.scope(observer, future).await
}

/// The observer of the running task, if any.
pub(crate) fn current() -> Option<ProgressObserver> {
    OBSERVER.try_with(Arc::clone).ok()
}

#[cfg(test)]
#[path = "progress_tests.rs"]
mod tests;
