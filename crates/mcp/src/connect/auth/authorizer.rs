//! The pluggable part of a sign-in: how the authorization URL reaches an authorization server
//! and how the redirect comes back. The CLI opens a browser and listens on a loopback port
//! ([`super::browser::BrowserAuthorizer`]); the conformance shim GETs the URL itself and reads
//! `code` from the redirect's `Location`. Everything else (discovery, registration, PKCE,
//! `state` checking, the token exchange) is the same for both and lives in [`super::flow`].

use futures::future::BoxFuture;

use crate::error::AuthFailure;

/// What one sign-in needs from an authorizer.
#[derive(Debug, Clone, Copy)]
pub struct BeginRequest<'a> {
    /// The server's name in mcp.json.
    pub server: &'a str,
    /// `redirectPort` from mcp.json; `None`: any free port (or none at all, headless).
    pub redirect_port: Option<u16>,
}

/// The authorization request to complete.
#[derive(Debug, Clone)]
pub struct AuthorizationPrompt {
    /// The server's name in mcp.json.
    pub server: String,
    /// Open this (authorization endpoint with PKCE challenge, `state`, scopes, resource).
    pub authorization_url: String,
    /// The `state` this sign-in expects back.
    pub state: String,
}

/// What came back to the redirect URI (query parameters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedirectParams {
    /// The authorization code.
    pub code: Option<String>,
    /// The `state` sent with the authorization request.
    pub state: Option<String>,
    /// RFC 9207 `iss`.
    pub iss: Option<String>,
    /// An OAuth error (`access_denied`, …) instead of a code.
    pub error: Option<String>,
    /// Its human-readable description.
    pub error_description: Option<String>,
}

impl RedirectParams {
    /// The query parameters of a redirect URL (`…/callback?code=…&state=…`).
    pub fn from_url(url: &str) -> Result<Self, AuthFailure> {
        let parsed = url::Url::parse(url).map_err(|e| AuthFailure::Authorizer {
            reason: format!("the redirect is not a URL ({e})"),
        })?;
        Ok(Self::from_query_pairs(parsed.query_pairs()))
    }

    pub(crate) fn from_query_pairs<'a>(
        pairs: impl Iterator<Item = (std::borrow::Cow<'a, str>, std::borrow::Cow<'a, str>)>,
    ) -> Self {
        let mut params = RedirectParams::default();
        for (key, value) in pairs {
            let slot = match key.as_ref() {
                "code" => &mut params.code,
                "state" => &mut params.state,
                "iss" => &mut params.iss,
                "error" => &mut params.error,
                "error_description" => &mut params.error_description,
                _ => continue,
            };
            *slot = Some(value.into_owned());
        }
        params
    }

    /// Whether this is an answer at all (a `code` or an `error`).
    pub fn is_answer(&self) -> bool {
        self.code.is_some() || self.error.is_some()
    }
}

/// Starts sign-ins. `begin` comes first because the redirect URI must be known before the
/// client registers (it is part of the registration).
pub trait Authorizer: Send + Sync {
    /// Prepares one sign-in (e.g. binds the redirect listener).
    fn begin<'a>(
        &'a self,
        request: BeginRequest<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn PendingSignIn>, AuthFailure>>;
}

/// One sign-in in progress.
pub trait PendingSignIn: Send {
    /// Where the authorization server sends the user back.
    fn redirect_uri(&self) -> &str;

    /// Shows (or follows) the prompt and waits for the redirect. The caller bounds the wait
    /// with the login timeout, and checks `state`; an authorizer that knows the expected
    /// `state` may refuse a wrong one early with [`AuthFailure::StateMismatch`].
    fn finish(
        self: Box<Self>,
        prompt: AuthorizationPrompt,
    ) -> BoxFuture<'static, Result<RedirectParams, AuthFailure>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_params_from_a_url() {
        let params = RedirectParams::from_url(
            "http://127.0.0.1:9/callback?code=abc&state=s%201&iss=https%3A%2F%2Fas&x=y",
        )
        .unwrap();
        assert_eq!(
            params,
            RedirectParams {
                code: Some("abc".into()),
                state: Some("s 1".into()),
                iss: Some("https://as".into()),
                ..RedirectParams::default()
            }
        );
        assert!(params.is_answer());
        assert!(
            !RedirectParams::from_url("http://h/favicon.ico")
                .unwrap()
                .is_answer()
        );
        assert!(RedirectParams::from_url("not a url").is_err());
    }
}
