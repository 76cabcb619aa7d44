//! The `"oauth"` object of an HTTP entry → [`OAuthSpec`]. coyote's own keys are `clientId`,
//! `clientSecret`, `scopes`, `redirectPort`, `clientMetadataUrl`, `dpop` and `grant` (with
//! `privateKey`, `privateKeyFile`, `signingAlgorithm` for client credentials; `assertionFile` or
//! `assertionEnv` for workload identity; `idpIssuer`, `idpClientId`, `idpClientSecret` and
//! `idTokenFile` or `idTokenCommand` for enterprise-managed authorization). Each grant's keys
//! are refused with another grant. Claude Code's documented keys
//! load unchanged: `callbackPort` is `redirectPort`, `scopes` may be one space-separated string,
//! and `authServerMetadataUrl` replaces discovery. Secrets (`clientSecret`, `privateKey`) are
//! `${VAR}`-expanded and never enter a problem or warning.

use coyote_protocol::{
    ClientCredentials, DpopMode, EnterpriseIdp, OAuthGrant, OAuthSpec, PrivateKey, TokenSource,
};
use serde_json::{Map, Value};

use super::EntryReader;
use super::fields::wrong;
use crate::error::{Expected, ProblemKind};
use crate::expand::ExpandMode;
use crate::keys::suggest;
use crate::warning::WarningKind;

/// Keys of the `oauth` object (coyote's and Claude Code's).
pub(crate) const OAUTH_KEYS: &[&str] = &[
    "clientId",
    "clientSecret",
    "scopes",
    "redirectPort",
    "callbackPort",
    "clientMetadataUrl",
    "authServerMetadataUrl",
    "grant",
    "privateKey",
    "privateKeyFile",
    "signingAlgorithm",
    "assertionFile",
    "assertionEnv",
    "idpIssuer",
    "idpClientId",
    "idpClientSecret",
    "idTokenFile",
    "idTokenCommand",
    "dpop",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Grant {
    AuthorizationCode,
    ClientCredentials,
    JwtBearer,
    Enterprise,
}

const GRANT_VALUES: &[(&str, Grant)] = &[
    ("authorization_code", Grant::AuthorizationCode),
    ("client_credentials", Grant::ClientCredentials),
    ("jwt_bearer", Grant::JwtBearer),
    ("enterprise", Grant::Enterprise),
];

/// The keys only one grant uses, with that grant's name.
const GRANT_KEYS: &[(Grant, &str, &[&str])] = &[
    (
        Grant::ClientCredentials,
        "client_credentials",
        &["privateKey", "privateKeyFile", "signingAlgorithm"],
    ),
    (
        Grant::JwtBearer,
        "jwt_bearer",
        &["assertionFile", "assertionEnv"],
    ),
    (
        Grant::Enterprise,
        "enterprise",
        &[
            "idpIssuer",
            "idpClientId",
            "idpClientSecret",
            "idTokenFile",
            "idTokenCommand",
        ],
    ),
];

const ALGORITHM_VALUES: &[(&str, &str)] = &[
    ("RS256", "RS256"),
    ("RS384", "RS384"),
    ("RS512", "RS512"),
    ("ES256", "ES256"),
    ("ES384", "ES384"),
];

impl EntryReader<'_, '_> {
    /// The entry's `oauth` object; the defaults when absent (or unusable: problems recorded).
    pub(super) fn oauth(&mut self, entry: &Map<String, Value>) -> OAuthSpec {
        let Some(value) = entry.get("oauth") else {
            return OAuthSpec::default();
        };
        let Value::Object(obj) = value else {
            self.problem(self.path.key("oauth"), wrong(Expected::Object, value));
            return OAuthSpec::default();
        };
        let path = self.path.key("oauth");
        for key in obj.keys() {
            if !OAUTH_KEYS.contains(&key.as_str()) {
                self.warn(
                    path.key(key),
                    WarningKind::UnknownKey {
                        key: key.clone(),
                        suggestion: suggest(key, OAUTH_KEYS),
                    },
                );
            }
        }
        let saved = std::mem::replace(&mut self.path, path);
        let spec = self.oauth_object(obj);
        self.path = saved;
        spec
    }

    fn oauth_object(&mut self, obj: &Map<String, Value>) -> OAuthSpec {
        let client_id = self.expanded_string(obj, "clientId");
        let client_secret = self.expanded_string(obj, "clientSecret");
        let scopes = self.scopes(obj);
        let redirect_port = self.port(obj);
        let client_metadata_url = self.https_url(obj, "clientMetadataUrl");
        let auth_server_metadata_url = self.https_url(obj, "authServerMetadataUrl");
        let grant = self.choice(obj, "grant", GRANT_VALUES);
        let private_key = self.private_key(obj);
        let signing_algorithm = self
            .choice(obj, "signingAlgorithm", ALGORITHM_VALUES)
            .map(str::to_owned);
        let dpop = match self.bool(obj, "dpop") {
            None => DpopMode::Auto,
            Some(true) => DpopMode::Required,
            Some(false) => DpopMode::Off,
        };
        // An unreadable `grant` was reported; checking keys against a guessed grant adds noise.
        let chosen = match grant {
            None if obj.contains_key("grant") => None,
            other => Some(other.unwrap_or(Grant::AuthorizationCode)),
        };
        if let Some(chosen) = chosen {
            for (owner, name, keys) in GRANT_KEYS {
                for key in keys
                    .iter()
                    .filter(|k| *owner != chosen && obj.contains_key(**k))
                {
                    self.problem(
                        self.path.key(key),
                        ProblemKind::OAuthKeyNeedsGrant {
                            key: key_name(key),
                            grant: name,
                        },
                    );
                }
            }
        }
        let grant = match chosen {
            None | Some(Grant::AuthorizationCode) => OAuthGrant::AuthorizationCode,
            Some(Grant::ClientCredentials) => {
                if client_id.is_none() && !obj.contains_key("clientId") {
                    self.problem(
                        self.path.key("clientId"),
                        ProblemKind::MissingOAuthKey {
                            key: "clientId",
                            needed_for: "\"grant\": \"client_credentials\" authenticates a \
                                         registered client",
                        },
                    );
                }
                let has_secret = obj.contains_key("clientSecret");
                let has_key = obj.contains_key("privateKey") || obj.contains_key("privateKeyFile");
                if !has_secret && !has_key {
                    self.problem(
                        self.path.key("clientSecret"),
                        ProblemKind::MissingOAuthKey {
                            key: "clientSecret",
                            needed_for: "\"grant\": \"client_credentials\" needs \
                                         \"clientSecret\" or a \"privateKey\"/\"privateKeyFile\" \
                                         to sign with",
                        },
                    );
                }
                OAuthGrant::ClientCredentials(ClientCredentials {
                    private_key,
                    signing_algorithm,
                })
            }
            Some(Grant::JwtBearer) => match self.assertion_source(obj) {
                Some(source) => OAuthGrant::JwtBearer(source),
                None => OAuthGrant::AuthorizationCode,
            },
            Some(Grant::Enterprise) => match self.enterprise(obj) {
                Some(idp) => OAuthGrant::Enterprise(idp),
                None => OAuthGrant::AuthorizationCode,
            },
        };
        OAuthSpec {
            client_id,
            client_secret,
            scopes,
            redirect_port,
            client_metadata_url,
            auth_server_metadata_url,
            grant,
            dpop,
        }
    }

    /// `assertionFile` or `assertionEnv` of `"grant": "jwt_bearer"` (one, required).
    fn assertion_source(&mut self, obj: &Map<String, Value>) -> Option<TokenSource> {
        let file = self.expanded_string(obj, "assertionFile");
        let env = self.string(obj, "assertionEnv");
        match (file, env) {
            (Some(_), Some(_)) => {
                self.problem(
                    self.path.key("assertionEnv"),
                    ProblemKind::ExclusiveKeys {
                        key: "assertionEnv",
                        other: "assertionFile",
                    },
                );
                None
            }
            (Some(file), None) => Some(TokenSource::File(self.cx.base_dir.join(file))),
            (None, Some(var)) => Some(TokenSource::Env(var)),
            (None, None) => {
                if !obj.contains_key("assertionFile") && !obj.contains_key("assertionEnv") {
                    self.problem(
                        self.path.key("assertionFile"),
                        ProblemKind::MissingOAuthKey {
                            key: "assertionFile",
                            needed_for: "\"grant\": \"jwt_bearer\" presents the workload's \
                                         JWT, read from \"assertionFile\" or \"assertionEnv\"",
                        },
                    );
                }
                None
            }
        }
    }

    /// The identity provider of `"grant": "enterprise"`.
    fn enterprise(&mut self, obj: &Map<String, Value>) -> Option<EnterpriseIdp> {
        let issuer = self.issuer_url(obj, "idpIssuer");
        let client_id = self.expanded_string(obj, "idpClientId");
        let client_secret = self.expanded_string(obj, "idpClientSecret");
        let file = self.expanded_string(obj, "idTokenFile");
        let command = self.string_array(obj, "idTokenCommand");
        if issuer.is_none() && !obj.contains_key("idpIssuer") {
            self.problem(
                self.path.key("idpIssuer"),
                ProblemKind::MissingOAuthKey {
                    key: "idpIssuer",
                    needed_for: "\"grant\": \"enterprise\" exchanges the ID token at your \
                                 identity provider",
                },
            );
        }
        if !obj.contains_key("clientId") {
            self.problem(
                self.path.key("clientId"),
                ProblemKind::MissingOAuthKey {
                    key: "clientId",
                    needed_for: "\"grant\": \"enterprise\" authenticates coyote's client at \
                                 the server's authorization server",
                },
            );
        }
        let id_token = match (file, command) {
            (Some(_), Some(_)) => {
                self.problem(
                    self.path.key("idTokenCommand"),
                    ProblemKind::ExclusiveKeys {
                        key: "idTokenCommand",
                        other: "idTokenFile",
                    },
                );
                None
            }
            (Some(file), None) => Some(TokenSource::File(self.cx.base_dir.join(file))),
            (None, Some(argv)) if !argv.is_empty() => Some(TokenSource::Command(argv)),
            (None, _) => {
                if !obj.contains_key("idTokenFile") {
                    self.problem(
                        self.path.key("idTokenFile"),
                        ProblemKind::MissingOAuthKey {
                            key: "idTokenFile",
                            needed_for: "\"grant\": \"enterprise\" needs the user's ID token \
                                         from \"idTokenFile\" or \"idTokenCommand\" (a \
                                         program and its arguments, as an array)",
                        },
                    );
                }
                None
            }
        };
        Some(EnterpriseIdp {
            issuer: issuer?,
            client_id,
            client_secret,
            id_token: id_token?,
        })
    }

    /// An issuer URL: https, or http to a loopback address (a local identity provider).
    fn issuer_url(&mut self, obj: &Map<String, Value>, key: &'static str) -> Option<String> {
        let url = self.expanded_string(obj, key)?;
        if self.cx.mode == ExpandMode::Resolve || !url.contains("${") {
            let reason = match url::Url::parse(&url) {
                Ok(u) if u.scheme() == "https" && u.host().is_some() => None,
                Ok(u) if u.scheme() == "http" && is_loopback(&u) => None,
                Ok(u) if u.host().is_none() => Some("no host".to_owned()),
                Ok(u) => Some(format!("scheme \"{}\" is not https", u.scheme())),
                Err(e) => Some(e.to_string()),
            };
            if let Some(reason) = reason {
                self.problem(self.path.key(key), ProblemKind::NotHttps { reason });
                return None;
            }
        }
        Some(url)
    }

    /// An array of scopes, or Claude Code's one space-separated string.
    fn scopes(&mut self, obj: &Map<String, Value>) -> Vec<String> {
        match obj.get("scopes") {
            None => Vec::new(),
            Some(Value::String(text)) => text.split_whitespace().map(str::to_owned).collect(),
            Some(_) => self
                .string_array(obj, "scopes")
                .unwrap_or_default()
                .iter()
                .flat_map(|s| s.split_whitespace())
                .map(str::to_owned)
                .collect(),
        }
    }

    /// `redirectPort`, or Claude Code's `callbackPort`.
    fn port(&mut self, obj: &Map<String, Value>) -> Option<u16> {
        let key = match (
            obj.contains_key("redirectPort"),
            obj.contains_key("callbackPort"),
        ) {
            (true, true) => {
                self.warn(
                    self.path.key("callbackPort"),
                    WarningKind::Superseded {
                        key: "callbackPort",
                        winner: "redirectPort",
                    },
                );
                "redirectPort"
            }
            (true, false) => "redirectPort",
            (false, true) => "callbackPort",
            (false, false) => return None,
        };
        let value = &obj[key];
        match value.as_u64().and_then(|n| u16::try_from(n).ok()) {
            Some(port) if port > 0 => Some(port),
            _ => {
                self.problem(self.path.key(key), wrong(Expected::Port, value));
                None
            }
        }
    }

    fn https_url(&mut self, obj: &Map<String, Value>, key: &'static str) -> Option<String> {
        let url = self.expanded_string(obj, key)?;
        if self.cx.mode == ExpandMode::Resolve || !url.contains("${") {
            let reason = match url::Url::parse(&url) {
                Ok(u) if u.scheme() == "https" && u.host().is_some() => None,
                Ok(u) if u.scheme() == "https" => Some("no host".to_owned()),
                Ok(u) => Some(format!("scheme \"{}\" is not https", u.scheme())),
                Err(e) => Some(e.to_string()),
            };
            if let Some(reason) = reason {
                self.problem(self.path.key(key), ProblemKind::NotHttps { reason });
                return None;
            }
        }
        Some(url)
    }

    fn private_key(&mut self, obj: &Map<String, Value>) -> Option<PrivateKey> {
        let inline = self.expanded_string(obj, "privateKey");
        let file = self.expanded_string(obj, "privateKeyFile");
        match (inline, file) {
            (Some(_), Some(_)) => {
                self.problem(
                    self.path.key("privateKeyFile"),
                    ProblemKind::ExclusiveKeys {
                        key: "privateKeyFile",
                        other: "privateKey",
                    },
                );
                None
            }
            (Some(pem), None) => Some(PrivateKey::Pem(pem)),
            (None, Some(file)) => Some(PrivateKey::File(self.cx.base_dir.join(file))),
            (None, None) => None,
        }
    }
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

fn key_name(key: &str) -> &'static str {
    OAUTH_KEYS
        .iter()
        .copied()
        .find(|k| *k == key)
        .unwrap_or("oauth")
}

#[cfg(test)]
#[path = "oauth_tests.rs"]
mod tests;
