//! `WWW-Authenticate`: the challenge of a 401 or 403, read where the POST answer arrives
//! ([`from_response`], into rmcp's auth errors, which the transport passes up) and where
//! sign-in answers it ([`Challenge::of`], from those errors), with one reader of the scope it
//! asks for ([`challenge_scope`]).
//!
//! Invariant: the scope is read by rmcp's `WWWAuthenticateParams` parser alone, so the POST
//! layer and the sign-in never disagree on what a challenge asks for. Below both `post` and
//! `auth`, importing neither.

use std::borrow::Cow;

use http::StatusCode;
use http::header::WWW_AUTHENTICATE;
use rmcp::transport::auth::WWWAuthenticateParams;
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, StreamableHttpError,
};

type HttpError = StreamableHttpError<reqwest::Error>;

/// A 401 or 403 with its `WWW-Authenticate` header.
#[derive(Debug, Clone)]
pub(crate) enum Challenge {
    Unauthorized { header: String },
    InsufficientScope { header: String, scope: Vec<String> },
}

impl Challenge {
    pub(crate) fn header(&self) -> &str {
        match self {
            Challenge::Unauthorized { header } | Challenge::InsufficientScope { header, .. } => {
                header
            }
        }
    }

    /// The challenge a failed request carries, if it is one.
    pub(crate) fn of(error: &HttpError) -> Option<Challenge> {
        match error {
            StreamableHttpError::AuthRequired(e) => Some(Challenge::Unauthorized {
                header: e.www_authenticate_header.clone(),
            }),
            StreamableHttpError::InsufficientScope(e) => {
                let scope = e
                    .required_scope
                    .clone()
                    .or_else(|| challenge_scope(&e.www_authenticate_header))
                    .unwrap_or_default();
                Some(Challenge::InsufficientScope {
                    header: e.www_authenticate_header.clone(),
                    scope: scope.split_whitespace().map(str::to_owned).collect(),
                })
            }
            _ => None,
        }
    }
}

/// A 401 or 403 with a `WWW-Authenticate` challenge: the error sign-in answers.
pub(crate) fn from_response(response: &reqwest::Response) -> Result<Option<HttpError>, HttpError> {
    let status = response.status();
    if !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        return Ok(None);
    }
    let Some(header) = response.headers().get(WWW_AUTHENTICATE) else {
        return Ok(None);
    };
    let header = header
        .to_str()
        .map_err(|_| {
            StreamableHttpError::UnexpectedServerResponse(Cow::Borrowed(
                "invalid www-authenticate header value",
            ))
        })?
        .to_owned();
    Ok(Some(if status == StatusCode::UNAUTHORIZED {
        StreamableHttpError::AuthRequired(AuthRequiredError::new(header))
    } else {
        let scope = challenge_scope(&header);
        StreamableHttpError::InsufficientScope(InsufficientScopeError::new(header, scope))
    }))
}

/// The parameters of a `WWW-Authenticate` challenge (`url` resolves a relative
/// `resource_metadata`; only `scope` and `error` are read here).
pub(crate) fn challenge_params(header: &str, url: &str) -> WWWAuthenticateParams {
    match url::Url::parse(url).or_else(|_| url::Url::parse("http://localhost/")) {
        Ok(base) => WWWAuthenticateParams::parse(header, &base),
        Err(_) => WWWAuthenticateParams::default(),
    }
}

/// The scopes a `WWW-Authenticate` challenge names.
pub(crate) fn challenge_scope(header: &str) -> Option<String> {
    challenge_params(header, "http://localhost/").scope
}

#[cfg(test)]
#[path = "challenge_tests.rs"]
mod tests;
