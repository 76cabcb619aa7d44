//! TLS trust for coyote's and coolify-mcp's HTTP clients (the model providers, HTTP MCP
//! servers, the Coolify API): the platform's roots, loaded on the first TLS handshake.
//!
//! reqwest's own rustls setup builds `rustls-platform-verifier` inside `ClientBuilder::build`,
//! and on Linux that reads the whole system store (`/etc/ssl/certs/ca-certificates.crt` plus
//! every file in `/etc/ssl/certs`: ~150 opens, ~300 stats here) — milliseconds and a few hundred
//! KiB for every client, also one that only ever speaks plain `http://` (a local model, a
//! server on 127.0.0.1, a LAN Coolify). [`LazyPlatformVerifier`] defers exactly that work to the
//! first certificate it has to check. One crate so the three clients share one implementation
//! (`coyote-llm` and `coyote-mcp` never depend on each other, and the coolify crates on no
//! `coyote-*` crate). [`install_crypto_provider`] is the one process-wide install of the
//! crypto provider those clients (and rmcp's own reqwest clients for OAuth) rely on.
//!
//! Invariants:
//! - trust is unchanged: the verifier is `rustls-platform-verifier`'s, so the system store,
//!   `SSL_CERT_FILE` / `SSL_CERT_DIR` and custom CAs installed into the system store (e.g. a
//!   private CA in front of Coolify) keep working;
//! - roots are loaded at most once per client; a load failure is reported on every handshake
//!   (the connection fails), never silently downgraded to "accept";
//! - ALPN and protocol versions match what reqwest configures itself (h2, http/1.1; the
//!   provider's TLS 1.2 and 1.3).

use std::sync::{Arc, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// Installs the ring crypto provider as the process default, once (a no-op when one is
/// installed): rustls clients that are not built from [`client_config`] (rmcp's OAuth
/// discovery and token requests) take the process default.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A [`ServerCertVerifier`] that builds the platform verifier on first use.
#[derive(Debug)]
pub struct LazyPlatformVerifier {
    provider: Arc<CryptoProvider>,
    inner: OnceLock<Result<rustls_platform_verifier::Verifier, rustls::Error>>,
}

impl LazyPlatformVerifier {
    /// A verifier that checks with `provider`'s algorithms and loads the platform roots on
    /// the first certificate it checks.
    pub fn new(provider: Arc<CryptoProvider>) -> Self {
        Self {
            provider,
            inner: OnceLock::new(),
        }
    }

    /// True once the system roots were loaded (tests assert that building a config or
    /// starting a handshake does not load them).
    pub fn is_loaded(&self) -> bool {
        self.inner.get().is_some()
    }

    fn verifier(&self) -> Result<&rustls_platform_verifier::Verifier, rustls::Error> {
        self.inner
            .get_or_init(|| {
                tracing::debug!("loading the system TLS roots (first https connection)");
                rustls_platform_verifier::Verifier::new(self.provider.clone())
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl ServerCertVerifier for LazyPlatformVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.verifier()?.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        )
    }

    // Signatures are checked with the provider's algorithms, exactly as the platform
    // verifier does on Linux, so the ClientHello never waits for the root store.
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The rustls client configuration to hand to reqwest (`use_preconfigured_tls`), plus its
/// verifier (tests ask it whether the roots were loaded).
pub struct TlsSetup {
    /// ring provider, TLS 1.2 + 1.3, the lazy verifier, ALPN `h2` then `http/1.1`.
    pub config: rustls::ClientConfig,
    /// The verifier inside `config`.
    pub verifier: Arc<LazyPlatformVerifier>,
}

/// Build the client configuration: ring provider, TLS 1.2 + 1.3, lazy platform roots, ALPN
/// `h2` then `http/1.1` (what reqwest sets when it builds the config itself).
pub fn client_config() -> Result<TlsSetup, rustls::Error> {
    let provider = CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()));
    let verifier = Arc::new(LazyPlatformVerifier::new(provider.clone()));
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::ALL_VERSIONS)?
        .dangerous()
        .with_custom_certificate_verifier(verifier.clone())
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsSetup { config, verifier })
}

#[cfg(test)]
mod tests;
