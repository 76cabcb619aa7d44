//! The key a request is sent with: a fixed [`ApiKey`] resolved by the caller, or the standard
//! output of the client's `key_command` (an Entra ID token, a key from a password manager),
//! run when first needed and again once the cached value is [`KEY_COMMAND_TTL`] old — access
//! tokens expire, and a REPL session outlives them.
//!
//! Invariants: the command runs with a timeout and never while a lock is held; its output is
//! never logged; a failure names the command's exit status and the first line of its stderr
//! (not its stdout, which may hold a partial secret).

use std::process::Stdio;
use std::time::{Duration, Instant};

use coyote_protocol::{ApiKey, KeySource};
use tokio::sync::Mutex;

use crate::error::LlmError;

/// How long a key printed by `key_command` is reused.
pub const KEY_COMMAND_TTL: Duration = Duration::from_secs(10 * 60);
/// The longest a `key_command` may run.
pub const KEY_COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// Where the key comes from.
#[derive(Debug)]
pub(crate) enum Credential {
    /// No key (local servers).
    None,
    /// A key the caller resolved.
    Fixed(ApiKey),
    /// A command's output, cached.
    Command {
        command: String,
        cached: Mutex<Option<(ApiKey, Instant)>>,
    },
}

impl Credential {
    pub fn new(key: Option<ApiKey>, command: Option<String>) -> Self {
        match (command, key) {
            (Some(command), _) => Credential::Command {
                command,
                cached: Mutex::new(None),
            },
            (None, Some(key)) => Credential::Fixed(key),
            (None, None) => Credential::None,
        }
    }

    /// The key for the next request, running the command when the cache is empty or old.
    pub async fn key(&self, provider: &str) -> Result<Option<ApiKey>, LlmError> {
        match self {
            Credential::None => Ok(None),
            Credential::Fixed(key) => Ok(Some(key.clone())),
            Credential::Command { command, cached } => {
                if let Some((key, at)) = cached.lock().await.as_ref()
                    && at.elapsed() < KEY_COMMAND_TTL
                {
                    return Ok(Some(key.clone()));
                }
                let key = run_key_command(provider, command).await?;
                *cached.lock().await = Some((key.clone(), Instant::now()));
                Ok(Some(key))
            }
        }
    }

    /// The last key used, for scrubbing error texts (without running anything).
    pub fn known_secret(&self) -> Option<String> {
        match self {
            Credential::None => None,
            Credential::Fixed(key) => Some(key.expose_secret().to_string()),
            Credential::Command { cached, .. } => cached
                .try_lock()
                .ok()
                .and_then(|c| c.as_ref().map(|(k, _)| k.expose_secret().to_string())),
        }
    }

    /// What to tell the user after the server refused the key.
    pub fn advice(&self, provider: &str) -> String {
        match self {
            Credential::None => format!(
                "no API key is configured for client `{provider}`: set `api_key_env` in \
                 config.yaml to the variable holding it"
            ),
            Credential::Fixed(key) => match key.source() {
                KeySource::Env(var) => format!("check the key in ${var} and its permissions"),
                KeySource::Provided => {
                    "check the configured API key and its permissions".to_string()
                }
            },
            Credential::Command { command, .. } => format!(
                "check what `api_key_cmd` ({command}) prints and the permissions of that key or \
                 token"
            ),
        }
    }
}

async fn run_key_command(provider: &str, command: &str) -> Result<ApiKey, LlmError> {
    let fail = |problem: String| {
        LlmError::config(
            provider,
            format!("`api_key_cmd` ({command}) {problem}; fix the command in config.yaml"),
        )
    };
    let child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| fail(format!("could not be started ({e})")))?;
    let output = tokio::time::timeout(KEY_COMMAND_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| {
            fail(format!(
                "did not finish within {} s",
                KEY_COMMAND_TIMEOUT.as_secs()
            ))
        })?
        .map_err(|e| fail(format!("failed ({e})")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr.lines().next().unwrap_or("").trim();
        return Err(fail(format!("exited with {}: {first}", output.status)));
    }
    let text = String::from_utf8(output.stdout)
        .map_err(|_| fail("printed something that is not UTF-8".to_string()))?;
    let secret = text.trim();
    if secret.is_empty() {
        return Err(fail("printed nothing".to_string()));
    }
    Ok(ApiKey::new(secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_command_key_is_its_trimmed_output_and_is_cached() {
        let dir = std::env::temp_dir().join(format!("coyote-keycmd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let counter = dir.join("runs");
        let command = format!("echo x >> {0}; echo '  tok-123  '", counter.display());
        let credential = Credential::new(None, Some(command));
        for _ in 0..3 {
            let key = credential.key("c").await.unwrap().unwrap();
            assert_eq!(key.expose_secret(), "tok-123");
        }
        let runs = std::fs::read_to_string(&counter).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(runs.lines().count(), 1, "run once, then cached");
        assert_eq!(credential.known_secret().as_deref(), Some("tok-123"));
    }

    #[tokio::test]
    async fn a_failing_command_names_its_status_and_stderr() {
        let credential = Credential::new(None, Some("echo nope >&2; exit 3".into()));
        let error = credential.key("azure").await.unwrap_err();
        assert_eq!(
            error.to_string(),
            LlmError::config(
                "azure",
                "`api_key_cmd` (echo nope >&2; exit 3) exited with exit status: 3: nope; fix \
                 the command in config.yaml"
            )
            .to_string()
        );
        let empty = Credential::new(None, Some("true".into()));
        assert!(
            empty
                .key("c")
                .await
                .unwrap_err()
                .to_string()
                .contains("printed nothing")
        );
    }
}
