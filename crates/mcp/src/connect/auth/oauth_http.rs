//! The HTTP client every OAuth request goes through (discovery, registration, tokens): reqwest
//! with a per-request timeout ([`OAUTH_HTTP_TIMEOUT`]) and a bounded body, plus a journal of the
//! answers that were not usable, so an error can say which URL answered what — rmcp's own
//! errors carry neither the URL nor the status. The journal keeps the method, the URL without
//! its query, the status and the OAuth `error`/`error_description` fields: never a body.
//!
//! While DPoP is in use ([`DpopState`]), every POST to the token endpoint — rmcp's code
//! exchange, refresh and client-credentials requests alike — carries a fresh proof, and a
//! `use_dpop_nonce` answer is retried once with the nonce the server sent.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use rmcp::transport::auth::{
    OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture, OAuthHttpRedirectPolicy,
    OAuthHttpRequest,
};

use super::dpop::{DPOP_HEADER, DPOP_NONCE_HEADER, DpopState};
use crate::error::fmt_duration;

/// Bound of one OAuth HTTP request (connect + answer).
pub const OAUTH_HTTP_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest OAuth answer read (metadata documents and token responses are small).
const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Answers remembered (the failure is among the last few requests of a step).
const JOURNAL_LEN: usize = 16;
/// Longest `error_description` kept for a message.
const MAX_DESCRIPTION_CHARS: usize = 200;

/// One answer that was not usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HttpNote {
    pub(crate) method: String,
    /// Without query and fragment.
    pub(crate) url: String,
    /// `HTTP 500 Internal Server Error`, `HTTP 400 Bad Request (invalid_grant: …)`,
    /// `no answer within 10 s`, …
    pub(crate) answer: String,
}

/// What the OAuth requests of one server answered; shared by the client and the flow.
#[derive(Debug, Clone, Default)]
pub(crate) struct Journal(Arc<Mutex<Vec<HttpNote>>>);

impl Journal {
    fn push(&self, note: HttpNote) {
        let mut notes = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if notes.len() == JOURNAL_LEN {
            notes.remove(0);
        }
        notes.push(note);
    }

    /// The latest note about `url` (query ignored).
    pub(crate) fn about(&self, url: &str) -> Option<HttpNote> {
        let url = strip_query(url);
        let notes = self.0.lock().unwrap_or_else(|p| p.into_inner());
        notes.iter().rev().find(|n| n.url == url).cloned()
    }
}

/// reqwest for rmcp's OAuth code, journaling unusable answers.
pub(crate) struct JournalingClient {
    follow: reqwest::Client,
    stop: reqwest::Client,
    journal: Journal,
    dpop: Arc<DpopState>,
}

impl JournalingClient {
    pub(crate) fn new(journal: Journal, dpop: Arc<DpopState>) -> Result<Self, reqwest::Error> {
        let build = |redirect| {
            reqwest::Client::builder()
                .timeout(OAUTH_HTTP_TIMEOUT)
                .redirect(redirect)
                .build()
        };
        Ok(JournalingClient {
            follow: build(reqwest::redirect::Policy::limited(10))?,
            stop: build(reqwest::redirect::Policy::none())?,
            journal,
            dpop,
        })
    }

    async fn run(&self, request: OAuthHttpRequest) -> Result<http::Response<Vec<u8>>, String> {
        let OAuthHttpRequest {
            request,
            redirect_policy,
            ..
        } = request;
        let key = (request.method() == http::Method::POST)
            .then(|| self.dpop.for_token_request(&request.uri().to_string()))
            .flatten();
        let Some(key) = key else {
            return self.send(request, redirect_policy).await;
        };
        let (parts, body) = request.into_parts();
        let url = parts.uri.to_string();
        let with_proof = |nonce: Option<String>| -> Result<http::Request<Vec<u8>>, String> {
            let proof = key
                .proof("POST", &url, None, nonce.as_deref())
                .map_err(|e| e.to_string())?;
            let mut request = http::Request::from_parts(parts.clone(), body.clone());
            let value = http::HeaderValue::from_str(&proof).map_err(|e| e.to_string())?;
            request.headers_mut().insert(DPOP_HEADER, value);
            Ok(request)
        };
        let sent_nonce = self.dpop.as_nonce();
        let response = self
            .send(with_proof(sent_nonce.clone())?, redirect_policy)
            .await?;
        let nonce = response
            .headers()
            .get(DPOP_NONCE_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        if let Some(nonce) = &nonce {
            self.dpop.set_as_nonce(nonce);
        }
        let asks_nonce = response.status() == http::StatusCode::BAD_REQUEST
            && oauth_error(response.body()).as_deref() == Some("use_dpop_nonce");
        match nonce {
            Some(nonce) if asks_nonce && Some(&nonce) != sent_nonce.as_ref() => {
                tracing::debug!("the authorization server asked for a DPoP nonce; retrying once");
                self.send(with_proof(Some(nonce))?, redirect_policy).await
            }
            _ => Ok(response),
        }
    }

    async fn send(
        &self,
        request: http::Request<Vec<u8>>,
        redirect_policy: OAuthHttpRedirectPolicy,
    ) -> Result<http::Response<Vec<u8>>, String> {
        let client = match redirect_policy {
            OAuthHttpRedirectPolicy::Stop => &self.stop,
            _ => &self.follow,
        };
        let method = request.method().to_string();
        let url = strip_query(&request.uri().to_string());
        let request = reqwest::Request::try_from(request).map_err(|e| e.to_string())?;
        let note = |answer: String| HttpNote {
            method: method.clone(),
            url: url.clone(),
            answer,
        };
        let response = match client.execute(request).await {
            Ok(response) => response,
            Err(e) => {
                let answer = describe_send_error(&e);
                self.journal.push(note(answer.clone()));
                return Err(answer);
            }
        };
        let status = response.status();
        let mut builder = http::Response::builder()
            .status(status)
            .version(response.version());
        for (name, value) in response.headers() {
            builder = builder.header(name, value);
        }
        let mut body = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| {
                let answer = describe_send_error(&e);
                self.journal.push(note(answer.clone()));
                answer
            })?;
            if body.len() + chunk.len() > MAX_BODY_BYTES {
                let answer = format!(
                    "HTTP {} with an answer over {} KiB",
                    status.as_u16(),
                    MAX_BODY_BYTES / 1024
                );
                self.journal.push(note(answer.clone()));
                return Err(answer);
            }
            body.extend_from_slice(&chunk);
        }
        if let Some(answer) = unusable_answer(status, &body) {
            self.journal.push(note(answer));
        }
        builder.body(body).map_err(|e| e.to_string())
    }
}

impl OAuthHttpClient for JournalingClient {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move { self.run(request).await.map_err(OAuthHttpClientError::from) })
    }
}

/// `Some(description)` for an error status, or a success whose body is not a JSON object.
pub(crate) fn unusable_answer(status: http::StatusCode, body: &[u8]) -> Option<String> {
    let reason = status.canonical_reason().unwrap_or("");
    let json: Option<serde_json::Map<String, serde_json::Value>> =
        serde_json::from_slice(body).ok();
    if status.is_success() || status.is_redirection() {
        return match (status.is_success(), json) {
            (true, None) => Some(format!(
                "HTTP {} {reason} with an answer that is not a JSON object",
                status.as_u16()
            )),
            _ => None,
        };
    }
    let oauth_error = json.as_ref().and_then(|j| {
        let error = j.get("error")?.as_str()?;
        let description = j
            .get("error_description")
            .and_then(|d| d.as_str())
            .map(|d| {
                let d: String = d
                    .chars()
                    .filter(|c| !c.is_control())
                    .take(MAX_DESCRIPTION_CHARS)
                    .collect();
                format!(": {d}")
            })
            .unwrap_or_default();
        let error: String = error.chars().filter(|c| !c.is_control()).take(64).collect();
        Some(format!(" ({error}{description})"))
    });
    Some(format!(
        "HTTP {} {reason}{}",
        status.as_u16(),
        oauth_error.unwrap_or_default()
    ))
}

/// The OAuth `error` code of an answer body, if it has one.
pub(crate) fn oauth_error(body: &[u8]) -> Option<String> {
    let json: serde_json::Value = serde_json::from_slice(body).ok()?;
    json.get("error")?.as_str().map(str::to_owned)
}

fn describe_send_error(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        format!("no answer within {}", fmt_duration(OAUTH_HTTP_TIMEOUT))
    } else if e.is_connect() {
        "no connection (is the server running and reachable?)".to_owned()
    } else if e.is_redirect() {
        "too many redirects".to_owned()
    } else {
        "a broken answer (the connection failed mid-way)".to_owned()
    }
}

pub(crate) fn strip_query(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_described_without_bodies() {
        let garbage = unusable_answer(http::StatusCode::OK, b"<html>hi</html>");
        assert_eq!(
            garbage.as_deref(),
            Some("HTTP 200 OK with an answer that is not a JSON object")
        );
        assert_eq!(unusable_answer(http::StatusCode::OK, br#"{"a":1}"#), None);
        assert_eq!(
            unusable_answer(http::StatusCode::INTERNAL_SERVER_ERROR, b"boom secret").as_deref(),
            Some("HTTP 500 Internal Server Error")
        );
        let oauth = br#"{"error":"invalid_grant","error_description":"code expired\n"}"#;
        assert_eq!(
            unusable_answer(http::StatusCode::BAD_REQUEST, oauth).as_deref(),
            Some("HTTP 400 Bad Request (invalid_grant: code expired)")
        );
        assert_eq!(strip_query("https://h/p?code=1#x"), "https://h/p");
    }
}
