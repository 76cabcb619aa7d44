//! Server questions in the daemon: a server's elicitation — a form, or a page
//! to open — goes to the command it arrived during, on that command's own terminal. The
//! daemon's servers get a [`Forwarder`] as their elicitation hook; each running command whose
//! client can ask (stdin and stderr are terminals) is attached to it, and a question goes to
//! the most recently attached one, which asks its user with the same widgets as a command run
//! alone ([`ask_here`]) and sends the answer back. Sampling goes the same way: the consent
//! question before the model is asked and the review of its answer (unless the daemon was
//! started with `--allow-sampling`). With no such command attached a question is declined,
//! as a command without a terminal declines it.
//!
//! Invariants: nothing is answered on the user's behalf — a client that goes away, or a
//! question nobody can be asked, is a cancel or a decline; a question waits for its own
//! client's answer only.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use coyote_mcp::{
    ElicitationHook, ElicitationRequest, ElicitationResponse, SamplingRequest, SamplingResponse,
    UrlElicitationRequest,
};
use coyote_session::{ConsentDecision, SamplingConsent};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

use crate::ui::questions::{Interactivity, Questions};
use crate::ui::screen::Screen;

/// A question a server asked, on its way to the attached command.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Question {
    /// A form (`elicitation/create`, form mode).
    Form(ElicitationRequest),
    /// A page to open (URL mode).
    Url(UrlElicitationRequest),
    /// May the server have the model answer this (`model` would answer)?
    Sampling {
        request: SamplingRequest,
        model: String,
    },
    /// The model's answer, before it goes back to the server.
    Review {
        request: SamplingRequest,
        response: SamplingResponse,
    },
}

/// The user's answer to a [`Question`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Answer {
    /// To a form or a page.
    Elicitation {
        response: ElicitationResponse,
    },
    /// To the sampling question: approve, approve this edited request, or decline (the text
    /// goes back to the server).
    Approve,
    ApproveEdited {
        request: SamplingRequest,
    },
    Decline {
        reason: String,
    },
    /// To the review: send the answer to the server or withhold it.
    Review {
        send: bool,
    },
}

/// Why a question nobody could be asked is declined (the text the server gets).
const NOBODY: &str = "no command with a terminal is running in the coyote session to ask the \
                      user; start the daemon with --allow-sampling to allow sampling";

/// A question for one attached command and where its answer goes.
pub struct Ask {
    pub question: Question,
    pub answer: oneshot::Sender<Answer>,
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

    /// Asks the most recently attached command.
    async fn ask(&self, server: &str, question: Question) -> Asked {
        let target = self.list().last().map(|a| a.asks.clone());
        let Some(target) = target else {
            tracing::info!(
                server,
                "declined a server question: no command that can ask its user is running"
            );
            return Asked::Nobody;
        };
        let (tx, rx) = oneshot::channel();
        if target
            .send(Ask {
                question,
                answer: tx,
            })
            .is_err()
        {
            return Asked::Gone;
        }
        rx.await.map_or(Asked::Gone, Asked::Answered)
    }

    /// A form or page question: nobody to ask declines, a client that left cancels.
    async fn elicitation(&self, server: &str, question: Question) -> ElicitationResponse {
        match self.ask(server, question).await {
            Asked::Answered(Answer::Elicitation { response }) => response,
            Asked::Nobody => ElicitationResponse::Decline,
            Asked::Gone | Asked::Answered(_) => ElicitationResponse::Cancel,
        }
    }
}

/// What became of a question.
enum Asked {
    /// No command that can ask was attached.
    Nobody,
    /// The command went away before answering.
    Gone,
    Answered(Answer),
}

impl ElicitationHook for Forwarder {
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let server = request.server.clone();
            self.elicitation(&server, Question::Form(request)).await
        })
    }

    fn elicit_url(&self, request: UrlElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let server = request.server.clone();
            self.elicitation(&server, Question::Url(request)).await
        })
    }
}

impl SamplingConsent for Forwarder {
    fn ask<'a>(
        &'a self,
        request: &'a SamplingRequest,
        model: &'a str,
    ) -> BoxFuture<'a, ConsentDecision> {
        Box::pin(async move {
            let question = Question::Sampling {
                request: request.clone(),
                model: model.to_owned(),
            };
            match Forwarder::ask(self, &request.server, question).await {
                Asked::Answered(Answer::Approve) => ConsentDecision::Approve,
                Asked::Answered(Answer::ApproveEdited { request }) => {
                    ConsentDecision::ApproveEdited(request)
                }
                Asked::Answered(Answer::Decline { reason }) => ConsentDecision::Decline(reason),
                Asked::Nobody => ConsentDecision::Decline(NOBODY.to_owned()),
                Asked::Gone | Asked::Answered(_) => {
                    ConsentDecision::Decline("the user gave no answer".to_owned())
                }
            }
        })
    }

    fn review<'a>(
        &'a self,
        request: &'a SamplingRequest,
        response: &'a SamplingResponse,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let question = Question::Review {
                request: request.clone(),
                response: response.clone(),
            };
            // Approved by a user who is gone: the answer is withheld.
            matches!(
                Forwarder::ask(self, &request.server, question).await,
                Asked::Answered(Answer::Review { send: true })
            )
        })
    }
}

/// Asks this process's user a question the daemon forwarded (the client side).
pub async fn ask_here(question: Question) -> Answer {
    let questions = Questions::new(Screen::new(), Interactivity::detect());
    match question {
        Question::Form(request) => Answer::Elicitation {
            response: questions.elicit(request).await,
        },
        Question::Url(request) => Answer::Elicitation {
            response: questions.elicit_url(request).await,
        },
        Question::Sampling { request, model } => {
            match SamplingConsent::ask(&questions, &request, &model).await {
                ConsentDecision::Approve => Answer::Approve,
                ConsentDecision::ApproveEdited(request) => Answer::ApproveEdited { request },
                ConsentDecision::Decline(reason) => Answer::Decline { reason },
            }
        }
        Question::Review { request, response } => Answer::Review {
            send: questions.review(&request, &response).await,
        },
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
            let _ = ask.answer.send(Answer::Elicitation {
                response: ElicitationResponse::Accept(serde_json::Map::new()),
            });
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

    fn sampling(server: &str) -> SamplingRequest {
        serde_json::from_value(serde_json::json!({
            "server": server, "messages": [], "system_prompt": null, "max_tokens": 10,
            "temperature": null, "stop_sequences": [], "model_hints": [],
            "include_context": null, "tools": [], "tool_choice": null
        }))
        .unwrap_or_else(|e| panic!("a sampling request: {e}"))
    }

    #[tokio::test]
    async fn sampling_consent_is_asked_of_the_attached_command_and_declined_without_one() {
        let forwarder = Forwarder::default();
        let request = sampling("s");
        match SamplingConsent::ask(&forwarder, &request, "fake:m").await {
            ConsentDecision::Decline(reason) => assert!(reason.contains("--allow-sampling")),
            other => panic!("{other:?}"),
        }
        let mut attached = forwarder.attach();
        let asked = SamplingConsent::ask(&forwarder, &request, "fake:m");
        let answer = async {
            let ask = attached.asks.recv().await.expect("a question");
            assert!(matches!(&ask.question, Question::Sampling { model, .. } if model == "fake:m"));
            let _ = ask.answer.send(Answer::Approve);
        };
        let (decision, ()) = tokio::join!(asked, answer);
        assert_eq!(decision, ConsentDecision::Approve);
        // The review of the answer goes the same way; a client that leaves withholds it.
        let response: SamplingResponse = serde_json::from_value(serde_json::json!({
            "model": "m", "content": [], "stop": "end_turn"
        }))
        .unwrap_or_else(|e| panic!("a sampling response: {e}"));
        let reviewed = forwarder.review(&request, &response);
        let leave = async {
            let ask = attached.asks.recv().await.expect("the review");
            assert!(matches!(ask.question, Question::Review { .. }));
            drop(ask);
        };
        let (send, ()) = tokio::join!(reviewed, leave);
        assert!(!send, "an answer nobody reviewed was sent");
    }
}
