//! DPoP at the MCP server (RFC 9449 §7): the layer between rmcp's `AuthClient` and the POST,
//! so that a token the authorization server bound to coyote's key goes out as
//! `Authorization: DPoP <token>` with a fresh proof (`htm`, `htu`, `ath`, the server's latest
//! nonce) on every POST, GET and DELETE; a `use_dpop_nonce` challenge is answered once with
//! the nonce the server just sent.
//!
//! Invariant: whether a token is bound is read from the stored token response itself
//! (`token_type` DPoP), and a bound token is never sent with the `Bearer` scheme — when the
//! key is missing the request fails instead.

use std::sync::Arc;

use http::header::AUTHORIZATION;
use http::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpError;

use super::dpop::{DpopKey, DpopState, is_dpop_token_type, token_type};
use super::store::RecordCell;
use crate::connect::challenge::challenge_params;
use crate::connect::layered::{
    DeleteRequest, GetRequest, GetResult, HttpLayer, Layered, PostRequest, PostResult,
};
use crate::connect::post::StatusClient;

type HttpError = StreamableHttpError<reqwest::Error>;

/// The POST client with DPoP proofs added where the token is bound.
pub(crate) type ProofClient = Layered<ProofLayer, StatusClient>;

/// Builds the client for one transport of a server.
pub(crate) fn proof_client(
    http: reqwest::Client,
    cell: &Arc<RecordCell>,
    dpop: &Arc<DpopState>,
) -> ProofClient {
    Layered::over(
        ProofLayer {
            cell: cell.clone(),
            dpop: dpop.clone(),
        },
        StatusClient::keeping_nonces(http, dpop.rs_nonce_cell()),
    )
}

/// The layer.
#[derive(Clone)]
pub(crate) struct ProofLayer {
    cell: Arc<RecordCell>,
    dpop: Arc<DpopState>,
}

fn refused(reason: &str) -> HttpError {
    StreamableHttpError::Io(std::io::Error::other(format!(
        "the sign-in's token is DPoP-bound, but {reason}; run `coyote mcp login` for this server \
         again"
    )))
}

impl ProofLayer {
    /// The key to prove possession with, when the current token is bound to one.
    fn bound_key(&self) -> Result<Option<Arc<DpopKey>>, HttpError> {
        let bound = self
            .cell
            .credentials()
            .is_some_and(|c| is_dpop_token_type(&token_type(&c)));
        if !bound {
            return Ok(None);
        }
        match self.dpop.key() {
            Some(key) => Ok(Some(key)),
            None => Err(refused("its key is missing from the token store")),
        }
    }

    /// Moves `token` from the bearer slot into `DPoP` + proof headers.
    fn present(
        &self,
        key: &DpopKey,
        method: &str,
        uri: &str,
        token: &str,
        nonce: Option<&str>,
        headers: &mut std::collections::HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        let proof = key
            .proof(method, uri, Some(token), nonce)
            .map_err(|_| refused("no proof could be signed"))?;
        let mut authorization = HeaderValue::from_str(&format!("DPoP {token}"))
            .map_err(|_| refused("the token is not a valid header value"))?;
        authorization.set_sensitive(true);
        headers.insert(AUTHORIZATION, authorization);
        let proof = HeaderValue::from_str(&proof)
            .map_err(|_| refused("the proof is not a header value"))?;
        headers.insert(HeaderName::from_static("dpop"), proof);
        Ok(())
    }
}

/// Whether a 401 challenge asks for a (new) DPoP nonce.
fn asks_nonce(error: &HttpError, uri: &str) -> bool {
    match error {
        StreamableHttpError::AuthRequired(e) => {
            challenge_params(&e.www_authenticate_header, uri)
                .error
                .as_deref()
                == Some("use_dpop_nonce")
        }
        _ => false,
    }
}

impl HttpLayer<StatusClient> for ProofLayer {
    async fn post(&self, inner: &StatusClient, request: PostRequest) -> PostResult<reqwest::Error> {
        let Some(token) = request.auth_header.clone() else {
            return request.send(inner).await;
        };
        let Some(key) = self.bound_key()? else {
            return request.send(inner).await;
        };
        let sent = self.dpop.rs_nonce();
        let attempt = |nonce: Option<String>| {
            let mut request = request.clone();
            request.auth_header = None;
            let presented = self.present(
                &key,
                "POST",
                &request.uri,
                &token,
                nonce.as_deref(),
                &mut request.custom_headers,
            );
            async move {
                presented?;
                request.send(inner).await
            }
        };
        match attempt(sent.clone()).await {
            Err(error) if asks_nonce(&error, &request.uri) && self.dpop.rs_nonce() != sent => {
                tracing::debug!("the server asked for a DPoP nonce; sending again once");
                attempt(self.dpop.rs_nonce()).await
            }
            other => other,
        }
    }

    async fn get(
        &self,
        inner: &StatusClient,
        mut request: GetRequest,
    ) -> GetResult<reqwest::Error> {
        if let Some(token) = request.auth_header.clone()
            && let Some(key) = self.bound_key()?
        {
            request.auth_header = None;
            let nonce = self.dpop.rs_nonce();
            let uri = request.uri.clone();
            self.present(
                &key,
                "GET",
                &uri,
                &token,
                nonce.as_deref(),
                &mut request.custom_headers,
            )?;
        }
        request.send(inner).await
    }

    async fn delete(
        &self,
        inner: &StatusClient,
        mut request: DeleteRequest,
    ) -> Result<(), StreamableHttpError<reqwest::Error>> {
        if let Some(token) = request.auth_header.clone()
            && let Some(key) = self.bound_key()?
        {
            request.auth_header = None;
            let nonce = self.dpop.rs_nonce();
            let uri = request.uri.clone();
            self.present(
                &key,
                "DELETE",
                &uri,
                &token,
                nonce.as_deref(),
                &mut request.custom_headers,
            )?;
        }
        request.send(inner).await
    }
}
