//! The grants whose credential someone else issued, as token requests (the orchestration —
//! discovery, scopes, DPoP, storing — is `flow`'s):
//!
//! - workload identity (`"grant": "jwt_bearer"`): the platform's JWT for this machine (read
//!   from a file or an environment variable at every grant, so a rotated token is picked up)
//!   is the RFC 7523 JWT bearer grant at the server's authorization server;
//! - enterprise-managed authorization (`"grant": "enterprise"`): the user's ID token (from a
//!   file or a program that prints it) is exchanged at the identity provider for an identity
//!   assertion grant (RFC 8693, `requested_token_type` ID-JAG, `audience` the authorization
//!   server's issuer, `resource` the MCP server), which is then the JWT bearer grant at the
//!   authorization server, authenticated as coyote's client there.
//!
//! Invariants: a rejected grant is reported, never retried with another grant type; the ID
//! token, the assertion and the workload JWT never enter an error, a log line or the record.
//! Also home of the small readers the grants share (configured metadata, private keys).

use std::time::Duration;

use coyote_protocol::{EnterpriseIdp, PrivateKey, TokenSource};
use rmcp::transport::auth::{AuthorizationMetadata, StoredCredentials};

use super::browser::Notice;
use super::dpop::DpopState;
use super::oauth_http::{OAUTH_HTTP_TIMEOUT, strip_query};
use super::token_post::{ClientAuth, TokenPost, credentials, endpoint_allowed};
use crate::error::{AuthFailure, GrantKind};

pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// Bound of an `idTokenCommand` run.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// Largest token read from a file, a variable or a command.
const MAX_TOKEN_BYTES: usize = 64 * 1024;

/// What both grants need from the sign-in.
pub(crate) struct GrantInput<'a> {
    /// The MCP server's URL (the `resource`).
    pub(crate) resource: &'a str,
    pub(crate) metadata: &'a AuthorizationMetadata,
    pub(crate) scopes: &'a [String],
    /// coyote's client at the authorization server (`clientId`, `clientSecret`).
    pub(crate) client_id: Option<&'a str>,
    pub(crate) client_secret: Option<&'a str>,
    pub(crate) dpop: Option<&'a DpopState>,
    /// Told each step (`coyote mcp login` prints it).
    pub(crate) progress: Option<&'a Notice>,
}

impl GrantInput<'_> {
    fn tell(&self, step: &str) {
        tracing::info!("{step}");
        if let Some(progress) = self.progress {
            progress(step);
        }
    }

    fn client(&self) -> ClientAuth<'_> {
        match (self.client_id, self.client_secret) {
            (Some(id), Some(secret)) => ClientAuth::Basic { id, secret },
            (id, _) => ClientAuth::Public(id),
        }
    }

    /// The JWT bearer grant with `assertion` at the authorization server.
    async fn jwt_bearer(
        &self,
        assertion: String,
        grant: GrantKind,
    ) -> Result<StoredCredentials, AuthFailure> {
        let mut form = vec![
            ("grant_type", JWT_BEARER.to_owned()),
            ("assertion", assertion),
            ("resource", self.resource.to_owned()),
        ];
        if !self.scopes.is_empty() {
            form.push(("scope", self.scopes.join(" ")));
        }
        let post = TokenPost {
            endpoint: &self.metadata.token_endpoint,
            form,
            client: self.client(),
            grant,
            dpop: self.dpop,
        };
        let answer = post.send().await?;
        credentials(
            &post,
            answer,
            self.client_id.unwrap_or_default(),
            self.scopes,
            self.metadata.issuer.clone(),
        )
    }
}

/// Workload identity: the platform's JWT as the grant.
pub(crate) async fn workload(
    input: &GrantInput<'_>,
    source: &TokenSource,
) -> Result<StoredCredentials, AuthFailure> {
    let assertion = read_token(source, "workload token").await?;
    input.tell(&format!(
        "presenting the workload token ({}) at {}",
        describe(source),
        strip_query(&input.metadata.token_endpoint)
    ));
    input.jwt_bearer(assertion, GrantKind::JwtBearer).await
}

/// Enterprise-managed authorization: token exchange at the IdP, then the JWT bearer grant.
pub(crate) async fn enterprise(
    input: &GrantInput<'_>,
    idp: &EnterpriseIdp,
) -> Result<StoredCredentials, AuthFailure> {
    let audience = input
        .metadata
        .issuer
        .clone()
        .unwrap_or_else(|| input.metadata.token_endpoint.clone());
    input.tell(&format!(
        "reading your ID token for the identity provider {} ({})",
        idp.issuer,
        describe(&idp.id_token)
    ));
    let id_token = read_token(&idp.id_token, "ID token").await?;
    let idp_endpoint = idp_token_endpoint(&idp.issuer).await?;
    input.tell(&format!(
        "exchanging it at {} for an identity assertion for {audience}",
        strip_query(&idp_endpoint)
    ));
    let mut form = vec![
        ("grant_type", TOKEN_EXCHANGE.to_owned()),
        ("requested_token_type", ID_JAG_TYPE.to_owned()),
        ("subject_token", id_token),
        ("subject_token_type", ID_TOKEN_TYPE.to_owned()),
        ("audience", audience),
        ("resource", input.resource.to_owned()),
    ];
    if !input.scopes.is_empty() {
        form.push(("scope", input.scopes.join(" ")));
    }
    let client = match (&idp.client_id, &idp.client_secret) {
        (Some(id), Some(secret)) => ClientAuth::Basic { id, secret },
        (id, _) => ClientAuth::Public(id.as_deref()),
    };
    let exchange = TokenPost {
        endpoint: &idp_endpoint,
        form,
        client,
        grant: GrantKind::TokenExchange,
        dpop: None,
    };
    let answer = exchange.send().await?;
    let issued = answer.get("issued_token_type").and_then(|v| v.as_str());
    let assertion = match (answer.get("access_token").and_then(|v| v.as_str()), issued) {
        (Some(token), Some(ID_JAG_TYPE) | None) => token.to_owned(),
        (_, Some(other)) => {
            return Err(AuthFailure::Token {
                endpoint: strip_query(&idp_endpoint),
                answer: format!("a \"{other}\" token instead of an identity assertion grant"),
                grant: GrantKind::TokenExchange,
            });
        }
        (None, _) => {
            return Err(AuthFailure::Token {
                endpoint: strip_query(&idp_endpoint),
                answer: "HTTP 200 without an access_token".to_owned(),
                grant: GrantKind::TokenExchange,
            });
        }
    };
    input.tell(&format!(
        "presenting the identity assertion at {}",
        strip_query(&input.metadata.token_endpoint)
    ));
    input
        .jwt_bearer(assertion, GrantKind::IdentityAssertion)
        .await
}

fn describe(source: &TokenSource) -> String {
    match source {
        TokenSource::File(path) => format!("file {}", path.display()),
        TokenSource::Env(var) => format!("${var}"),
        TokenSource::Command(argv) => format!("the output of {}", argv.join(" ")),
    }
}

/// The token a source holds, trimmed; never shown.
pub(crate) async fn read_token(source: &TokenSource, what: &str) -> Result<String, AuthFailure> {
    let failure = |reason: String| AuthFailure::ExternalToken {
        what: format!("{what} from {}", describe(source)),
        reason,
    };
    let bytes = match source {
        TokenSource::File(path) => tokio::fs::read(path).await.map_err(|e| {
            failure(format!(
                "{e}; check the path (a platform-mounted token appears only where the platform \
                 mounts it)"
            ))
        })?,
        TokenSource::Env(var) => std::env::var(var)
            .map_err(|_| {
                failure(format!(
                    "${var} is not set; export it before starting coyote"
                ))
            })?
            .into_bytes(),
        TokenSource::Command(argv) => run_command(argv).await.map_err(failure)?,
    };
    if bytes.len() > MAX_TOKEN_BYTES {
        return Err(failure(format!(
            "it is over {} KiB, which is no token",
            MAX_TOKEN_BYTES / 1024
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| failure("it is not text".to_owned()))?;
    let token = text.trim();
    if token.is_empty() || token.chars().any(char::is_whitespace) {
        return Err(failure(
            "it is empty or holds more than one word; it must hold the token alone".to_owned(),
        ));
    }
    Ok(token.to_owned())
}

async fn run_command(argv: &[String]) -> Result<Vec<u8>, String> {
    let (program, args) = argv.split_first().ok_or("the command is empty")?;
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true);
    let output = tokio::time::timeout(COMMAND_TIMEOUT, command.output())
        .await
        .map_err(|_| format!("it printed nothing within {} s", COMMAND_TIMEOUT.as_secs()))?
        .map_err(|e| format!("it cannot run ({e}); check the program's path"))?;
    if !output.status.success() {
        return Err(format!("it failed ({})", output.status));
    }
    Ok(output.stdout)
}

/// The identity provider's token endpoint, from its OpenID (or RFC 8414) metadata (only
/// `token_endpoint` is read: an identity provider need not publish what coyote does not use).
async fn idp_token_endpoint(issuer: &str) -> Result<String, AuthFailure> {
    let base = issuer.trim_end_matches('/');
    let mut last = String::new();
    for well_known in [
        "/.well-known/openid-configuration",
        "/.well-known/oauth-authorization-server",
    ] {
        let url = format!("{base}{well_known}");
        match fetch_json(&url).await {
            Ok(document) => match document.get("token_endpoint").and_then(|v| v.as_str()) {
                Some(endpoint) if endpoint_allowed(endpoint) => return Ok(endpoint.to_owned()),
                Some(_) => last = format!("{url} names a token endpoint that is not https"),
                None => last = format!("{url} names no token_endpoint"),
            },
            Err(detail) => last = detail,
        }
    }
    Err(AuthFailure::IdentityProvider {
        issuer: issuer.to_owned(),
        detail: last,
    })
}

/// One GET of a JSON document; what went wrong otherwise.
async fn fetch_json(url: &str) -> Result<serde_json::Value, String> {
    lazy_tls::install_crypto_provider();
    let client = reqwest::Client::builder()
        .timeout(OAUTH_HTTP_TIMEOUT)
        .build()
        .map_err(|e| e.to_string())?;
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|_| format!("{url} did not answer"))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("{url} answered HTTP {}", status.as_u16()));
    }
    let body = response
        .bytes()
        .await
        .map_err(|_| format!("{url} broke off its answer"))?;
    serde_json::from_slice(&body).map_err(|_| format!("{url} is not JSON"))
}

/// One GET of an RFC 8414 / OpenID metadata document.
pub(crate) async fn fetch_metadata(url: &str) -> Result<AuthorizationMetadata, AuthFailure> {
    let discovery = |detail: String| AuthFailure::Discovery {
        url: url.to_owned(),
        detail,
    };
    let document = fetch_json(url).await.map_err(discovery)?;
    serde_json::from_value(document)
        .map_err(|e| discovery(format!("{url} is not authorization server metadata ({e})")))
}

/// A client-credentials private key's PEM.
pub(crate) async fn read_key(key: &PrivateKey) -> Result<Vec<u8>, AuthFailure> {
    match key {
        PrivateKey::Pem(pem) => Ok(pem.clone().into_bytes()),
        PrivateKey::File(path) => {
            tokio::fs::read(path)
                .await
                .map_err(|e| AuthFailure::PrivateKey {
                    what: format!("file {}", path.display()),
                    reason: e.to_string(),
                })
        }
    }
}

#[cfg(test)]
#[path = "federation_tests.rs"]
mod tests;
