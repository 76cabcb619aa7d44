//! Signing out: the stored tokens are revoked at the authorization server (RFC 7009) when its
//! metadata names a `revocation_endpoint` — the refresh token first (which ends the grant),
//! then the access token — and the record is deleted either way; the report says which of
//! those happened, so a person knows whether the tokens still work elsewhere.
//!
//! Invariants: a revocation never blocks the local sign-out; the tokens and the client secret
//! never enter the report, an error or a log line; only https or loopback endpoints get them.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use coyote_protocol::OAuthSpec;

use super::oauth_http::{OAUTH_HTTP_TIMEOUT, strip_query, unusable_answer};
use super::store::SignInRecord;
use super::token_post::endpoint_allowed;

/// What `coyote mcp logout` did about the tokens at the authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Revocation {
    /// There were no tokens to revoke.
    NothingStored,
    /// The authorization server revoked them.
    Revoked {
        /// The revocation endpoint.
        endpoint: String,
    },
    /// The authorization server publishes no revocation endpoint: the tokens stay valid until
    /// they expire.
    NotOffered,
    /// The revocation request failed: the tokens may stay valid until they expire.
    Failed {
        /// The revocation endpoint.
        endpoint: String,
        /// What it answered.
        answer: String,
    },
}

/// What `coyote mcp logout` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogoutReport {
    /// A stored sign-in was deleted.
    pub forgot: bool,
    /// What happened at the authorization server.
    pub revocation: Revocation,
}

/// Revokes the record's tokens where the authorization server offers it.
pub(crate) async fn revoke(record: &SignInRecord, spec: &OAuthSpec) -> Revocation {
    let tokens = record
        .credentials
        .as_ref()
        .and_then(|c| c.token_response.as_ref())
        .and_then(|t| serde_json::to_value(t).ok());
    let Some(tokens) = tokens else {
        return Revocation::NothingStored;
    };
    let metadata = record.metadata.as_ref();
    let Some(endpoint) = metadata
        .and_then(|m| m.additional_fields.get("revocation_endpoint"))
        .and_then(|v| v.as_str())
        .map(str::to_owned)
    else {
        return Revocation::NotOffered;
    };
    let shown = strip_query(&endpoint);
    let failed = |answer: String| Revocation::Failed {
        endpoint: shown.clone(),
        answer,
    };
    if !endpoint_allowed(&endpoint) {
        return failed("nothing: it is not https, and coyote sends tokens only over https".into());
    }
    let methods: Vec<String> = metadata
        .and_then(|m| {
            m.additional_fields
                .get("revocation_endpoint_auth_methods_supported")
        })
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    let client_id = record.client.as_ref().map(|c| c.client_id.clone());
    let secret = record
        .client
        .as_ref()
        .and_then(|c| c.client_secret.clone())
        .or_else(|| spec.client_secret.clone());
    lazy_tls::install_crypto_provider();
    let http = match reqwest::Client::builder()
        .timeout(OAUTH_HTTP_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
    {
        Ok(http) => http,
        Err(e) => return failed(e.to_string()),
    };
    for (hint, field) in [
        ("refresh_token", "refresh_token"),
        ("access_token", "access_token"),
    ] {
        let Some(token) = tokens.get(field).and_then(|v| v.as_str()) else {
            continue;
        };
        let mut form = vec![
            ("token", token.to_owned()),
            ("token_type_hint", hint.to_owned()),
        ];
        let mut basic = None;
        match (&client_id, &secret) {
            (Some(id), Some(secret))
                if !methods.iter().any(|m| m == "client_secret_basic")
                    && methods.iter().any(|m| m == "client_secret_post") =>
            {
                form.push(("client_id", id.clone()));
                form.push(("client_secret", secret.clone()));
            }
            (Some(id), Some(secret)) => basic = Some(format_basic(id, secret)),
            (Some(id), None) => form.push(("client_id", id.clone())),
            (None, _) => {}
        }
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form.iter())
            .finish();
        let mut request = http
            .post(&endpoint)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body);
        if let Some(basic) = basic {
            request = request.header(reqwest::header::AUTHORIZATION, basic);
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(e) if e.is_timeout() => {
                return failed(format!("nothing within {} s", OAUTH_HTTP_TIMEOUT.as_secs()));
            }
            Err(_) => return failed("no answer (is it reachable?)".to_owned()),
        };
        let status = response.status();
        let body = response.bytes().await.unwrap_or_default();
        // RFC 7009 §2.2: 200 (with any body) is success.
        if !status.is_success() {
            let answer = unusable_answer(status, &body)
                .unwrap_or_else(|| format!("HTTP {}", status.as_u16()));
            return failed(answer);
        }
    }
    Revocation::Revoked { endpoint: shown }
}

fn format_basic(id: &str, secret: &str) -> String {
    let encode =
        |s: &str| -> String { url::form_urlencoded::byte_serialize(s.as_bytes()).collect() };
    format!(
        "Basic {}",
        STANDARD.encode(format!("{}:{}", encode(id), encode(secret)))
    )
}
