//! TLS through the client (the lazy platform roots of the `lazy-tls` crate, whose own tests cover
//! the verifier): a real loopback TLS handshake through `CoolifyClient` to a self-signed
//! certificate fails with a connect error naming the unknown issuer.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{CertificateError, Error};

use crate::{ApiError, ApiPath, CoolifyClient, TokenSpec};

/// A self-signed P-256 certificate for `localhost` / `127.0.0.1` (test data only).
const CERT: &[u8] = include_bytes!("testdata/self_signed_localhost.der");
/// Its PKCS#8 key (test data only; it protects nothing).
const KEY: &[u8] = include_bytes!("testdata/self_signed_localhost.key.der");

/// A one-connection TLS server on 127.0.0.1 serving the self-signed certificate; returns
/// its port. The thread ends when the handshake ends (the client refuses it).
fn tls_server_once() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![CertificateDer::from(CERT)],
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(KEY)),
    )
    .unwrap();
    std::thread::spawn(move || {
        let Ok((mut tcp, _)) = listener.accept() else {
            return;
        };
        let mut conn = rustls::ServerConnection::new(Arc::new(config)).unwrap();
        let mut tls = rustls::Stream::new(&mut conn, &mut tcp);
        let mut buf = [0u8; 1024];
        // The client aborts the handshake; any outcome ends the thread.
        if tls.read(&mut buf).is_ok() {
            let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}");
        }
    });
    port
}

#[tokio::test]
async fn https_to_an_untrusted_certificate_is_a_connect_error() {
    let port = tls_server_once();
    let client = CoolifyClient::builder(
        format!("https://127.0.0.1:{port}"),
        TokenSpec::Inline("t".into()),
    )
    .build()
    .unwrap();
    let err = client.get(&ApiPath::new("version")).await.unwrap_err();
    assert!(matches!(err, ApiError::Connect { .. }), "{err:?}");
    assert_eq!(
        rustls_cause(&err),
        Some(Error::InvalidCertificate(CertificateError::UnknownIssuer)),
        "{err:?}"
    );
}

/// The rustls error somewhere in the source chain (hyper-rustls wraps it in an io::Error).
fn rustls_cause(err: &(dyn std::error::Error + 'static)) -> Option<Error> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(r) = e.downcast_ref::<Error>() {
            return Some(r.clone());
        }
        cur = match e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner),
            None => e.source(),
        };
    }
    None
}
