//! rmcp's [`CredentialStore`] over a server's [`RecordCell`]: rmcp reads and writes tokens
//! through it (after a token exchange, a refresh or a client-credentials grant), and every
//! write reaches the configured store at once. A refresh rmcp starts itself takes the record's
//! refresh gate and lock file first and re-reads the record ([`RecordCell::coordinate`]),
//! unless coyote's own refresh already holds them.

use std::sync::Arc;

use async_trait::async_trait;
use std::sync::atomic::Ordering;

use rmcp::transport::auth::{
    AuthError, CredentialRefreshGuard, CredentialStore, StoredCredentials,
};

use super::store::RecordCell;

pub(crate) struct CellCredentials(pub(crate) Arc<RecordCell>);

#[async_trait]
impl CredentialStore for CellCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self.0.credentials())
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.0
            .update(|record| record.credentials = Some(credentials))
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        if self.0.refreshing.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let guard = self
            .0
            .coordinate()
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        Ok(Some(CredentialRefreshGuard::new(guard)))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.0
            .update(|record| record.credentials = None)
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }
}
