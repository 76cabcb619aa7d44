//! The questions of the client features, asked like every other question ([`Questions`], on
//! a paused [`super::screen::Screen`], one at a time): may a server use the model (sampling:
//! approve / edit / decline, the messages shown truncated with a choice to show them whole,
//! the answer shown before it goes back), and may a server send you to a web page (URL
//! elicitation: the server, the URL's origin and the message, then open / decline / cancel).
//!
//! Without a terminal nothing is asked: sampling and URL requests are declined with a line on
//! stderr that says why and how to allow sampling. Server text is sanitized before it is shown.

use coyote_mcp::{
    ElicitationResponse, SamplingContent, SamplingRequest, SamplingResponse, SamplingRole,
    UrlElicitationRequest,
};
use coyote_session::{ConsentDecision, SamplingConsent};
use futures::future::BoxFuture;

use super::questions::{Interactivity, Questions};
use crate::term::sanitize;

/// Lines of one message shown before the "show the full messages" choice is needed.
const SHOWN_LINES_PER_MESSAGE: usize = 12;
/// Characters of one message shown.
const SHOWN_CHARS_PER_MESSAGE: usize = 1200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConsentChoice {
    Approve,
    Edit,
    Decline,
    ShowAll,
}

const CONSENT_CHOICES: [(ConsentChoice, &str); 4] = [
    (ConsentChoice::Approve, "approve: send it to the model"),
    (ConsentChoice::Edit, "edit the last message, then send it"),
    (ConsentChoice::Decline, "decline"),
    (ConsentChoice::ShowAll, "show the full messages"),
];

/// The request as shown: the server, the model, the limits, and each message (truncated
/// unless `whole`).
pub fn describe_request(request: &SamplingRequest, model: &str, whole: bool) -> String {
    let mut text = format!(
        "MCP server `{}` asks the model {model} to answer (up to {} tokens).\n",
        request.server, request.max_tokens
    );
    if let Some(system) = &request.system_prompt {
        text.push_str(&shown("system", system, whole));
    }
    for message in &request.messages {
        let role = match message.role {
            SamplingRole::User => "user",
            SamplingRole::Assistant => "assistant",
        };
        text.push_str(&shown(role, &message.text(), whole));
    }
    if !request.tools.is_empty() {
        let names: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
        text.push_str(&format!("  tools offered: {}\n", names.join(", ")));
    }
    sanitize(&text).into_owned()
}

/// One message, indented, cut at [`SHOWN_LINES_PER_MESSAGE`] / [`SHOWN_CHARS_PER_MESSAGE`]
/// unless `whole`.
fn shown(label: &str, text: &str, whole: bool) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept: String = lines
        .iter()
        .take(if whole {
            usize::MAX
        } else {
            SHOWN_LINES_PER_MESSAGE
        })
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    let mut cut = !whole && lines.len() > SHOWN_LINES_PER_MESSAGE;
    if !whole && kept.chars().count() > SHOWN_CHARS_PER_MESSAGE {
        kept = kept.chars().take(SHOWN_CHARS_PER_MESSAGE).collect();
        cut = true;
    }
    let mut out = format!("  {label}: {}\n", kept.replace('\n', "\n    "));
    if cut {
        out.push_str("    … (cut; choose \"show the full messages\" to see all of it)\n");
    }
    out
}

/// The request with its last user text replaced by `text`.
fn edited(request: &SamplingRequest, text: String) -> SamplingRequest {
    let mut edited = request.clone();
    let last_user = edited
        .messages
        .iter_mut()
        .rev()
        .find(|m| m.role == SamplingRole::User);
    match last_user {
        Some(message) => {
            message
                .content
                .retain(|c| !matches!(c, SamplingContent::Text { .. }));
            message.content.push(SamplingContent::Text { text });
        }
        None => edited.messages.push(coyote_mcp::SamplingMessage {
            role: SamplingRole::User,
            content: vec![SamplingContent::Text { text }],
        }),
    }
    edited
}

fn last_user_text(request: &SamplingRequest) -> String {
    request
        .messages
        .iter()
        .rev()
        .find(|m| m.role == SamplingRole::User)
        .map(coyote_mcp::SamplingMessage::text)
        .unwrap_or_default()
}

/// The whole consent dialogue (blocking).
#[expect(
    clippy::print_stderr,
    reason = "the question's text is drawn on stderr, where every front end asks its questions"
)]
fn consent_dialogue(request: &SamplingRequest, model: &str) -> ConsentDecision {
    let declined = || {
        ConsentDecision::Decline(format!(
            "the user declined the sampling request of MCP server `{}`",
            request.server
        ))
    };
    eprint!("{}", describe_request(request, model, false));
    loop {
        let labels: Vec<&str> = CONSENT_CHOICES.iter().map(|(_, l)| *l).collect();
        let picked = inquire::Select::new("Let this server use the model?", labels)
            .with_help_message("↑↓ to move, enter to choose, esc = decline")
            .prompt();
        let choice = match picked {
            Ok(label) => CONSENT_CHOICES
                .iter()
                .find(|(_, l)| *l == label)
                .map_or(ConsentChoice::Decline, |(c, _)| *c),
            Err(_) => ConsentChoice::Decline,
        };
        match choice {
            ConsentChoice::Approve => return ConsentDecision::Approve,
            ConsentChoice::Decline => return declined(),
            ConsentChoice::ShowAll => eprint!("{}", describe_request(request, model, true)),
            ConsentChoice::Edit => {
                // Shown sanitized: a control sequence in the server's text stays visible.
                let current = sanitize(&last_user_text(request)).into_owned();
                let text = inquire::Text::new("The message to send instead:")
                    .with_default(&current)
                    .with_help_message("enter keeps the server's text; esc = decline")
                    .prompt();
                return match text {
                    Ok(text) => ConsentDecision::ApproveEdited(edited(request, text)),
                    Err(_) => declined(),
                };
            }
        }
    }
}

/// Shows the answer and asks whether it goes back (blocking).
#[expect(
    clippy::print_stderr,
    reason = "the question's text is drawn on stderr, where every front end asks its questions"
)]
fn review_dialogue(request: &SamplingRequest, response: &SamplingResponse) -> bool {
    let text: Vec<String> = response
        .content
        .iter()
        .map(|c| match c {
            SamplingContent::Text { text } => text.clone(),
            SamplingContent::ToolUse { name, input, .. } => {
                format!(
                    "[calls {name} {}]",
                    serde_json::Value::Object(input.clone())
                )
            }
            other => format!("{other:?}"),
        })
        .collect();
    eprint!(
        "The model ({}) answered MCP server `{}`:\n{}",
        sanitize(&response.model),
        request.server,
        shown("answer", &sanitize(&text.join("\n")), false)
    );
    let labels = vec![
        "send it to the server",
        "withhold it (the server gets a refusal)",
    ];
    matches!(
        inquire::Select::new("Send this answer?", labels)
            .with_help_message("enter to choose; esc = withhold")
            .prompt(),
        Ok("send it to the server")
    )
}

impl SamplingConsent for Questions {
    fn ask<'a>(
        &'a self,
        request: &'a SamplingRequest,
        model: &'a str,
    ) -> BoxFuture<'a, ConsentDecision> {
        Box::pin(async move {
            if self.mode() == Interactivity::None {
                self.screen().line(&format!(
                    "coyote: MCP server `{}` asked the model to answer (sampling); declined: \
                     there is no terminal to ask you. To allow it, run coyote with \
                     --allow-sampling.",
                    request.server
                ));
                return ConsentDecision::Decline(
                    "coyote runs without a terminal, so the user could not be asked; start it \
                     with --allow-sampling to allow sampling"
                        .to_owned(),
                );
            }
            let request_copy = request.clone();
            let model = model.to_owned();
            self.blocking(move || consent_dialogue(&request_copy, &model))
                .await
                .unwrap_or_else(|| {
                    ConsentDecision::Decline("the question could not be shown".to_owned())
                })
        })
    }

    fn review<'a>(
        &'a self,
        request: &'a SamplingRequest,
        response: &'a SamplingResponse,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            if self.mode() == Interactivity::None {
                return true;
            }
            let (request, response) = (request.clone(), response.clone());
            self.blocking(move || review_dialogue(&request, &response))
                .await
                .unwrap_or(false)
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UrlChoice {
    Open,
    Decline,
    Cancel,
}

/// The URL question's text: the server, the message, the site and the whole URL.
pub fn describe_url(request: &UrlElicitationRequest) -> String {
    let site = request
        .origin()
        .unwrap_or_else(|| "not a web address (it will not be opened)".to_owned());
    sanitize(&format!(
        "MCP server `{}` asks you to open a web page.\n  message: {}\n  site: {site}\n  \
         URL: {}\n",
        request.server, request.message, request.url
    ))
    .into_owned()
}

#[expect(
    clippy::print_stderr,
    reason = "the question's text is drawn on stderr, where every front end asks its questions"
)]
fn url_dialogue(request: &UrlElicitationRequest) -> ElicitationResponse {
    eprint!("{}", describe_url(request));
    let mut choices = vec![
        (UrlChoice::Decline, "decline"),
        (UrlChoice::Cancel, "cancel"),
    ];
    if request.origin().is_some() {
        choices.insert(0, (UrlChoice::Open, "open it in the browser"));
    }
    let labels: Vec<&str> = choices.iter().map(|(_, l)| *l).collect();
    let picked = inquire::Select::new("Open this page?", labels)
        .with_help_message("enter to choose; esc = cancel")
        .prompt();
    let choice = match picked {
        Ok(label) => choices
            .iter()
            .find(|(_, l)| *l == label)
            .map_or(UrlChoice::Cancel, |(c, _)| *c),
        Err(_) => UrlChoice::Cancel,
    };
    match choice {
        UrlChoice::Decline => ElicitationResponse::Decline,
        UrlChoice::Cancel => ElicitationResponse::Cancel,
        UrlChoice::Open => {
            match coyote_mcp::browser::open(&request.url) {
                Some(browser) => eprintln!("coyote: opened the page with {browser}"),
                None => eprintln!(
                    "coyote: no browser could be started ($BROWSER, xdg-open or open); open the \
                     URL above yourself"
                ),
            }
            ElicitationResponse::Accept(serde_json::Map::new())
        }
    }
}

impl Questions {
    /// A server's URL elicitation (see the module docs).
    pub(super) async fn ask_url(&self, request: UrlElicitationRequest) -> ElicitationResponse {
        if self.mode() == Interactivity::None {
            self.screen().line(&sanitize(&format!(
                "coyote: MCP server `{}` asked you to open {} ({}); declined: there is no \
                 terminal to ask you",
                request.server, request.url, request.message
            )));
            return ElicitationResponse::Decline;
        }
        self.blocking(move || url_dialogue(&request))
            .await
            .unwrap_or(ElicitationResponse::Cancel)
    }

    /// The server finished the web page step it sent the user to.
    pub(super) fn url_done(&self, server: &str, elicitation_id: &str) {
        tracing::info!(server, elicitation_id, "URL elicitation complete");
        self.screen().line(&sanitize(&format!(
            "coyote: MCP server `{server}` reports the web page step is complete"
        )));
    }
}

#[cfg(test)]
#[path = "client_questions_tests.rs"]
mod tests;
