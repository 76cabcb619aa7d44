//! A signed-in user's Coolify token, sealed in the OAuth state under a key derived from the
//! code or token that grants it: the state file (which holds only digests of those) cannot
//! open it, and neither can anyone who does not present the grant itself.
//!
//! Invariants:
//! - ChaCha20-Poly1305 with a fresh random nonce per seal; the key is SHA-256 of a domain
//!   label and the granting secret;
//! - anything altered, or opened with another secret, fails to open (`None`).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use sha2::{Digest, Sha256};

fn key(secret: &str) -> Option<LessSafeKey> {
    let mut h = Sha256::new();
    h.update(b"coolify-mcp sealed coolify token v1\0");
    h.update(secret.as_bytes());
    let bytes = h.finalize();
    UnboundKey::new(&CHACHA20_POLY1305, &bytes)
        .ok()
        .map(LessSafeKey::new)
}

/// `plaintext` sealed under `secret`: base64url of nonce and ciphertext with its tag.
pub fn seal(plaintext: &str, secret: &str) -> Option<String> {
    let key = key(secret)?;
    let nonce_bytes: [u8; NONCE_LEN] = rand::random();
    let mut data = plaintext.as_bytes().to_vec();
    key.seal_in_place_append_tag(
        Nonce::assume_unique_for_key(nonce_bytes),
        Aad::empty(),
        &mut data,
    )
    .ok()?;
    let mut out = nonce_bytes.to_vec();
    out.extend_from_slice(&data);
    Some(URL_SAFE_NO_PAD.encode(out))
}

/// The plaintext of `sealed`, if `secret` is the one it was sealed under and nothing changed.
pub fn open(sealed: &str, secret: &str) -> Option<String> {
    let bytes = URL_SAFE_NO_PAD.decode(sealed).ok()?;
    if bytes.len() < NONCE_LEN {
        return None;
    }
    let (nonce, body) = bytes.split_at(NONCE_LEN);
    let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
    let mut body = body.to_vec();
    let plain = key(secret)?
        .open_in_place(nonce, Aad::empty(), &mut body)
        .ok()?;
    String::from_utf8(plain.to_vec()).ok()
}

#[cfg(test)]
#[path = "sealed_tests.rs"]
mod tests;
