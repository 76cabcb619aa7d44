//! `private_key_jwt` (RFC 7523) for the client-credentials grant: a client assertion signed
//! with ring (ES256/ES384 from PKCS#8, RS256/384/512 from PKCS#8 or PKCS#1), and the token
//! request carrying it. rmcp has this behind `auth-client-credentials-jwt`, but in 3.11 that
//! future is not `Send` and the feature builds aws-lc-sys (C) beside ring (see Cargo.toml).
//!
//! Invariants: the key and the assertion never enter an error message; the assertion lives
//! five minutes and carries a random `jti`; the token endpoint must be https or loopback
//! (the request itself is [`super::token_post`]'s).

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, RsaKeyPair};
use rmcp::transport::auth::StoredCredentials;

use super::dpop::DpopState;
use super::token_post::{ClientAuth, TokenPost, credentials, endpoint_allowed};
use crate::error::{AuthFailure, GrantKind};

/// Lifetime of one assertion.
const ASSERTION_LIFETIME_SECS: u64 = 300;
const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// What the token request needs.
pub(crate) struct AssertionGrant<'a> {
    pub(crate) client_id: &'a str,
    /// The authorization server's issuer (the assertion's `aud`).
    pub(crate) audience: &'a str,
    pub(crate) token_endpoint: &'a str,
    pub(crate) pem: &'a [u8],
    /// `signingAlgorithm`; `None`: from the key (EC P-256 → ES256, P-384 → ES384, RSA → RS256).
    pub(crate) algorithm: Option<&'a str>,
    pub(crate) scopes: &'a [String],
    pub(crate) resource: &'a str,
    /// The sign-in's DPoP state, when the token is to be bound.
    pub(crate) dpop: Option<&'a DpopState>,
}

enum Key {
    Ec(EcdsaKeyPair, &'static str),
    Rsa(RsaKeyPair),
}

fn key_failure(reason: impl Into<String>) -> AuthFailure {
    AuthFailure::PrivateKey {
        what: "of \"grant\": \"client_credentials\"".to_owned(),
        reason: reason.into(),
    }
}

/// The DER body and label of the first PEM block.
fn pem_block(pem: &[u8]) -> Result<(String, Vec<u8>), AuthFailure> {
    let text = std::str::from_utf8(pem).map_err(|_| key_failure("it is not PEM text"))?;
    let begin = text
        .find("-----BEGIN ")
        .ok_or_else(|| key_failure("no \"-----BEGIN\" line"))?;
    let rest = &text[begin + "-----BEGIN ".len()..];
    let label_end = rest
        .find("-----")
        .ok_or_else(|| key_failure("a broken BEGIN line"))?;
    let label = rest[..label_end].to_owned();
    let body = &rest[label_end + 5..];
    let end = body
        .find("-----END ")
        .ok_or_else(|| key_failure("no \"-----END\" line"))?;
    let b64: String = body[..end].chars().filter(|c| !c.is_whitespace()).collect();
    let der = STANDARD
        .decode(b64)
        .map_err(|_| key_failure("the PEM body is not base64"))?;
    Ok((label, der))
}

fn load_key(pem: &[u8], algorithm: Option<&str>) -> Result<Key, AuthFailure> {
    let (label, der) = pem_block(pem)?;
    let rng = SystemRandom::new();
    let ec = |alg: &'static signature::EcdsaSigningAlgorithm, name: &'static str| {
        EcdsaKeyPair::from_pkcs8(alg, &der, &rng)
            .ok()
            .map(|k| Key::Ec(k, name))
    };
    let rsa = || {
        RsaKeyPair::from_pkcs8(&der)
            .or_else(|_| RsaKeyPair::from_der(&der))
            .ok()
            .map(Key::Rsa)
    };
    let key = match (label.as_str(), algorithm) {
        ("EC PRIVATE KEY", _) => {
            return Err(key_failure(
                "it is a SEC1 EC key; convert it to PKCS#8 with `openssl pkcs8 -topk8 -nocrypt`",
            ));
        }
        ("RSA PRIVATE KEY", _) => rsa(),
        (_, Some("ES256")) => ec(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, "ES256"),
        (_, Some("ES384")) => ec(&signature::ECDSA_P384_SHA384_FIXED_SIGNING, "ES384"),
        (_, Some(_)) => rsa(),
        (_, None) => ec(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, "ES256")
            .or_else(|| ec(&signature::ECDSA_P384_SHA384_FIXED_SIGNING, "ES384"))
            .or_else(rsa),
    };
    key.ok_or_else(|| {
        key_failure(match algorithm {
            Some(alg) => format!("it is not a {alg} key (or not unencrypted PKCS#8/PKCS#1)"),
            None => "it is not an unencrypted PKCS#8 EC (P-256, P-384) or RSA key".to_owned(),
        })
    })
}

/// A signed client assertion.
pub(crate) fn assertion(grant: &AssertionGrant<'_>) -> Result<String, AuthFailure> {
    let key = load_key(grant.pem, grant.algorithm)?;
    let alg = match (&key, grant.algorithm) {
        (Key::Ec(_, name), _) => *name,
        (Key::Rsa(_), Some(name @ ("RS384" | "RS512"))) => name,
        (Key::Rsa(_), _) => "RS256",
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let jti: [u8; 16] = rand::random();
    let header = serde_json::json!({"alg": alg, "typ": "client-authentication+jwt"});
    let claims = serde_json::json!({
        "iss": grant.client_id,
        "sub": grant.client_id,
        "aud": grant.audience,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME_SECS,
        "jti": hex::encode(jti),
    });
    let signing_input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let rng = SystemRandom::new();
    let signature = match &key {
        Key::Ec(pair, _) => pair
            .sign(&rng, signing_input.as_bytes())
            .map(|s| s.as_ref().to_vec())
            .map_err(|_| key_failure("signing failed"))?,
        Key::Rsa(pair) => {
            let padding = match alg {
                "RS384" => &signature::RSA_PKCS1_SHA384,
                "RS512" => &signature::RSA_PKCS1_SHA512,
                _ => &signature::RSA_PKCS1_SHA256,
            };
            let mut out = vec![0u8; pair.public().modulus_len()];
            pair.sign(padding, &rng, signing_input.as_bytes(), &mut out)
                .map_err(|_| key_failure("signing failed"))?;
            out
        }
    };
    Ok(format!(
        "{signing_input}.{}",
        URL_SAFE_NO_PAD.encode(signature)
    ))
}

/// Asks the token endpoint for a token with a signed assertion.
pub(crate) async fn request_token(
    grant: &AssertionGrant<'_>,
) -> Result<StoredCredentials, AuthFailure> {
    let mut form = vec![
        ("grant_type", "client_credentials".to_owned()),
        ("client_assertion_type", ASSERTION_TYPE.to_owned()),
        ("resource", grant.resource.to_owned()),
    ];
    if !grant.scopes.is_empty() {
        form.push(("scope", grant.scopes.join(" ")));
    }
    let mut post = TokenPost {
        endpoint: grant.token_endpoint,
        form,
        client: ClientAuth::InForm,
        grant: GrantKind::ClientCredentials,
        dpop: grant.dpop,
    };
    if !endpoint_allowed(grant.token_endpoint) {
        // Checked before signing: the assertion is never made for an endpoint it cannot go to.
        return Err(AuthFailure::Unusable {
            detail: format!(
                "its token endpoint {} is not https, and a client assertion is only sent over \
                 https (or to a loopback address)",
                super::oauth_http::strip_query(grant.token_endpoint)
            ),
        });
    }
    post.form.push(("client_assertion", assertion(grant)?));
    let answer = post.send().await?;
    credentials(
        &post,
        answer,
        grant.client_id,
        grant.scopes,
        Some(grant.audience.to_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::KeyPair;

    fn grant<'a>(pem: &'a [u8], algorithm: Option<&'a str>) -> AssertionGrant<'a> {
        AssertionGrant {
            client_id: "bot",
            audience: "https://as.example",
            token_endpoint: "https://as.example/token",
            pem,
            algorithm,
            scopes: &[],
            resource: "https://mcp.example/mcp",
            dpop: None,
        }
    }

    fn pem(label: &str, der: &[u8]) -> Vec<u8> {
        format!(
            "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
            STANDARD.encode(der)
        )
        .into_bytes()
    }

    #[test]
    fn es256_assertion_verifies_with_the_public_key() {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(
            &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            pkcs8.as_ref(),
            &rng,
        )
        .unwrap();
        let pem = pem("PRIVATE KEY", pkcs8.as_ref());
        let jwt = assertion(&grant(&pem, None)).unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        assert_eq!(header["alg"], "ES256");
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["iss"], "bot");
        assert_eq!(claims["sub"], "bot");
        assert_eq!(claims["aud"], "https://as.example");
        assert_eq!(
            claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(),
            ASSERTION_LIFETIME_SECS
        );
        let public = signature::UnparsedPublicKey::new(
            &signature::ECDSA_P256_SHA256_FIXED,
            pair.public_key().as_ref(),
        );
        let signed = format!("{}.{}", parts[0], parts[1]);
        public
            .verify(
                signed.as_bytes(),
                &URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
            )
            .unwrap();
    }

    #[test]
    fn bad_keys_say_what_to_do_without_the_key() {
        let sec1 = pem("EC PRIVATE KEY", b"\x30\x03secretbytes");
        let e = assertion(&grant(&sec1, None)).unwrap_err().to_string();
        assert!(e.contains("openssl pkcs8 -topk8"), "{e}");
        let junk = pem("PRIVATE KEY", b"not a key SECRET");
        let e = assertion(&grant(&junk, Some("ES256")))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not a ES256 key") && !e.contains("SECRET"),
            "{e}"
        );
        let e = assertion(&grant(b"hello", None)).unwrap_err().to_string();
        assert!(e.contains("BEGIN"), "{e}");
    }

    #[test]
    fn assertions_go_only_to_https_or_loopback() {
        assert!(endpoint_allowed("https://as.example/token"));
        assert!(endpoint_allowed("http://localhost:8080/token"));
        assert!(endpoint_allowed("http://127.0.0.1:8080/token"));
        assert!(!endpoint_allowed("http://as.example/token"));
    }
}
