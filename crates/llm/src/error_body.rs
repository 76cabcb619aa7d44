//! What a server's error says: the useful parts of an error body ([`ErrorInfo`]: message and
//! codes, whatever shape the provider uses) and the typed error an error reported inside a 200
//! response maps to ([`in_band_error`]). Provider wordings that are the only signal of a
//! condition are matched here, once; `http` maps status codes with the same [`ErrorInfo`].

use reqwest::StatusCode;

use crate::error::LlmError;

/// Characters of a server's error message kept in our error.
const DETAIL_CHARS: usize = 400;

/// The useful parts of an error body. Providers disagree on the shape:
/// `{"error":{"message","type","code"}}` (OpenAI, Anthropic, llama.cpp, vLLM, Groq),
/// `{"error":"text"}` (Ollama), `{"message"|"detail": …}` (others).
#[derive(Debug, Default)]
pub(crate) struct ErrorInfo {
    pub message: Option<String>,
    /// `error.code`, `error.type` and `error.status` (Gemini), as text.
    pub codes: Vec<String>,
    raw: String,
}

impl ErrorInfo {
    pub fn parse(body: &[u8]) -> Self {
        let raw = String::from_utf8_lossy(body).into_owned();
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
            return ErrorInfo {
                raw,
                ..Self::default()
            };
        };
        Self::from_value(&value, raw)
    }

    /// From an already parsed error object (also used for errors inside a stream).
    pub fn from_value(value: &serde_json::Value, raw: String) -> Self {
        let error = value.get("error").unwrap_or(value);
        let text = |v: Option<&serde_json::Value>| match v {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let message = match error {
            serde_json::Value::String(s) => Some(s.clone()),
            _ => text(error.get("message")).or_else(|| text(error.get("detail"))),
        };
        let codes = ["code", "type", "status"]
            .iter()
            .filter_map(|k| text(error.get(*k)))
            .collect();
        ErrorInfo {
            message,
            codes,
            raw,
        }
    }

    pub fn has_code(&self, code: &str) -> bool {
        self.codes.iter().any(|c| c == code)
    }

    /// Context overflow, told by code where servers send one and by wording where they do not:
    /// providers give no other signal, so their documented wordings are matched here, once.
    pub fn is_context_length(&self) -> bool {
        const CODES: [&str; 3] = [
            "context_length_exceeded",
            "exceed_context_size_error",
            "string_above_max_length",
        ];
        const WORDINGS: [&str; 9] = [
            "input is too long for requested model",
            "exceeds the maximum number of tokens allowed",
            "maximum context length",
            "context length exceeded",
            "context_length_exceeded",
            "prompt is too long",
            "exceeds the available context size",
            "exceed context limit",
            "context window",
        ];
        if CODES.iter().any(|c| self.has_code(c)) {
            return true;
        }
        let text = self.message.as_deref().unwrap_or(&self.raw).to_lowercase();
        WORDINGS.iter().any(|w| text.contains(w))
    }

    /// The model's output matched neither text nor a declared call, told by llama.cpp's
    /// wording (`common/chat.cpp`; it sends no code of its own for it).
    pub fn is_unparsed_output(&self) -> bool {
        const WORDINGS: [&str; 1] = ["the model produced output that does not match the expected"];
        let text = self.message.as_deref().unwrap_or(&self.raw).to_lowercase();
        WORDINGS.iter().any(|w| text.contains(w))
    }

    /// A short, single-line description for an error message.
    pub fn excerpt(&self, status: StatusCode) -> String {
        let text = match &self.message {
            Some(message) => message.clone(),
            None if self.raw.trim().is_empty() => status
                .canonical_reason()
                .unwrap_or("no details")
                .to_string(),
            None => self.raw.clone(),
        };
        let single_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut out: String = single_line.chars().take(DETAIL_CHARS).collect();
        if single_line.chars().count() > DETAIL_CHARS {
            out.push('…');
        }
        out
    }
}

/// An error the server reported inside a 200 response (an SSE `error` event or an `error`
/// object in a chunk), mapped to the same variants a status code would give.
pub(crate) fn in_band_error(provider: &str, info: &ErrorInfo) -> LlmError {
    let provider = provider.to_string();
    let detail = info.excerpt(StatusCode::OK);
    let numeric = info.codes.iter().find_map(|c| c.parse::<u16>().ok());
    let has = |codes: &[&str]| codes.iter().any(|c| info.has_code(c));
    if info.is_context_length() {
        LlmError::ContextLength { provider, detail }
    } else if info.is_unparsed_output() {
        LlmError::UnparsedOutput { provider, detail }
    } else if has(&[
        "authentication_error",
        "permission_error",
        "invalid_api_key",
    ]) || matches!(numeric, Some(401 | 403))
    {
        LlmError::Auth {
            provider,
            status: numeric.unwrap_or(401),
            detail,
            advice: "check the API key".to_string(),
        }
    } else if has(&["rate_limit_error", "rate_limit_exceeded"]) || numeric == Some(429) {
        LlmError::RateLimited {
            provider,
            retry_after: None,
            attempts: 1,
            detail,
        }
    } else if has(&["overloaded_error"]) {
        LlmError::Server {
            provider,
            status: 529,
            detail,
        }
    } else if has(&["api_error", "server_error"]) || numeric.is_some_and(|n| n >= 500) {
        LlmError::Server {
            provider,
            status: numeric.filter(|n| *n >= 500).unwrap_or(500),
            detail,
        }
    } else if has(&["invalid_request_error"]) || numeric.is_some_and(|n| (400..500).contains(&n)) {
        LlmError::InvalidRequest {
            provider,
            status: numeric.unwrap_or(400),
            detail,
        }
    } else {
        LlmError::Protocol {
            provider,
            detail: format!("the server reported an error mid-answer: {detail}"),
        }
    }
}
