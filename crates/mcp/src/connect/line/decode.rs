//! Lines the JSON parser refused, and what each costs the caller. A bad
//! line never leaves a request pending:
//!
//! - **Not UTF-8.** The reply fails its own request at once with an error that says so (the
//!   id is read from a lossy copy of the line); a server request gets an error reply; other
//!   requests in flight are untouched.
//! - **Lone UTF-16 surrogates** in `\uD800`-style escapes (JavaScript strings may hold them,
//!   and the MCP TypeScript SDK accepts them) become `\uFFFD` and the line is parsed again, with
//!   one warning per message in the log.
//! - **Well-formed JSON that is not a message we can type**: a request is answered with an
//!   error for its id, a response fails its own request; a line with no id is logged and
//!   skipped (servers must log to stderr, not stdout).
//!
//! A synthesized failure carries [`UNDECODABLE_DATA_KEY`] in its `data`, so the host reports
//! it as the server's bug, not as an error the server sent.

use rmcp::model::{ErrorData, JsonRpcMessage, RequestId, ServerJsonRpcMessage};
use serde::Deserialize;
use tokio::io::AsyncWrite;

use super::Core;

/// Key of the `data` object of an error synthesized for a reply that could not be decoded;
/// its value is the problem, in words.
pub const UNDECODABLE_DATA_KEY: &str = "coyoteUndecodable";

/// How much of a skipped line the log shows.
const SHOWN_BYTES: usize = 200;

/// The top-level fields that decide who waits for a line.
#[derive(Deserialize)]
struct Envelope {
    id: Option<RequestId>,
    method: Option<serde::de::IgnoredAny>,
}

impl<W> Core<W>
where
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// `line` did not parse as a server message; see the module docs for what happens.
    pub(super) fn handle_bad_line(
        &self,
        line: &[u8],
        error: serde_json::Error,
    ) -> Option<ServerJsonRpcMessage> {
        if error.classify() == serde_json::error::Category::Syntax {
            if let Err(utf8) = std::str::from_utf8(line) {
                return self.not_utf8(line, utf8);
            }
            if let Some((repaired, count)) = repair_lone_surrogates(line) {
                return match serde_json::from_slice::<ServerJsonRpcMessage>(&repaired) {
                    Ok(message) => {
                        tracing::warn!(
                            server = %self.server,
                            count,
                            "replaced {count} lone UTF-16 surrogate escape(s) in a message \
                             with U+FFFD"
                        );
                        self.accepted(message)
                    }
                    Err(error) => self.untyped(&repaired, &error),
                };
            }
        }
        self.untyped(line, &error)
    }

    fn not_utf8(&self, line: &[u8], utf8: std::str::Utf8Error) -> Option<ServerJsonRpcMessage> {
        let at = utf8.valid_up_to();
        let problem = format!(
            "the reply is not valid UTF-8 (byte 0x{:02x} at offset {at} of {})",
            line[at],
            line.len()
        );
        let lossy = String::from_utf8_lossy(line);
        match serde_json::from_str::<Envelope>(&lossy) {
            Ok(Envelope {
                id: Some(id),
                method: Some(_),
            }) => {
                tracing::warn!(server = %self.server, %problem, "could not decode a server request");
                self.reply_error(id, ErrorData::invalid_request(problem, None));
                None
            }
            Ok(Envelope {
                id: Some(id),
                method: None,
            }) => {
                tracing::warn!(server = %self.server, %problem, "could not decode a response");
                Some(self.fail_request(id, problem))
            }
            _ => {
                tracing::warn!(
                    server = %self.server,
                    %problem,
                    line = %shown(line),
                    "ignoring an undecodable line on the server's stdout with no request id"
                );
                None
            }
        }
    }

    fn untyped(&self, line: &[u8], error: &serde_json::Error) -> Option<ServerJsonRpcMessage> {
        let envelope = match error.classify() {
            serde_json::error::Category::Data => serde_json::from_slice::<Envelope>(line).ok(),
            _ => None,
        };
        match envelope {
            Some(Envelope {
                id: Some(id),
                method: Some(_),
            }) => {
                tracing::warn!(server = %self.server, %error, "could not parse a server request");
                let message = format!("client could not parse the request: {error}");
                self.reply_error(id, ErrorData::invalid_params(message, None));
                None
            }
            Some(Envelope {
                id: Some(id),
                method: None,
            }) => {
                tracing::warn!(server = %self.server, %error, "could not parse a response");
                Some(self.fail_request(id, format!("malformed response: {error}")))
            }
            _ => {
                tracing::warn!(
                    server = %self.server,
                    %error,
                    line = %shown(line),
                    "ignoring a non-JSON-RPC line on the server's stdout (servers must log to stderr)"
                );
                None
            }
        }
    }

    /// The error delivered to the caller waiting for `id`.
    fn fail_request(&self, id: RequestId, problem: String) -> ServerJsonRpcMessage {
        self.in_flight.lock().remove(&id);
        let data = serde_json::json!({ UNDECODABLE_DATA_KEY: problem });
        JsonRpcMessage::error(ErrorData::internal_error(problem, Some(data)), Some(id))
    }
}

fn shown(line: &[u8]) -> String {
    String::from_utf8_lossy(&line[..line.len().min(SHOWN_BYTES)]).into_owned()
}

/// The problem of an error synthesized by [`Core::handle_bad_line`] for an undecodable reply.
pub(crate) fn undecodable_details(error: &ErrorData) -> Option<&str> {
    error.data.as_ref()?.get(UNDECODABLE_DATA_KEY)?.as_str()
}

/// `line` with every lone surrogate escape (`\uD800`–`\uDFFF` not in a high–low pair) replaced
/// by `\uFFFD`, and how many were replaced; `None` when there is none.
pub(crate) fn repair_lone_surrogates(line: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut repaired: Option<Vec<u8>> = None;
    let (mut count, mut copied, mut i) = (0usize, 0usize, 0usize);
    while let Some(found) = line.get(i..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        let at = i + found;
        if line.get(at + 1) != Some(&b'u') {
            // Any other escape, `\\` included, is two bytes.
            i = at + 2;
            continue;
        }
        let Some(unit) = hex4(line, at + 2) else {
            i = at + 2;
            continue;
        };
        let high = (0xD800..0xDC00).contains(&unit);
        let low = (0xDC00..0xE000).contains(&unit);
        let paired = high
            && line.get(at + 6..at + 8) == Some(b"\\u")
            && hex4(line, at + 8).is_some_and(|next| (0xDC00..0xE000).contains(&next));
        if paired {
            i = at + 12;
            continue;
        }
        if high || low {
            let out = repaired.get_or_insert_with(|| Vec::with_capacity(line.len()));
            out.extend_from_slice(&line[copied..at]);
            out.extend_from_slice(b"\\ufffd");
            copied = at + 6;
            count += 1;
        }
        i = at + 6;
    }
    let mut out = repaired?;
    out.extend_from_slice(&line[copied..]);
    Some((out, count))
}

/// Four hex digits at `at`, as a number.
fn hex4(line: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(line.get(at..at + 4)?).ok()?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repair(text: &str) -> Option<(String, usize)> {
        repair_lone_surrogates(text.as_bytes())
            .map(|(bytes, n)| (String::from_utf8(bytes).expect("utf-8"), n))
    }

    #[test]
    fn lone_halves_are_replaced_and_pairs_and_other_escapes_kept() {
        assert_eq!(
            repair(r#""a\ud800b\uDC00c\ud83d\ude00d\\ud800e\ud800""#),
            Some((
                r#""a\ufffdb\ufffdc\ud83d\ude00d\\ud800e\ufffd""#.to_owned(),
                3
            ))
        );
        assert_eq!(repair(r#""\ud83d\ude00 \n \u0041 \\""#), None);
        // A high half followed by another high half: both lone.
        assert_eq!(
            repair(r#""\ud800\ud801""#),
            Some((r#""\ufffd\ufffd""#.to_owned(), 2))
        );
        // Cut escapes at the end of the input never panic.
        for cut in [r"\", r"\u", r"\ud8", r"\ud800\", r"\ud800\u", r"\ud800\udc"] {
            let _ = repair(cut);
        }
    }
}
