//! DPoP (RFC 9449): one ES256 key pair per sign-in (kept in its record, beside the tokens and
//! with their protection), proofs (`typ: dpop+jwt`, the public key as `jwk`, `jti`, `htm`,
//! `htu`, `iat`, and `ath` + `nonce` where due), and the nonces the authorization server and
//! the resource server hand out. Signing is ring's, as for client assertions.
//!
//! Invariants: the private key never leaves this module except as the record's PKCS#8 text
//! (never in `Debug` or an error); every proof has a fresh random `jti`; `htu` carries no query
//! or fragment; a token the authorization server bound to the key ([`is_dpop_token_type`]) is
//! only ever presented with the `DPoP` scheme and a proof.

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, KeyPair};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::error::AuthFailure;

/// The one algorithm coyote signs proofs with.
pub(crate) const DPOP_ALG: &str = "ES256";
/// The header carrying a proof, and the one carrying a server's nonce.
pub(crate) const DPOP_HEADER: &str = "DPoP";
pub(crate) const DPOP_NONCE_HEADER: &str = "DPoP-Nonce";

/// An ES256 key pair.
pub(crate) struct DpopKey {
    pair: EcdsaKeyPair,
    /// PKCS#8, base64: what the record keeps.
    stored: String,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DpopKey({})", self.thumbprint())
    }
}

fn dpop_failure(reason: &str) -> AuthFailure {
    AuthFailure::Unusable {
        detail: format!("coyote cannot make its DPoP key ({reason})"),
    }
}

impl DpopKey {
    /// A new random key.
    pub(crate) fn generate() -> Result<Self, AuthFailure> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| dpop_failure("no randomness"))?;
        Self::from_stored(&STANDARD.encode(pkcs8.as_ref()))
    }

    /// The key a record kept.
    pub(crate) fn from_stored(stored: &str) -> Result<Self, AuthFailure> {
        let der = STANDARD
            .decode(stored)
            .map_err(|_| dpop_failure("the stored key is not base64"))?;
        let pair = EcdsaKeyPair::from_pkcs8(
            &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            &der,
            &SystemRandom::new(),
        )
        .map_err(|_| dpop_failure("the stored key is not a P-256 key"))?;
        Ok(DpopKey {
            pair,
            stored: stored.to_owned(),
        })
    }

    /// What the record keeps (PKCS#8, base64).
    pub(crate) fn stored(&self) -> &str {
        &self.stored
    }

    /// The public key as a JWK (members in RFC 7638 order, so it is also the thumbprint input).
    pub(crate) fn jwk(&self) -> serde_json::Value {
        let point = self.pair.public_key().as_ref();
        // Uncompressed SEC1: 0x04 || X (32) || Y (32).
        json!({
            "crv": "P-256",
            "kty": "EC",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
        })
    }

    /// The JWK SHA-256 thumbprint (RFC 7638): what a bound token's `cnf.jkt` names.
    pub(crate) fn thumbprint(&self) -> String {
        let jwk = self.jwk();
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            jwk["x"].as_str().unwrap_or_default(),
            jwk["y"].as_str().unwrap_or_default()
        );
        URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
    }

    /// A proof for one request: `method` and `url` of the request, `access_token` when it
    /// presents one (→ `ath`), `nonce` when the server gave one.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, AuthFailure> {
        let header = json!({"typ": "dpop+jwt", "alg": DPOP_ALG, "jwk": self.jwk()});
        let jti: [u8; 16] = rand::random();
        let mut claims = json!({
            "jti": hex::encode(jti),
            "htm": method,
            "htu": strip_query(url),
            "iat": now_secs(),
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(access_token_hash(token));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .map_err(|_| dpop_failure("signing failed"))?;
        Ok(format!(
            "{input}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }
}

/// `url` without query and fragment (`htu`; RFC 9449 §4.2).
fn strip_query(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].to_owned()
}

/// `ath`: base64url(SHA-256(token)).
pub(crate) fn access_token_hash(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The `token_type` of stored credentials (read through serde: rmcp does not re-export the
/// oauth2 trait that has the accessor).
pub(crate) fn token_type(credentials: &rmcp::transport::auth::StoredCredentials) -> String {
    credentials
        .token_response
        .as_ref()
        .and_then(|t| serde_json::to_value(t).ok())
        .and_then(|v| v.get("token_type")?.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Whether a token response's `token_type` says the token is bound to the proof key.
pub(crate) fn is_dpop_token_type(token_type: &str) -> bool {
    token_type.eq_ignore_ascii_case("dpop")
}

/// Whether authorization server metadata offers DPoP with ES256.
pub(crate) fn advertised(metadata: &rmcp::transport::auth::AuthorizationMetadata) -> Advertised {
    match metadata
        .additional_fields
        .get("dpop_signing_alg_values_supported")
        .and_then(|v| v.as_array())
    {
        None => Advertised::No,
        Some(algs) if algs.iter().any(|a| a.as_str() == Some(DPOP_ALG)) => Advertised::Es256,
        Some(_) => Advertised::OtherAlgorithms,
    }
}

/// What the metadata says about DPoP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Advertised {
    No,
    Es256,
    OtherAlgorithms,
}

/// One server's DPoP state, shared by the grants, rmcp's token requests (through the OAuth HTTP
/// client) and the resource requests.
#[derive(Debug, Default)]
pub(crate) struct DpopState {
    key: Mutex<Option<Arc<DpopKey>>>,
    /// The token endpoint whose POSTs carry a proof (set while DPoP is in use).
    token_endpoint: Mutex<Option<String>>,
    /// The last nonce of the authorization server.
    as_nonce: Mutex<Option<String>>,
    /// The last nonce of the resource server.
    rs_nonce: Arc<Mutex<Option<String>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl DpopState {
    pub(crate) fn key(&self) -> Option<Arc<DpopKey>> {
        lock(&self.key).clone()
    }

    /// Uses `key` for proofs at `token_endpoint`.
    pub(crate) fn activate(&self, key: Arc<DpopKey>, token_endpoint: &str) {
        *lock(&self.key) = Some(key);
        *lock(&self.token_endpoint) = Some(strip_query(token_endpoint));
    }

    /// No proofs at the token endpoint (a grant without DPoP).
    pub(crate) fn deactivate(&self) {
        *lock(&self.token_endpoint) = None;
    }

    /// Whether token requests carry proofs now.
    pub(crate) fn active(&self) -> bool {
        lock(&self.token_endpoint).is_some()
    }

    /// The key, when a POST to `url` is a token request that must carry a proof.
    pub(crate) fn for_token_request(&self, url: &str) -> Option<Arc<DpopKey>> {
        let endpoint = lock(&self.token_endpoint).clone()?;
        (strip_query(url) == endpoint).then(|| self.key()).flatten()
    }

    pub(crate) fn as_nonce(&self) -> Option<String> {
        lock(&self.as_nonce).clone()
    }

    pub(crate) fn set_as_nonce(&self, nonce: &str) {
        *lock(&self.as_nonce) = Some(nonce.to_owned());
    }

    pub(crate) fn rs_nonce(&self) -> Option<String> {
        lock(&self.rs_nonce).clone()
    }

    /// The cell the resource POSTs write a `DPoP-Nonce` answer into.
    pub(crate) fn rs_nonce_cell(&self) -> Arc<Mutex<Option<String>>> {
        self.rs_nonce.clone()
    }
}

#[cfg(test)]
#[path = "dpop_tests.rs"]
mod tests;
