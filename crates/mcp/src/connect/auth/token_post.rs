//! The token requests coyote builds itself rather than through rmcp (a client assertion, the
//! JWT bearer grant, token exchange at an identity provider): one form POST with the client's
//! authentication (HTTP Basic, or the client id in the form), a DPoP proof when the grant uses
//! DPoP (retried once with the nonce a `use_dpop_nonce` answer carries), and the answer read
//! as JSON or described without its body ([`unusable_answer`]).
//!
//! Invariants: only to https or a loopback address (assertions and secrets travel in the
//! form); no redirect is followed; the form, the secret and the answer's tokens never enter an
//! error or a log line.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::transport::auth::{OAuthTokenResponse, StoredCredentials};
use serde_json::{Map, Value};

use super::dpop::{DPOP_HEADER, DPOP_NONCE_HEADER, DpopState};
use super::oauth_http::{OAUTH_HTTP_TIMEOUT, oauth_error, strip_query, unusable_answer};
use crate::error::{AuthFailure, GrantKind};

/// How the client authenticates at the endpoint.
pub(crate) enum ClientAuth<'a> {
    /// `client_secret_basic` (RFC 6749 §2.3.1: both parts form-encoded, then base64).
    Basic { id: &'a str, secret: &'a str },
    /// A public client: `client_id` in the form (nothing when `None`).
    Public(Option<&'a str>),
    /// The form authenticates the client itself (a client assertion).
    InForm,
}

/// One token request.
pub(crate) struct TokenPost<'a> {
    pub(crate) endpoint: &'a str,
    pub(crate) form: Vec<(&'static str, String)>,
    pub(crate) client: ClientAuth<'a>,
    pub(crate) grant: GrantKind,
    /// The sign-in's DPoP state, when this request must carry a proof.
    pub(crate) dpop: Option<&'a DpopState>,
}

/// https, or http to a loopback host (local development, tests).
pub(crate) fn endpoint_allowed(endpoint: &str) -> bool {
    match url::Url::parse(endpoint) {
        Ok(u) if u.scheme() == "https" => true,
        Ok(u) if u.scheme() == "http" => match u.host() {
            Some(url::Host::Domain(d)) => d == "localhost" || d.ends_with(".localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

fn form_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

impl TokenPost<'_> {
    fn failure(&self, answer: String) -> AuthFailure {
        AuthFailure::Token {
            endpoint: strip_query(self.endpoint),
            answer,
            grant: self.grant,
        }
    }

    /// Sends the request; the answer's JSON object on success.
    pub(crate) async fn send(&self) -> Result<Map<String, Value>, AuthFailure> {
        if !endpoint_allowed(self.endpoint) {
            return Err(AuthFailure::Unusable {
                detail: format!(
                    "its token endpoint {} is not https, and coyote sends credentials only over \
                     https (or to a loopback address)",
                    strip_query(self.endpoint)
                ),
            });
        }
        lazy_tls::install_crypto_provider();
        let client = reqwest::Client::builder()
            .timeout(OAUTH_HTTP_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| self.failure(e.to_string()))?;
        let sent_nonce = self.dpop.and_then(DpopState::as_nonce);
        let (status, nonce, body) = self.once(&client, sent_nonce.clone()).await?;
        let retry = status == http::StatusCode::BAD_REQUEST
            && oauth_error(&body).as_deref() == Some("use_dpop_nonce")
            && nonce.is_some()
            && nonce != sent_nonce;
        let (status, body) = if retry {
            let (status, _, body) = self.once(&client, nonce).await?;
            (status, body)
        } else {
            (status, body)
        };
        if let Some(answer) = unusable_answer(status, &body) {
            return Err(self.failure(answer));
        }
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err(self.failure(format!(
                "HTTP {} with an answer that is not a JSON object",
                status.as_u16()
            ))),
        }
    }

    async fn once(
        &self,
        client: &reqwest::Client,
        nonce: Option<String>,
    ) -> Result<(http::StatusCode, Option<String>, Vec<u8>), AuthFailure> {
        let mut form = self.form.clone();
        if let ClientAuth::Public(Some(id)) = self.client {
            form.push(("client_id", id.to_owned()));
        }
        // Built before any await: the serializer is not Send.
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form.iter())
            .finish();
        let mut request = client
            .post(self.endpoint)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body);
        if let ClientAuth::Basic { id, secret } = self.client {
            let pair = format!("{}:{}", form_encode(id), form_encode(secret));
            request = request.header(
                reqwest::header::AUTHORIZATION,
                format!("Basic {}", STANDARD.encode(pair)),
            );
        }
        if let Some(key) = self.dpop.and_then(DpopState::key) {
            let proof = key.proof("POST", self.endpoint, None, nonce.as_deref())?;
            request = request.header(DPOP_HEADER, proof);
        }
        let response = request.send().await.map_err(|e| {
            self.failure(if e.is_timeout() {
                format!("nothing within {} s", OAUTH_HTTP_TIMEOUT.as_secs())
            } else {
                "no answer (is the server running and reachable?)".to_owned()
            })
        })?;
        let status = response.status();
        let nonce = response
            .headers()
            .get(DPOP_NONCE_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        if let (Some(dpop), Some(nonce)) = (self.dpop, &nonce) {
            dpop.set_as_nonce(nonce);
        }
        let body = response
            .bytes()
            .await
            .map_err(|_| self.failure("a broken answer".to_owned()))?;
        Ok((status, nonce, body.to_vec()))
    }
}

/// A token response as rmcp keeps it, with the granted scopes (the answer's, else those asked).
pub(crate) fn credentials(
    post: &TokenPost<'_>,
    answer: Map<String, Value>,
    client_id: &str,
    asked: &[String],
    issuer: Option<String>,
) -> Result<StoredCredentials, AuthFailure> {
    let granted: Vec<String> = answer
        .get("scope")
        .and_then(Value::as_str)
        .map(|s| s.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_else(|| asked.to_vec());
    let token: OAuthTokenResponse = serde_json::from_value(Value::Object(answer))
        .map_err(|_| post.failure("HTTP 200 with an answer that is not a token response".into()))?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    Ok(
        StoredCredentials::new(client_id.to_owned(), Some(token), granted, Some(now))
            .with_issuer(issuer),
    )
}
