//! An incremental Server-Sent Events decoder (the WHATWG event-stream grammar) that accepts the
//! body in arbitrary chunks: lines, CRLF pairs and multi-byte UTF-8 characters may be split
//! across network reads. Lines are bounded by [`MAX_SSE_LINE_BYTES`] so a misbehaving server
//! cannot grow memory without limit. Comments (`: keep-alive`, OpenRouter's
//! `: OPENROUTER PROCESSING`), `id:` and `retry:` are ignored.

/// Longest line accepted (a single streamed JSON chunk is far smaller).
pub const MAX_SSE_LINE_BYTES: usize = 8 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, when the server named the event (Anthropic does, OpenAI does not).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// What makes a byte stream not an event stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SseError {
    #[error("an event-stream line is not valid UTF-8")]
    InvalidUtf8,
    #[error("an event-stream line is longer than {MAX_SSE_LINE_BYTES} bytes")]
    LineTooLong,
}

#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    /// Bytes of the current, unterminated line.
    line: Vec<u8>,
    /// The previous chunk ended in `\r`; a leading `\n` of the next chunk belongs to it.
    skip_lf: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one chunk and appends every event it completes to `out`.
    pub fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if self.skip_lf {
            self.skip_lf = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        while let Some(end) = chunk.iter().position(|b| *b == b'\n' || *b == b'\r') {
            self.push_line_bytes(&chunk[..end])?;
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, out)?;
            if chunk[end] == b'\r' {
                match chunk.get(end + 1) {
                    Some(b'\n') => chunk = &chunk[end + 2..],
                    Some(_) => chunk = &chunk[end + 1..],
                    None => {
                        self.skip_lf = true;
                        chunk = &[];
                    }
                }
            } else {
                chunk = &chunk[end + 1..];
            }
        }
        self.push_line_bytes(chunk)
    }

    /// Call at end of body. Returns the event that was still being collected, if any: a server
    /// that omits the final blank line still gets its last event processed; a stream cut in the
    /// middle of a JSON payload then fails to parse upstream, which is the error we want.
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, out)?;
        }
        self.dispatch(out);
        Ok(())
    }

    fn push_line_bytes(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        if self.line.len() + bytes.len() > MAX_SSE_LINE_BYTES {
            return Err(SseError::LineTooLong);
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        let line = std::str::from_utf8(line).map_err(|_| SseError::InvalidUtf8)?;
        if line.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_string()),
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if self.has_data {
            self.has_data = false;
            out.push(SseEvent {
                event,
                data: std::mem::take(&mut self.data),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(body: &[u8], cuts: &[usize]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        let mut start = 0;
        for &cut in cuts.iter().chain(std::iter::once(&body.len())) {
            decoder.feed(&body[start..cut], &mut out).unwrap();
            start = cut;
        }
        decoder.finish(&mut out).unwrap();
        out
    }

    fn ev(event: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: event.map(str::to_string),
            data: data.to_string(),
        }
    }

    #[test]
    fn every_single_split_point_gives_the_same_events() {
        let body = "event: a\r\ndata: {\"t\":\"h\u{e9}llo \u{1f600}\"}\r\n\r\n: comment\n\
                    data: line1\ndata:line2\n\nid: 7\nretry: 10\ndata: [DONE]\r\r"
            .as_bytes();
        let expected = vec![
            ev(Some("a"), "{\"t\":\"h\u{e9}llo \u{1f600}\"}"),
            ev(None, "line1\nline2"),
            ev(None, "[DONE]"),
        ];
        assert_eq!(decode_in_pieces(body, &[]), expected);
        for cut in 0..=body.len() {
            assert_eq!(
                decode_in_pieces(body, &[cut]),
                expected,
                "split at byte {cut}"
            );
        }
        let every_byte: Vec<usize> = (1..body.len()).collect();
        assert_eq!(decode_in_pieces(body, &every_byte), expected);
    }

    #[test]
    fn unterminated_last_event_is_still_delivered() {
        assert_eq!(
            decode_in_pieces(b"data: x\n\ndata: tail", &[]),
            vec![ev(None, "x"), ev(None, "tail")]
        );
    }

    #[test]
    fn event_name_without_data_is_dropped() {
        assert_eq!(
            decode_in_pieces(b"event: ping\n\ndata: y\n\n", &[]),
            vec![ev(None, "y")]
        );
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        let mut decoder = SseDecoder::new();
        assert_eq!(
            decoder.feed(b"data: \xff\xfe\n", &mut Vec::new()),
            Err(SseError::InvalidUtf8)
        );
    }
}
