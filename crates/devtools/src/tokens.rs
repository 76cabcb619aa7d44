//! Token counts with real tokenizers: OpenAI's `o200k_base` and `cl100k_base` (tables embedded
//! in `tiktoken-rs`), and optionally a llama.cpp server's own (`POST /tokenize` on a loopback
//! URL). Declarations are counted the way coyote estimates them: each declaration's compact
//! JSON (`{"name","description","parameters"}`), summed.

use std::fmt;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;

/// Why counting failed.
#[derive(Debug)]
pub enum TokenError {
    /// A tiktoken table did not load.
    Tokenizer(String),
    /// The llama.cpp server could not be asked or gave no token list.
    Local {
        /// The server asked.
        url: String,
        /// What went wrong.
        reason: String,
    },
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::Tokenizer(why) => write!(f, "cannot load a tiktoken table: {why}"),
            TokenError::Local { url, reason } => {
                write!(
                    f,
                    "the llama.cpp server at {url} did not tokenize: {reason}"
                )
            }
        }
    }
}

impl std::error::Error for TokenError {}

/// The counts of one text (or set of declarations).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// UTF-8 bytes.
    pub bytes: usize,
    /// coyote's own estimate: bytes / 4, rounded up (`coyote_mcp::meta::estimate_tokens`).
    pub estimated: usize,
    /// `o200k_base` tokens.
    pub o200k: usize,
    /// `cl100k_base` tokens.
    pub cl100k: usize,
    /// The llama.cpp server's tokens, when one was given.
    pub local: Option<usize>,
}

impl Counts {
    /// The counts as a JSON object (`local` is null without a server).
    pub fn to_json(self) -> Value {
        json!({
            "bytes": self.bytes,
            "estimated": self.estimated,
            "o200k": self.o200k,
            "cl100k": self.cl100k,
            "local": self.local,
        })
    }

    fn add(self, other: Counts) -> Counts {
        Counts {
            bytes: self.bytes + other.bytes,
            estimated: 0,
            o200k: self.o200k + other.o200k,
            cl100k: self.cl100k + other.cl100k,
            local: match (self.local, other.local) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            },
        }
    }
}

/// The tokenizers to count with.
pub struct Tokenizers {
    o200k: CoreBPE,
    cl100k: CoreBPE,
    local: Option<String>,
}

impl fmt::Debug for Tokenizers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokenizers")
            .field("local", &self.local)
            .finish_non_exhaustive()
    }
}

impl Tokenizers {
    /// o200k and cl100k, plus the llama.cpp server at `local` (`http://127.0.0.1:PORT`).
    pub fn new(local: Option<String>) -> Result<Tokenizers, TokenError> {
        Ok(Tokenizers {
            o200k: tiktoken_rs::o200k_base().map_err(|e| TokenError::Tokenizer(e.to_string()))?,
            cl100k: tiktoken_rs::cl100k_base().map_err(|e| TokenError::Tokenizer(e.to_string()))?,
            local: local.map(|u| u.trim_end_matches('/').to_owned()),
        })
    }

    /// The counts of `text` (no special tokens).
    pub fn count_text(&self, text: &str) -> Result<Counts, TokenError> {
        let local = match &self.local {
            Some(url) => Some(local_tokens(url, text)?),
            None => None,
        };
        Ok(Counts {
            bytes: text.len(),
            estimated: text.len().div_ceil(4),
            o200k: self.o200k.encode_ordinary(text).len(),
            cl100k: self.cl100k.encode_ordinary(text).len(),
            local,
        })
    }

    /// The counts of `declarations`: each one's compact JSON, summed; `estimated` is coyote's
    /// estimate of the whole set.
    pub fn count_declarations(&self, declarations: &[Value]) -> Result<Counts, TokenError> {
        let mut total = Counts::default();
        for declaration in declarations {
            total = total.add(self.count_text(&declaration.to_string())?);
        }
        total.estimated = total.bytes.div_ceil(4);
        Ok(total)
    }
}

/// `POST {url}/tokenize` with the text; the length of the `tokens` list it answers.
fn local_tokens(url: &str, text: &str) -> Result<usize, TokenError> {
    let fail = |reason: String| TokenError::Local {
        url: url.to_owned(),
        reason,
    };
    let authority = url
        .strip_prefix("http://")
        .ok_or_else(|| fail("only http:// URLs (a loopback llama-server)".to_owned()))?;
    let authority = authority.split('/').next().unwrap_or(authority);
    let body = json!({ "content": text, "add_special": false }).to_string();
    let mut stream = TcpStream::connect(authority).map_err(|e| fail(e.to_string()))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|e| fail(e.to_string()))?;
    let request = format!(
        "POST /tokenize HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| fail(e.to_string()))?;
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .map_err(|e| fail(e.to_string()))?;
    let response = String::from_utf8_lossy(&response);
    let (head, body) = response
        .split_once("\r\n\r\n")
        .ok_or_else(|| fail("no HTTP response".to_owned()))?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(fail(head.lines().next().unwrap_or_default().to_owned()));
    }
    let value: Value = serde_json::from_str(body).map_err(|e| fail(e.to_string()))?;
    value["tokens"]
        .as_array()
        .map(Vec::len)
        .ok_or_else(|| fail(format!("no `tokens` list in {body}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_counts_of_the_embedded_tables() {
        let t = Tokenizers::new(None).unwrap();
        let c = t.count_text("hello world").unwrap();
        assert_eq!(
            (c.bytes, c.estimated, c.o200k, c.cl100k, c.local),
            (11, 3, 2, 2, None)
        );
    }

    #[test]
    fn declarations_are_summed_one_compact_json_each() {
        let t = Tokenizers::new(None).unwrap();
        let d =
            json!({"name": "f", "description": "Does things.", "parameters": {"type": "object"}});
        let one = t.count_text(&d.to_string()).unwrap();
        let two = t.count_declarations(&[d.clone(), d]).unwrap();
        assert_eq!(two.o200k, 2 * one.o200k);
        assert_eq!(two.bytes, 2 * one.bytes);
        assert_eq!(two.estimated, (2 * one.bytes).div_ceil(4));
    }
}
