//! How coyote signs in to an HTTP MCP server with OAuth 2.1: the validated `"oauth"` object of
//! an mcp.json entry. Every field is optional; with none set, coyote discovers everything from
//! the server and registers itself. `Debug` never shows the client secret or a private key.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The `"oauth"` object of an HTTP entry.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OAuthSpec {
    /// A client registered with the authorization server beforehand (`clientId`); without one,
    /// coyote uses `client_metadata_url` when the server supports it, else registers itself.
    pub client_id: Option<String>,
    /// The pre-registered client's secret (`clientSecret`, usually `${VAR}`), already expanded.
    pub client_secret: Option<String>,
    /// Scopes to ask for (`scopes`); empty = what the server asks for.
    pub scopes: Vec<String>,
    /// Fixed port of the sign-in redirect listener (`redirectPort`, Claude Code's
    /// `callbackPort`); `None` = a random free port.
    pub redirect_port: Option<u16>,
    /// An https URL of a Client ID Metadata Document describing coyote (`clientMetadataUrl`).
    pub client_metadata_url: Option<String>,
    /// Authorization server metadata to use instead of discovery (`authServerMetadataUrl`, a
    /// Claude Code key).
    pub auth_server_metadata_url: Option<String>,
    /// Which grant gets the tokens (`grant`).
    pub grant: OAuthGrant,
    /// Whether tokens are bound to a key with DPoP (RFC 9449) (`dpop`).
    #[serde(default, skip_serializing_if = "DpopMode::is_auto")]
    pub dpop: DpopMode,
}

impl DpopMode {
    /// The default: DPoP when the authorization server offers it.
    pub fn is_auto(&self) -> bool {
        *self == DpopMode::Auto
    }
}

/// DPoP (`"dpop"` in the `oauth` object).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DpopMode {
    /// Absent: DPoP when the authorization server advertises `dpop_signing_alg_values_supported`.
    #[default]
    Auto,
    /// `true`: always; a sign-in fails rather than accept a token that is not DPoP-bound.
    Required,
    /// `false`: never (plain bearer tokens).
    Off,
}

impl OAuthSpec {
    /// True when nothing was configured (the defaults: discover and register).
    pub fn is_default(&self) -> bool {
        self == &OAuthSpec::default()
    }
}

impl fmt::Debug for OAuthSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthSpec")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("scopes", &self.scopes)
            .field("redirect_port", &self.redirect_port)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("auth_server_metadata_url", &self.auth_server_metadata_url)
            .field("grant", &self.grant)
            .field("dpop", &self.dpop)
            .finish()
    }
}

/// How the tokens are obtained.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OAuthGrant {
    /// A person signs in in a browser (`coyote mcp login NAME`): authorization code + PKCE.
    #[default]
    AuthorizationCode,
    /// Machine use without a person (`"grant": "client_credentials"`): the client authenticates
    /// itself with its secret (`client_secret_basic`/`_post`) or a signed JWT assertion.
    ClientCredentials(ClientCredentials),
    /// Workload identity (`"grant": "jwt_bearer"`): a JWT the platform issued to this machine
    /// (a Kubernetes service-account token, a CI OIDC token) is the grant (RFC 7523).
    JwtBearer(TokenSource),
    /// Enterprise-managed authorization (`"grant": "enterprise"`): the company's identity
    /// provider exchanges the user's ID token for an identity assertion grant (RFC 8693), which
    /// the server's authorization server takes as a JWT bearer grant (RFC 7523).
    Enterprise(EnterpriseIdp),
}

impl fmt::Debug for OAuthGrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OAuthGrant::AuthorizationCode => f.write_str("AuthorizationCode"),
            OAuthGrant::ClientCredentials(c) => f
                .debug_tuple("ClientCredentials")
                .field(&c.private_key.as_ref().map(|k| k.kind()))
                .field(&c.signing_algorithm)
                .finish(),
            OAuthGrant::JwtBearer(source) => f.debug_tuple("JwtBearer").field(source).finish(),
            OAuthGrant::Enterprise(idp) => f.debug_tuple("Enterprise").field(idp).finish(),
        }
    }
}

/// Client-credentials specifics; the client id and secret are the spec's own fields.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientCredentials {
    /// Sign a JWT assertion with this key (`private_key_jwt`, RFC 7523) instead of sending the
    /// client secret.
    pub private_key: Option<PrivateKey>,
    /// `signingAlgorithm`: RS256 (default), RS384, RS512, ES256 or ES384.
    pub signing_algorithm: Option<String>,
}

/// Where a token coyote does not issue itself comes from (read at each grant, never stored).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenSource {
    /// A file holding the token (`assertionFile`, `idTokenFile`), e.g. a projected
    /// service-account token that the platform rotates.
    File(PathBuf),
    /// An environment variable holding it (`assertionEnv`), e.g. a CI OIDC token.
    Env(String),
    /// A program (and its arguments) that prints it on stdout (`idTokenCommand`).
    Command(Vec<String>),
}

/// The enterprise identity provider of [`OAuthGrant::Enterprise`].
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnterpriseIdp {
    /// The IdP's issuer URL (`idpIssuer`); its token endpoint is discovered from it.
    pub issuer: String,
    /// coyote's client at the IdP (`idpClientId`).
    pub client_id: Option<String>,
    /// Its secret (`idpClientSecret`, usually `${VAR}`).
    pub client_secret: Option<String>,
    /// Where the user's ID token comes from (`idTokenFile` or `idTokenCommand`).
    pub id_token: TokenSource,
}

impl fmt::Debug for EnterpriseIdp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnterpriseIdp")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("id_token", &self.id_token)
            .finish()
    }
}

/// A PEM private key: inline (`privateKey`, usually `${VAR}`) or a file (`privateKeyFile`).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrivateKey {
    /// The PEM text itself (`privateKey`, `${VAR}`-expanded).
    Pem(String),
    /// A PEM file (`privateKeyFile`, relative paths taken from the config dir).
    File(PathBuf),
}

impl PrivateKey {
    fn kind(&self) -> String {
        match self {
            PrivateKey::Pem(_) => "inline key <redacted>".to_owned(),
            PrivateKey::File(path) => format!("key file {}", path.display()),
        }
    }
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_secret_and_the_key() {
        let spec = OAuthSpec {
            client_id: Some("app".into()),
            client_secret: Some("SECRET1".into()),
            grant: OAuthGrant::ClientCredentials(ClientCredentials {
                private_key: Some(PrivateKey::Pem("SECRET2".into())),
                signing_algorithm: Some("ES256".into()),
            }),
            ..OAuthSpec::default()
        };
        let text = format!("{spec:?}");
        assert!(text.contains("app") && text.contains("ES256"), "{text}");
        for secret in ["SECRET1", "SECRET2"] {
            assert!(!text.contains(secret), "{text}");
        }
    }
}
