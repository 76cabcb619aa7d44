use super::*;

fn part(jwt: &str, i: usize) -> serde_json::Value {
    let text = jwt.split('.').nth(i).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(text).unwrap()).unwrap()
}

#[test]
fn a_proof_is_signed_by_the_key_it_names_and_carries_the_request() {
    let key = DpopKey::generate().unwrap();
    let proof = key
        .proof(
            "POST",
            "https://mcp.example/mcp?x=1#f",
            Some("tok"),
            Some("n-1"),
        )
        .unwrap();
    let header = part(&proof, 0);
    assert_eq!(header["typ"], "dpop+jwt");
    assert_eq!(header["alg"], "ES256");
    assert!(
        header["jwk"].get("d").is_none(),
        "no private part: {header}"
    );
    let claims = part(&proof, 1);
    assert_eq!(claims["htm"], "POST");
    assert_eq!(claims["htu"], "https://mcp.example/mcp");
    assert_eq!(claims["ath"], access_token_hash("tok"));
    assert_eq!(claims["nonce"], "n-1");
    // The signature verifies with the public key of the jwk header.
    let x = URL_SAFE_NO_PAD
        .decode(header["jwk"]["x"].as_str().unwrap())
        .unwrap();
    let y = URL_SAFE_NO_PAD
        .decode(header["jwk"]["y"].as_str().unwrap())
        .unwrap();
    let mut point = vec![4u8];
    point.extend(x);
    point.extend(y);
    let public = signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, point);
    let (input, sig) = proof.rsplit_once('.').unwrap();
    public
        .verify(input.as_bytes(), &URL_SAFE_NO_PAD.decode(sig).unwrap())
        .unwrap();
    // Fresh jti per proof; the stored key signs the same identity.
    let again = key
        .proof("POST", "https://mcp.example/mcp", None, None)
        .unwrap();
    assert_ne!(part(&again, 1)["jti"], claims["jti"]);
    assert!(part(&again, 1).get("ath").is_none());
    let reloaded = DpopKey::from_stored(key.stored()).unwrap();
    assert_eq!(reloaded.thumbprint(), key.thumbprint());
    assert!(!format!("{key:?}").contains(key.stored()));
}

#[test]
fn the_thumbprint_is_rfc_7638() {
    // RFC 7638 §3.1 computes over the members in lexical order without spaces; check against
    // an independent serialisation of the same JWK.
    let key = DpopKey::generate().unwrap();
    let jwk = key.jwk();
    let members: std::collections::BTreeMap<&str, &str> = ["crv", "kty", "x", "y"]
        .iter()
        .map(|m| (*m, jwk[*m].as_str().unwrap()))
        .collect();
    let canonical = serde_json::to_string(&members).unwrap();
    assert_eq!(
        key.thumbprint(),
        URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
    );
}

#[test]
fn token_requests_get_proofs_only_at_the_active_endpoint() {
    let state = DpopState::default();
    assert!(state.for_token_request("https://as/token").is_none());
    state.activate(Arc::new(DpopKey::generate().unwrap()), "https://as/token?x");
    assert!(state.for_token_request("https://as/token").is_some());
    assert!(state.for_token_request("https://as/register").is_none());
    state.deactivate();
    assert!(state.for_token_request("https://as/token").is_none());
    assert!(is_dpop_token_type("DPoP") && is_dpop_token_type("dpop"));
    assert!(!is_dpop_token_type("Bearer"));
}
