//! The one error type of coyote-llm. Callers match on variants, never on text; the wording
//! (what went wrong and what to do) lives in `Display`. No variant ever carries an API key:
//! response bodies are excerpted and scrubbed of the configured key before they land here.

use std::fmt;
use std::time::Duration;

/// Which wait ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// Opening the TCP/TLS connection.
    Connect,
    /// Waiting for the response status and headers.
    Response,
    /// Waiting for the next piece of the response body.
    Idle,
}

impl fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Connect => "connecting",
            TimeoutPhase::Response => "waiting for the response to start",
            TimeoutPhase::Idle => "waiting for more of the response",
        })
    }
}

/// Everything that can go wrong talking to a model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// HTTP 401/403.
    #[error("{provider}: the API key was rejected (HTTP {status}: {detail}); {advice}")]
    Auth {
        /// The configured client name.
        provider: String,
        /// The HTTP status.
        status: u16,
        /// The server's error message.
        detail: String,
        /// What to check, worded for the key's source.
        advice: String,
    },

    /// HTTP 429 after the bounded retries, or with a wait longer than we are willing to sleep.
    #[error(
        "{provider}: rate limited (HTTP 429) after {attempts} attempt(s): {detail}; {}",
        rate_limit_advice(.retry_after)
    )]
    RateLimited {
        /// The configured client name.
        provider: String,
        /// The wait the server asked for, if it named one.
        retry_after: Option<Duration>,
        /// Requests made, the first included.
        attempts: u32,
        /// The server's error message.
        detail: String,
    },

    /// The conversation no longer fits the model's context window.
    #[error(
        "{provider}: the conversation is too long for the model's context window ({detail}); \
         start a new conversation (.clear), shorten the input, or choose a model with a larger \
         context"
    )]
    ContextLength {
        /// The configured client name.
        provider: String,
        /// The server's error message.
        detail: String,
    },

    /// HTTP 5xx (after the bounded retries).
    #[error(
        "{provider}: server error (HTTP {status}): {detail}; the service may be overloaded or \
         down, try again later"
    )]
    Server {
        /// The configured client name.
        provider: String,
        /// The HTTP status.
        status: u16,
        /// The server's error message.
        detail: String,
    },

    /// The server could not turn the model's output into text or a call of a declared
    /// function (llama.cpp's server answers HTTP 500 "The model produced output that does not
    /// match the expected … format"): typically a small model naming a function that was not
    /// declared. Not retried as is: the same request gives the same output.
    #[error(
        "{provider}: the server could not parse the model's answer as text or as a call of a \
         declared function ({detail}); small models do this when they misname a function — \
         try again, rephrase the request, or use a larger model"
    )]
    UnparsedOutput {
        /// The configured client name.
        provider: String,
        /// The server's error message.
        detail: String,
    },

    /// The server could not be reached or the connection failed before a response started.
    #[error(
        "{provider}: could not reach {endpoint}: {detail}; check `api_base` and that the server is \
         running"
    )]
    Network {
        /// The configured client name.
        provider: String,
        /// The URL that could not be reached.
        endpoint: String,
        /// The connection error.
        detail: String,
    },

    /// A bound on a network wait ran out.
    #[error(
        "{provider}: timed out after {}s while {phase}; the server may be overloaded or the model \
         still loading, try again or raise the client's timeouts",
        .after.as_secs()
    )]
    Timeout {
        /// The configured client name.
        provider: String,
        /// Which wait.
        phase: TimeoutPhase,
        /// How long was waited.
        after: Duration,
    },

    /// The response broke the wire protocol: bad SSE or JSON, or the stream was cut mid-answer.
    #[error(
        "{provider}: unexpected response ({detail}); the connection may have dropped or the server \
         is not {provider}-compatible, try again or check `type` and `api_base`"
    )]
    Protocol {
        /// The configured client name.
        provider: String,
        /// What was wrong with the response.
        detail: String,
    },

    /// HTTP 400/404/422…: the server refused the request itself.
    #[error(
        "{provider}: the request was rejected (HTTP {status}): {detail}; check the model name and \
         its options"
    )]
    InvalidRequest {
        /// The configured client name.
        provider: String,
        /// The HTTP status.
        status: u16,
        /// The server's error message.
        detail: String,
    },

    /// The client configuration cannot work (bad `api_base`, unusable header, TLS setup).
    #[error("{provider}: invalid client configuration: {detail}; fix the client in config.yaml")]
    Config {
        /// The configured client name.
        provider: String,
        /// What is wrong with the configuration.
        detail: String,
    },

    /// The caller built a conversation that no provider accepts (a bug in the caller).
    #[error("internal error: invalid conversation: {0}; this is a coyote bug, please report it")]
    InvalidConversation(#[from] crate::validate::ConversationError),
}

fn rate_limit_advice(retry_after: &Option<Duration>) -> String {
    match retry_after {
        Some(wait) if *wait >= crate::retry::MAX_RETRY_AFTER => format!(
            "the server asks to wait at least {}s before retrying",
            wait.as_secs()
        ),
        Some(wait) => format!(
            "the server asks to wait {}s before retrying",
            wait.as_secs()
        ),
        None => "wait a moment and retry, or check the account's quota".to_string(),
    }
}

impl LlmError {
    pub(crate) fn protocol(provider: &str, detail: impl Into<String>) -> Self {
        LlmError::Protocol {
            provider: provider.to_string(),
            detail: detail.into(),
        }
    }

    pub(crate) fn config(provider: &str, detail: impl Into<String>) -> Self {
        LlmError::Config {
            provider: provider.to_string(),
            detail: detail.into(),
        }
    }

    /// The wait the server asked for, when it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}
