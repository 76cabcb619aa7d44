//! Elicitation as the embedder sees it: a server's form question ([`ElicitationRequest`]) or
//! its request to send the user to a web page ([`UrlElicitationRequest`]), the user's answer
//! ([`ElicitationResponse`]), and the [`ElicitationHook`] that asks. The default hook,
//! [`DeclineElicitation`], declines both kinds: nothing is answered on the user's behalf.

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// A server's form elicitation, converted to our types.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitationRequest {
    /// The configured name of the server asking.
    pub server: String,
    /// The server's message to the user.
    pub message: String,
    /// The `requestedSchema` object (flat properties of primitive/enum types).
    pub requested_schema: serde_json::Value,
}

/// A server's URL elicitation: it asks the user to open `url` (a sign-in, a payment, a
/// consent page) and tells the client later, with `notifications/elicitation/complete`, that
/// the step is done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlElicitationRequest {
    /// The configured name of the server asking.
    pub server: String,
    /// The server's message to the user.
    pub message: String,
    /// The page to open, exactly as the server sent it.
    pub url: String,
    /// The server's id of this elicitation (named again in the completion notification).
    pub elicitation_id: String,
}

impl UrlElicitationRequest {
    /// The URL's origin (`https://example.com:8443`), what the user should check before
    /// opening it; `None` when it may not be opened: not https, nor http to this computer
    /// ([`crate::browser::openable_origin`]).
    pub fn origin(&self) -> Option<String> {
        crate::browser::openable_origin(&self.url).ok()
    }
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ElicitationResponse {
    /// Submit these values (must match the requested schema; empty for a URL elicitation,
    /// where accepting means the user agreed to open the page).
    Accept(serde_json::Map<String, serde_json::Value>),
    /// The user declined to answer.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

/// Asks the user what a server requested. Implemented by the embedder (the REPL, one-shot
/// chat and `coyote mcp call` on a terminal); [`DeclineElicitation`] is the default.
pub trait ElicitationHook: Send + Sync + 'static {
    /// Asks the user a form question; the future resolves with their answer.
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse>;

    /// Asks the user whether to open a page; the default declines.
    fn elicit_url(&self, request: UrlElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        tracing::info!(server = %request.server, "declined a URL elicitation (no interactive hook)");
        Box::pin(std::future::ready(ElicitationResponse::Decline))
    }

    /// The server says the URL elicitation `elicitation_id` is complete
    /// (`notifications/elicitation/complete`); the default only logs it.
    fn url_completed(&self, server: &str, elicitation_id: &str) {
        tracing::info!(server, elicitation_id, "URL elicitation complete");
    }
}

/// Declines every elicitation (non-interactive runs and the default).
#[derive(Debug, Default, Clone, Copy)]
pub struct DeclineElicitation;

impl ElicitationHook for DeclineElicitation {
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        tracing::info!(server = %request.server, "declined an elicitation (no interactive hook)");
        Box::pin(std::future::ready(ElicitationResponse::Decline))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(url: &str) -> UrlElicitationRequest {
        UrlElicitationRequest {
            server: "s".into(),
            message: "m".into(),
            url: url.into(),
            elicitation_id: "e".into(),
        }
    }

    #[test]
    fn the_origin_is_scheme_host_and_port_of_http_urls_only() {
        assert_eq!(
            request("https://user:pw@pay.example.com:8443/x?y=1").origin(),
            Some("https://pay.example.com:8443".to_owned())
        );
        assert_eq!(
            request("http://127.0.0.1/a").origin(),
            Some("http://127.0.0.1".to_owned())
        );
        assert_eq!(request("javascript:alert(1)").origin(), None);
        assert_eq!(request("not a url").origin(), None);
    }
}
