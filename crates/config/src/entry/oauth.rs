//! The `"oauth"` object of an HTTP entry → [`OAuthSpec`]. coyote's own keys are `clientId`,
//! `clientSecret`, `scopes`, `redirectPort`, `clientMetadataUrl` and `grant` (with `privateKey`,
//! `privateKeyFile`, `signingAlgorithm` for client credentials); Claude Code's documented keys
//! load unchanged: `callbackPort` is `redirectPort`, `scopes` may be one space-separated string,
//! and `authServerMetadataUrl` replaces discovery. Secrets (`clientSecret`, `privateKey`) are
//! `${VAR}`-expanded and never enter a problem or warning.

use coyote_protocol::{ClientCredentials, OAuthGrant, OAuthSpec, PrivateKey};
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
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Grant {
    AuthorizationCode,
    ClientCredentials,
}

const GRANT_VALUES: &[(&str, Grant)] = &[
    ("authorization_code", Grant::AuthorizationCode),
    ("client_credentials", Grant::ClientCredentials),
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
        // An unreadable `grant` was reported; checking keys against a guessed grant adds noise.
        let grant = match grant.unwrap_or(Grant::AuthorizationCode) {
            _ if grant.is_none() && obj.contains_key("grant") => OAuthGrant::AuthorizationCode,
            Grant::AuthorizationCode => {
                for key in ["privateKey", "privateKeyFile", "signingAlgorithm"] {
                    if obj.contains_key(key) {
                        self.problem(
                            self.path.key(key),
                            ProblemKind::OAuthKeyNeedsGrant { key: key_name(key) },
                        );
                    }
                }
                OAuthGrant::AuthorizationCode
            }
            Grant::ClientCredentials => {
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
        };
        OAuthSpec {
            client_id,
            client_secret,
            scopes,
            redirect_port,
            client_metadata_url,
            auth_server_metadata_url,
            grant,
        }
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
