//! config.yaml's sign-in settings for remote (OAuth) MCP servers:
//!
//! ```yaml
//! token_store: keyring        # file (default) or keyring; COYOTE_TOKEN_STORE overrides it
//! oauth_login_timeout: 300    # seconds a browser sign-in may take
//! ```

use std::time::Duration;

use serde::Deserialize;

/// How long a browser sign-in may take when config.yaml does not say.
pub const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(300);
/// The environment variable that overrides `token_store`.
pub const TOKEN_STORE_ENV: &str = "COYOTE_TOKEN_STORE";

/// Where OAuth tokens are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenStoreKind {
    /// A 0600 file per sign-in under the state directory.
    #[default]
    File,
    /// The OS keyring (Secret Service); the file store when it is unreachable.
    Keyring,
}

impl TokenStoreKind {
    /// `file` / `keyring`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "file" => Some(TokenStoreKind::File),
            "keyring" => Some(TokenStoreKind::Keyring),
            _ => None,
        }
    }
}

/// The validated settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignInSettings {
    /// `token_store` (or `$COYOTE_TOKEN_STORE`).
    pub token_store: TokenStoreKind,
    /// `oauth_login_timeout`.
    pub login_timeout: Duration,
}

impl Default for SignInSettings {
    fn default() -> Self {
        SignInSettings {
            token_store: TokenStoreKind::File,
            login_timeout: DEFAULT_LOGIN_TIMEOUT,
        }
    }
}
