//! The streamable HTTP client of an OAuth server: rmcp's `AuthClient` (bearer token from the
//! record, one refresh and retry on a rejected token) with a sign-in layer ([`SignInLayer`],
//! a [`Layered`] hook around POST and GET) so that a 401/403 the tokens
//! cannot answer goes to [`ServerAuth::answer`] — a sign-in, a client-credentials token, or
//! passing the challenge on (→ `needs-auth`) — and the request is sent again after new
//! credentials. A 401/403 means the server did not process the request, so resending is safe.
//! A failed sign-in travels to the caller as the payload of an I/O error (the transport's error
//! type is rmcp's) and is recovered by `describe::classify_http`.

use std::future::Future;
use std::sync::Arc;

use rmcp::transport::AuthClient;
use rmcp::transport::streamable_http_client::StreamableHttpError;

use crate::connect::challenge::Challenge;
use crate::connect::layered::{GetRequest, GetResult, HttpLayer, Layered, PostRequest, PostResult};

use super::proof::{ProofClient, proof_client};
use super::server_auth::{Attempts, ServerAuth, Verdict};

type HttpError = StreamableHttpError<reqwest::Error>;

/// The layer that answers a challenge with a sign-in and sends the request again.
#[derive(Clone)]
pub(crate) struct SignInLayer {
    auth: Arc<ServerAuth>,
}

/// rmcp's `AuthClient` over the DPoP proofs and the status-keeping POST, with sign-in on a
/// challenge.
pub(crate) type SignInClient = Layered<SignInLayer, AuthClient<ProofClient>>;

impl SignInClient {
    pub(crate) fn new(http: reqwest::Client, auth: Arc<ServerAuth>) -> Self {
        let mut inner = auth.http.clone();
        inner.http_client = proof_client(http, &auth.cell, &auth.dpop);
        Layered::over(SignInLayer { auth }, inner)
    }
}

impl SignInLayer {
    async fn with_sign_in<T, F, Fut>(&self, call: F) -> Result<T, HttpError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let mut attempts = Attempts::default();
        self.auth.refresh_if_due().await;
        loop {
            let generation = self.auth.generation();
            let error = match call().await {
                Ok(value) => return Ok(value),
                Err(error) => error,
            };
            let Some(challenge) = Challenge::of(&error) else {
                return Err(error);
            };
            match self.auth.answer(challenge, generation, &mut attempts).await {
                Verdict::Retry => continue,
                Verdict::PassOn => return Err(error),
                Verdict::Failed(failure) => {
                    tracing::warn!(server = %self.auth.server, %failure, "sign-in failed");
                    return Err(StreamableHttpError::Io(std::io::Error::other(failure)));
                }
            }
        }
    }
}

/// POSTs and GETs are sent again after a sign-in; a DELETE is not (a session being closed
/// needs no new credentials).
impl HttpLayer<AuthClient<ProofClient>> for SignInLayer {
    async fn post(
        &self,
        inner: &AuthClient<ProofClient>,
        request: PostRequest,
    ) -> PostResult<reqwest::Error> {
        self.with_sign_in(|| request.clone().send(inner)).await
    }

    async fn get(
        &self,
        inner: &AuthClient<ProofClient>,
        request: GetRequest,
    ) -> GetResult<reqwest::Error> {
        self.with_sign_in(|| request.clone().send(inner)).await
    }
}
