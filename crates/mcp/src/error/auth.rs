//! A failed OAuth sign-in ([`AuthFailure`], inside [`super::McpError::SignIn`]) and which
//! token request failed ([`GrantKind`]).
//!
//! Sign-in failures are sentences a user can act on: what coyote asked, where (URL, HTTP status),
//! and what to do. Never a token, a secret or a Rust type name: messages are built from URLs,
//! status codes and the OAuth `error` / `error_description` fields only.

use std::time::Duration;

use super::fmt_duration;

/// A failed sign-in (or token request) for one server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthFailure {
    /// Discovery (protected-resource or authorization-server metadata) failed.
    #[error(
        "could not find out how to sign in to {url}: {detail}; check the server's URL, or set \
         \"oauth\": {{\"authServerMetadataUrl\": \"https://…\"}} in mcp.json"
    )]
    Discovery {
        /// The server's URL.
        url: String,
        /// Which metadata request failed and how.
        detail: String,
    },

    /// The server publishes no OAuth metadata and the legacy fallback endpoints failed too.
    #[error(
        "{url} asks for sign-in but publishes no OAuth metadata, and the fallback endpoint \
         {endpoint} answered {answer}; if the server takes an API token, put it in \"headers\" or \
         \"bearerTokenEnv\" instead"
    )]
    NoMetadata {
        /// The server's URL.
        url: String,
        /// The fallback endpoint tried.
        endpoint: String,
        /// What it answered.
        answer: String,
    },

    /// Dynamic client registration failed.
    #[error(
        "the authorization server did not register coyote as a client ({endpoint} answered \
         {answer}); register a client with it yourself and put its id in \"oauth\": \
         {{\"clientId\": \"…\"}} (and \"clientSecret\" if it has one)"
    )]
    Registration {
        /// The registration endpoint.
        endpoint: String,
        /// What it answered.
        answer: String,
    },

    /// The authorization server cannot be used as coyote needs it.
    #[error(
        "the authorization server cannot be used: {detail}; check the server's OAuth settings \
         or set \"oauth\" keys in mcp.json"
    )]
    Unusable {
        /// What is wrong with it.
        detail: String,
    },

    /// A token request failed.
    #[error(
        "the token endpoint {endpoint} answered {answer}; {}",
        match grant {
            GrantKind::AuthorizationCode => "run the sign-in again; if it keeps failing, the \
                                             authorization server has a problem",
            GrantKind::ClientCredentials => "check \"clientId\" and \"clientSecret\"/\"privateKey\" \
                                             of the server's \"oauth\" entry",
            GrantKind::Refresh => "sign in again",
            GrantKind::JwtBearer => "check that the workload token (\"assertionFile\" / \
                                     \"assertionEnv\") is current and that the authorization \
                                     server trusts its issuer for this \"clientId\"",
            GrantKind::TokenExchange => "check \"idpClientId\" and that the ID token \
                                         (\"idTokenFile\" / \"idTokenCommand\") is current; \
                                         your identity provider decides who may use this server",
            GrantKind::IdentityAssertion => "check \"clientId\" and \"clientSecret\" of the \
                                             server's \"oauth\" entry; the authorization server \
                                             refused the identity provider's assertion",
        }
    )]
    Token {
        /// The token endpoint.
        endpoint: String,
        /// What it answered.
        answer: String,
        /// Which token request it was (selects the advice).
        grant: GrantKind,
    },

    /// The redirect carried a foreign `state`.
    #[error(
        "the sign-in redirect to {redirect_uri} carried a state that does not belong to this \
         sign-in (a stale or forged redirect); nothing was stored — start the sign-in again"
    )]
    StateMismatch {
        /// Where the redirect arrived.
        redirect_uri: String,
    },

    /// The authorization server (or the user) refused.
    #[error("the authorization server refused the sign-in: {error}{}; start it again if this was a mistake",
        description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Denied {
        /// The OAuth `error` code.
        error: String,
        /// Its `error_description`, when given.
        description: Option<String>,
    },

    /// Nobody finished the sign-in in time.
    #[error(
        "no sign-in completed within {}: the browser never came back to {redirect_uri}; start \
         it again (and finish it in the browser), or raise oauth_login_timeout in config.yaml",
        fmt_duration(*after)
    )]
    TimedOut {
        /// The login timeout.
        after: Duration,
        /// Where the redirect was awaited.
        redirect_uri: String,
    },

    /// The redirect listener could not be bound.
    #[error(
        "cannot listen on {address} for the sign-in redirect ({reason}); free the port or choose \
         another \"redirectPort\""
    )]
    Listener {
        /// `127.0.0.1:PORT`.
        address: String,
        /// The bind error.
        reason: String,
    },

    /// A 401 right after a successful sign-in.
    #[error(
        "{url} still answers 401 Unauthorized right after a successful sign-in: the server does \
         not accept the tokens its authorization server issued; check the server's OAuth setup"
    )]
    StillUnauthorized {
        /// The server's URL.
        url: String,
    },

    /// Repeated 403 `insufficient_scope`: no more sign-ins for this request.
    #[error(
        "{url} still refuses with 403 insufficient_scope (wants {scope}) after {attempts} \
         sign-ins; stopped asking — the account may lack that permission"
    )]
    ScopeRetryLimit {
        /// The server's URL.
        url: String,
        /// The scope it keeps asking for.
        scope: String,
        /// Sign-ins made for the request.
        attempts: u32,
    },

    /// The client-credentials private key is unusable.
    #[error("cannot use the private key {what}: {reason}; give a PEM (PKCS#8, RSA or EC) key")]
    PrivateKey {
        /// Which key (file, inline).
        what: String,
        /// Why it cannot be used (never the key).
        reason: String,
    },

    /// A token coyote presents but does not issue (a workload JWT, an ID token) is unreadable.
    #[error("cannot read the {what}: {reason}")]
    ExternalToken {
        /// Which token from where (`workload token in file /run/…`).
        what: String,
        /// Why, with what to do (never the token).
        reason: String,
    },

    /// The enterprise identity provider's metadata is unusable.
    #[error(
        "cannot use the identity provider {issuer}: {detail}; check \"idpIssuer\" (its OpenID \
         metadata must name a token_endpoint)"
    )]
    IdentityProvider {
        /// `idpIssuer`.
        issuer: String,
        /// What went wrong.
        detail: String,
    },

    /// `"dpop": true`, but the authorization server issued a token not bound to the key.
    #[error(
        "the authorization server of {url} answered with a \"{token_type}\" token although \
         \"dpop\": true asks for a DPoP-bound one; nothing was stored — ask its operators to \
         enable DPoP for this client, or remove \"dpop\": true to accept bearer tokens"
    )]
    NotBound {
        /// The server's URL.
        url: String,
        /// The `token_type` it answered.
        token_type: String,
    },

    /// The token store failed.
    #[error("cannot keep the sign-in: {reason}; sign in again once that is fixed")]
    Store {
        /// What failed.
        reason: String,
    },

    /// The authorizer could not complete the sign-in.
    #[error("the sign-in could not be completed: {reason}; start it again")]
    Authorizer {
        /// What failed.
        reason: String,
    },
}

/// Which token request failed (selects the advice).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantKind {
    /// Exchanging the authorization code of a browser sign-in.
    AuthorizationCode,
    /// The client-credentials grant.
    ClientCredentials,
    /// Refreshing a token.
    Refresh,
    /// Workload identity: a platform-issued JWT as the grant.
    JwtBearer,
    /// Token exchange at the enterprise identity provider (ID token → identity assertion).
    TokenExchange,
    /// The identity assertion as a JWT bearer grant at the server's authorization server.
    IdentityAssertion,
}
