//! The OS keyring as a token store (opt-in: `token_store: keyring`): the freedesktop Secret
//! Service (GNOME Keyring, KWallet, KeePassXC, …) over D-Bus, through the pure-Rust
//! `secret-service` crate (zbus; no libdbus). Each sign-in record is one item of the default
//! collection, attributes `application=coyote` and `coyote-sign-in=<key id>`, its secret the
//! record's JSON. [`open`] probes the service within a deadline; the caller falls back to the
//! file store when it does not answer.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use secret_service::EncryptionType;
use secret_service::blocking::{Collection, SecretService};

use super::store::{SignInRecord, StoreKey, TokenStore};
use crate::error::AuthFailure;

const APPLICATION: &str = "coyote";
const KEY_ATTRIBUTE: &str = "coyote-sign-in";

/// Records in the Secret Service's default collection; refresh locks in `lock_dir`.
pub(crate) struct KeyringStore {
    lock_dir: PathBuf,
}

/// Opens the keyring, or says why it cannot be used (within `timeout`).
pub(crate) async fn open(
    timeout: Duration,
    lock_dir: PathBuf,
) -> Result<Arc<dyn TokenStore>, String> {
    let probe = tokio::task::spawn_blocking(|| {
        let service = SecretService::connect(EncryptionType::Dh).map_err(describe)?;
        service.get_any_collection().map_err(describe)?;
        Ok::<(), String>(())
    });
    match tokio::time::timeout(timeout, probe).await {
        Ok(Ok(Ok(()))) => Ok(Arc::new(KeyringStore { lock_dir })),
        Ok(Ok(Err(reason))) => Err(reason),
        Ok(Err(_)) => Err("the keyring probe stopped unexpectedly".to_owned()),
        Err(_) => Err(format!(
            "the Secret Service did not answer within {} s",
            timeout.as_secs()
        )),
    }
}

fn describe(error: secret_service::Error) -> String {
    match error {
        secret_service::Error::Unavailable => {
            "no Secret Service provider or D-Bus session was found".to_owned()
        }
        secret_service::Error::Locked => "the keyring is locked".to_owned(),
        secret_service::Error::Prompt | secret_service::Error::PromptDisconnected => {
            "unlocking the keyring was dismissed".to_owned()
        }
        secret_service::Error::NoResult => "the keyring has no collection to store in".to_owned(),
        secret_service::Error::Zbus(_) | secret_service::Error::ZbusFdo(_) => {
            "the D-Bus session bus or its Secret Service could not be reached".to_owned()
        }
        _ => "the Secret Service did not answer as expected".to_owned(),
    }
}

fn failure(error: secret_service::Error) -> AuthFailure {
    AuthFailure::Store {
        reason: format!(
            "the OS keyring failed ({}); set token_store: file in config.yaml to use the file store",
            describe(error)
        ),
    }
}

fn with_collection<T>(
    work: impl FnOnce(&Collection<'_>) -> Result<T, secret_service::Error>,
) -> Result<T, AuthFailure> {
    let service = SecretService::connect(EncryptionType::Dh).map_err(failure)?;
    let collection = service.get_any_collection().map_err(failure)?;
    collection.ensure_unlocked().map_err(failure)?;
    work(&collection).map_err(failure)
}

impl TokenStore for KeyringStore {
    fn load(&self, key: &StoreKey) -> Result<Option<SignInRecord>, AuthFailure> {
        let id = key.id();
        let secret = with_collection(|collection| {
            let attributes = HashMap::from([(KEY_ATTRIBUTE, id.as_str())]);
            match collection.search_items(attributes)?.first() {
                Some(item) => item.get_secret().map(Some),
                None => Ok(None),
            }
        })?;
        let Some(secret) = secret else {
            return Ok(None);
        };
        match serde_json::from_slice::<SignInRecord>(&secret) {
            Ok(record) if record.server_url == key.server_url => Ok(Some(record)),
            Ok(_) => Ok(None),
            Err(_) => {
                tracing::warn!("unreadable sign-in record in the keyring ignored");
                Ok(None)
            }
        }
    }

    fn save(&self, key: &StoreKey, record: &SignInRecord) -> Result<(), AuthFailure> {
        let id = key.id();
        let json = serde_json::to_vec(record).map_err(|e| AuthFailure::Store {
            reason: e.to_string(),
        })?;
        let label = format!(
            "coyote sign-in for {}",
            coyote_protocol::redact_url(&key.server_url)
        );
        with_collection(|collection| {
            let attributes =
                HashMap::from([("application", APPLICATION), (KEY_ATTRIBUTE, id.as_str())]);
            collection
                .create_item(&label, attributes, &json, true, "application/json")
                .map(|_| ())
        })
    }

    fn delete(&self, key: &StoreKey) -> Result<bool, AuthFailure> {
        let id = key.id();
        with_collection(|collection| {
            let attributes = HashMap::from([(KEY_ATTRIBUTE, id.as_str())]);
            let items = collection.search_items(attributes)?;
            for item in &items {
                item.delete()?;
            }
            Ok(!items.is_empty())
        })
    }

    fn describe(&self) -> String {
        "the OS keyring (Secret Service)".to_owned()
    }

    fn lock_path(&self, key: &StoreKey) -> Option<PathBuf> {
        Some(self.lock_dir.join(format!("{}.lock", key.id())))
    }
}
