//! Server questions in a session daemon (issue 24): a server's elicitation — a form, or a page
//! to open — goes to the command it arrived during, on that command's own terminal. The
//! daemon's servers get a [`Forwarder`] as their elicitation hook; each running command whose
//! client can ask (stdin and stderr are terminals) is attached to it, and a question goes to
//! the most recently attached one, which asks its user with the same widgets as a command run
//! alone ([`ask_here`]) and sends the answer back. With no such command attached the question
//! is declined, as before. Sampling is not forwarded: the daemon declines it unless it was
//! started with `--allow-sampling`.
//!
//! Invariants: nothing is answered on the user's behalf — a client that goes away, or a
//! question nobody can be asked, is a cancel or a decline; a question waits for its own
//! client's answer only.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use coyote_mcp::{ElicitationHook, ElicitationRequest, ElicitationResponse, UrlElicitationRequest};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

use crate::repl::questions::{Interactivity, Questions};
use crate::repl::screen::Screen;

/// A question a server asked, on its way to the attached command.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Question {
    /// A form (`elicitation/create`, form mode).
    Form(ElicitationRequest),
    /// A page to open (URL mode).
    Url(UrlElicitationRequest),
}

/// A question for one attached command and where its answer goes.
pub struct Ask {
    pub question: Question,
    pub answer: oneshot::Sender<ElicitationResponse>,
}

/// One attached command.
struct Attached {
    id: u64,
    asks: mpsc::UnboundedSender<Ask>,
}

/// The daemon's elicitation hook: routes each question to an attached command.
#[derive(Default)]
pub struct Forwarder {
    attached: Mutex<Vec<Attached>>,
    next: AtomicU64,
}

/// An attached command; detaches when dropped.
pub struct Attachment<'a> {
    forwarder: &'a Forwarder,
    id: u64,
    /// The questions for this command.
    pub asks: mpsc::UnboundedReceiver<Ask>,
}

impl Drop for Attachment<'_> {
    fn drop(&mut self) {
        self.forwarder.list().retain(|a| a.id != self.id);
    }
}

impl Forwarder {
    fn list(&self) -> std::sync::MutexGuard<'_, Vec<Attached>> {
        self.attached.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Attaches a running command that can ask its user.
    pub fn attach(&self) -> Attachment<'_> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        self.list().push(Attached { id, asks: tx });
        Attachment {
            forwarder: self,
            id,
            asks: rx,
        }
    }

    /// Asks the most recently attached command; a decline when none is, a cancel when it
    /// goes away before answering.
    async fn ask(&self, server: &str, question: Question) -> ElicitationResponse {
        let target = self.list().last().map(|a| a.asks.clone());
        let Some(target) = target else {
            tracing::info!(
                server,
                "declined a server question: no command that can ask its user is running"
            );
            return ElicitationResponse::Decline;
        };
        let (tx, rx) = oneshot::channel();
        if target
            .send(Ask {
                question,
                answer: tx,
            })
            .is_err()
        {
            return ElicitationResponse::Decline;
        }
        rx.await.unwrap_or(ElicitationResponse::Cancel)
    }
}

impl ElicitationHook for Forwarder {
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let server = request.server.clone();
            self.ask(&server, Question::Form(request)).await
        })
    }

    fn elicit_url(&self, request: UrlElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let server = request.server.clone();
            self.ask(&server, Question::Url(request)).await
        })
    }
}

/// Asks this process's user a question the daemon forwarded (the client side).
pub async fn ask_here(question: Question) -> ElicitationResponse {
    let questions = Questions::new(Screen::new(), Interactivity::detect());
    match question {
        Question::Form(request) => questions.elicit(request).await,
        Question::Url(request) => questions.elicit_url(request).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(server: &str) -> ElicitationRequest {
        ElicitationRequest {
            server: server.to_owned(),
            message: "Who?".to_owned(),
            requested_schema: serde_json::json!({"type": "object"}),
        }
    }

    #[tokio::test]
    async fn a_question_goes_to_the_latest_attached_command_and_its_answer_comes_back() {
        let forwarder = Forwarder::default();
        let mut first = forwarder.attach();
        let mut second = forwarder.attach();
        let asked = forwarder.elicit(form("s"));
        let answer = async {
            let ask = second.asks.recv().await.expect("a question");
            assert!(matches!(&ask.question, Question::Form(r) if r.message == "Who?"));
            let _ = ask
                .answer
                .send(ElicitationResponse::Accept(serde_json::Map::new()));
        };
        let (response, ()) = tokio::join!(asked, answer);
        assert_eq!(
            response,
            ElicitationResponse::Accept(serde_json::Map::new())
        );
        assert!(
            first.asks.try_recv().is_err(),
            "the other command was asked"
        );
    }

    #[tokio::test]
    async fn with_nobody_attached_it_is_declined_and_a_client_that_leaves_cancels() {
        let forwarder = Forwarder::default();
        assert_eq!(
            forwarder.elicit(form("s")).await,
            ElicitationResponse::Decline
        );
        let attached = forwarder.attach();
        let asked = forwarder.elicit(form("s"));
        let leave = async move {
            let mut attached = attached;
            let ask = attached.asks.recv().await.expect("a question");
            drop(ask); // the client went away without answering
            drop(attached);
        };
        let (response, ()) = tokio::join!(asked, leave);
        assert_eq!(response, ElicitationResponse::Cancel);
        assert_eq!(
            forwarder.elicit(form("s")).await,
            ElicitationResponse::Decline,
            "a detached command is not asked"
        );
    }
}
