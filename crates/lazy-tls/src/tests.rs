//! The lazy verifier: building a config loads no roots; the first certificate check loads the
//! platform roots and refuses an unknown self-signed certificate (trust is never relaxed by the
//! laziness). coolify-api's tests add a real loopback handshake through its client.

use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, Error};

use super::*;

/// A self-signed P-256 certificate for `localhost` / `127.0.0.1` (test data only, a copy of
/// coolify-api's).
const CERT: &[u8] = include_bytes!("testdata/self_signed_localhost.der");

#[test]
fn building_the_config_and_offering_schemes_loads_no_roots() {
    let setup = client_config().unwrap();
    assert!(!setup.verifier.is_loaded());
    assert!(!setup.verifier.supported_verify_schemes().is_empty());
    assert_eq!(
        setup.config.alpn_protocols,
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    );
    assert!(!setup.verifier.is_loaded());
}

#[test]
fn the_first_certificate_check_loads_the_roots_and_refuses_an_unknown_issuer() {
    let setup = client_config().unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let err = setup
        .verifier
        .verify_server_cert(
            &CertificateDer::from(CERT),
            &[],
            &name,
            &[],
            UnixTime::now(),
        )
        .unwrap_err();
    assert_eq!(
        err,
        Error::InvalidCertificate(CertificateError::UnknownIssuer)
    );
    assert!(setup.verifier.is_loaded());
}
