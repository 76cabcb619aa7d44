//! Questions every front end asks while a turn or call runs, drawn with `inquire` on a paused
//! [`Screen`]: tool approval (yes / no / always for this tool in this session) and a server's
//! elicitation form (accept / decline / cancel). The REPL asks missing `.prompt` arguments
//! with the same [`Questions`] (`repl/prompt_cmd.rs`).
//!
//! Invariants:
//! - Nothing is ever approved or accepted on the user's behalf: without a terminal, approval is
//!   refused and an elicitation declined; Esc or Ctrl-C in a question refuses/cancels.
//! - One question at a time ([`Screen::question`]); the blocking prompt runs on a blocking
//!   thread so the runtime keeps serving the servers meanwhile (the call whose question is open
//!   does not time out: `coyote-mcp` pauses its inactivity timer).
//! - Ctrl-C in an approval question also cancels the turn, like Ctrl-C anywhere else during a
//!   turn; in an elicitation it answers `cancel` and the turn goes on.

use std::sync::{Arc, Mutex};

use coyote_mcp::{ElicitationHook, ElicitationRequest, ElicitationResponse, UrlElicitationRequest};
use coyote_session::{
    ApprovalDecision, ApprovalReason, ApprovalRequest, Approver, CancellationToken,
};
use futures::future::BoxFuture;
use inquire::InquireError;

use super::form::{self, Field};
use super::form_widgets;
use super::screen::Screen;
use crate::term::sanitize;

/// Longest argument text shown in an approval question.
const MAX_SHOWN_ARGUMENTS: usize = 600;

/// Whether questions can be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interactivity {
    /// stdin and stderr are terminals.
    Terminal,
    /// Answer every question negatively (refuse, decline).
    None,
}

impl Interactivity {
    pub fn detect() -> Self {
        if crate::term::caps().interactive() {
            Interactivity::Terminal
        } else {
            Interactivity::None
        }
    }
}

/// The terminal's question asker: approver and elicitation hook in one (the REPL's argument
/// asker too).
#[derive(Debug, Clone)]
pub struct Questions {
    screen: Screen,
    mode: Interactivity,
    /// The running turn's token, so Ctrl-C in an approval question can cancel the turn.
    turn: Arc<Mutex<Option<CancellationToken>>>,
}

impl Questions {
    pub fn new(screen: Screen, mode: Interactivity) -> Self {
        Questions {
            screen,
            mode,
            turn: Arc::default(),
        }
    }

    /// Records the running turn's token (`None` between turns).
    pub fn set_turn(&self, token: Option<CancellationToken>) {
        *self.turn.lock().unwrap_or_else(|p| p.into_inner()) = token;
    }

    fn cancel_turn(&self) {
        if let Some(token) = self.turn.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            token.cancel();
        }
    }

    /// Whether questions can be asked.
    pub(crate) fn mode(&self) -> Interactivity {
        self.mode
    }

    /// The screen questions pause.
    pub(crate) fn screen(&self) -> &Screen {
        &self.screen
    }

    /// Runs a blocking prompt with the screen paused; `None` when it could not run.
    pub(crate) async fn blocking<T: Send + 'static>(
        &self,
        prompt: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let _screen = self.screen.question().await;
        tokio::task::spawn_blocking(prompt).await.ok()
    }
}

/// How an approval question was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ApprovalChoice {
    Yes,
    No,
    Always,
}

const APPROVAL_CHOICES: [(ApprovalChoice, &str); 3] = [
    (ApprovalChoice::Yes, "yes"),
    (ApprovalChoice::No, "no"),
    (ApprovalChoice::Always, "always (this tool, this session)"),
];

/// The approval question's text.
pub fn approval_question(request: &ApprovalRequest) -> String {
    let why = match request.reason {
        ApprovalReason::Destructive => "it is marked destructive",
        ApprovalReason::Unannotated => {
            "it does not say whether it is destructive, which MCP reads as destructive"
        }
        ApprovalReason::NotReadOnly => {
            "the server's policy asks for every tool that is not read-only"
        }
        ApprovalReason::AnnotationsUnknown => "its annotations could not be read",
    };
    let mut arguments = request.arguments.to_string();
    if arguments.len() > MAX_SHOWN_ARGUMENTS {
        let mut cut = MAX_SHOWN_ARGUMENTS;
        while !arguments.is_char_boundary(cut) {
            cut -= 1;
        }
        arguments.truncate(cut);
        arguments.push('…');
    }
    format!(
        "Run tool `{}` on MCP server `{}` ({why})? Arguments: {arguments}",
        request.tool, request.server
    )
}

impl Approver for Questions {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'_, ApprovalDecision> {
        Box::pin(async move {
            if self.mode == Interactivity::None {
                return ApprovalDecision::Refuse {
                    note: Some("no terminal to ask the user".to_owned()),
                };
            }
            let question = sanitize(&approval_question(&request)).into_owned();
            let answer = self
                .blocking(move || {
                    let labels: Vec<&str> = APPROVAL_CHOICES.iter().map(|(_, l)| *l).collect();
                    inquire::Select::new(&question, labels)
                        .with_starting_cursor(1)
                        .with_help_message("↑↓ to move, enter to choose, esc = no")
                        .prompt()
                        .map(|label| {
                            APPROVAL_CHOICES
                                .iter()
                                .find(|(_, l)| *l == label)
                                .map(|(c, _)| *c)
                                .unwrap_or(ApprovalChoice::No)
                        })
                })
                .await;
            match answer {
                Some(Ok(ApprovalChoice::Yes)) => ApprovalDecision::Approve,
                Some(Ok(ApprovalChoice::Always)) => ApprovalDecision::ApproveAlways,
                Some(Ok(ApprovalChoice::No)) => ApprovalDecision::Refuse { note: None },
                Some(Err(InquireError::OperationInterrupted)) => {
                    self.cancel_turn();
                    ApprovalDecision::Refuse {
                        note: Some("the user interrupted the turn".to_owned()),
                    }
                }
                Some(Err(_)) | None => ApprovalDecision::Refuse { note: None },
            }
        })
    }
}

/// What to do with the server's question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FormAction {
    Fill,
    Decline,
    Cancel,
}

const FORM_ACTIONS: [(FormAction, &str); 3] = [
    (FormAction::Fill, "answer (fill in the form)"),
    (FormAction::Decline, "decline"),
    (FormAction::Cancel, "cancel"),
];

impl ElicitationHook for Questions {
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            if self.mode == Interactivity::None {
                tracing::info!(server = %request.server, "declined an elicitation: no terminal");
                self.screen.line(&format!(
                    "coyote: MCP server `{}` asked a question ({}); declined: there is no \
                     terminal to ask you",
                    request.server, request.message
                ));
                return ElicitationResponse::Decline;
            }
            let fields = match form::parse_schema(&request.requested_schema) {
                Ok(fields) => fields,
                Err(error) => {
                    self.screen.line(&format!(
                        "coyote: MCP server `{}` asked a question this client cannot show \
                         ({error}); declined",
                        request.server
                    ));
                    return ElicitationResponse::Decline;
                }
            };
            let header = sanitize(&format!(
                "MCP server `{}` asks: {}",
                request.server, request.message
            ))
            .into_owned();
            self.blocking(move || run_form(&header, &fields))
                .await
                .unwrap_or(ElicitationResponse::Cancel)
        })
    }

    fn elicit_url(&self, request: UrlElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(self.ask_url(request))
    }

    fn url_completed(&self, server: &str, elicitation_id: &str) {
        self.url_done(server, elicitation_id);
    }
}

/// The whole elicitation dialogue (blocking).
fn run_form(header: &str, fields: &[Field]) -> ElicitationResponse {
    let labels: Vec<&str> = FORM_ACTIONS.iter().map(|(_, l)| *l).collect();
    let action = inquire::Select::new(header, labels)
        .with_help_message("enter to choose; esc = cancel")
        .prompt();
    let action = match action {
        Ok(label) => FORM_ACTIONS
            .iter()
            .find(|(_, l)| *l == label)
            .map(|(a, _)| *a)
            .unwrap_or(FormAction::Cancel),
        Err(_) => FormAction::Cancel,
    };
    match action {
        FormAction::Decline => return ElicitationResponse::Decline,
        FormAction::Cancel => return ElicitationResponse::Cancel,
        FormAction::Fill => {}
    }
    let mut answers = Vec::with_capacity(fields.len());
    for field in fields {
        match form_widgets::ask_field(field) {
            Ok(answer) => answers.push(answer),
            // Esc or Ctrl-C inside the form: the user walked away from the question.
            Err(_) => return ElicitationResponse::Cancel,
        }
    }
    ElicitationResponse::Accept(form::content(fields, answers))
}

#[cfg(test)]
#[path = "questions_tests.rs"]
mod tests;
