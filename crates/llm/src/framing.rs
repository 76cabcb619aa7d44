//! How a streamed body is cut into frames before a provider's parser reads them: Server-Sent
//! Events (OpenAI, Anthropic, Gemini), JSON lines (Ollama's `/api/chat`), or the binary AWS
//! event stream (Bedrock `converse-stream`). Each decoder takes the body in arbitrary chunks
//! and bounds what it buffers by [`MAX_SSE_LINE_BYTES`].

use crate::eventstream::EventStreamDecoder;
use crate::sse::{MAX_SSE_LINE_BYTES, SseDecoder, SseEvent};

/// One body's frame decoder.
#[derive(Debug)]
pub(crate) enum Framing {
    Sse(SseDecoder),
    Lines(LineDecoder),
    Aws(EventStreamDecoder),
}

impl Framing {
    pub fn sse() -> Self {
        Framing::Sse(SseDecoder::new())
    }

    pub fn lines() -> Self {
        Framing::Lines(LineDecoder::default())
    }

    pub fn aws() -> Self {
        Framing::Aws(EventStreamDecoder::default())
    }

    /// Feeds one chunk; appends every frame it completes.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), String> {
        match self {
            Framing::Sse(d) => d.feed(chunk, out).map_err(|e| e.to_string()),
            Framing::Lines(d) => d.feed(chunk, out),
            Framing::Aws(d) => d.feed(chunk, out),
        }
    }

    /// End of body: appends what the decoder still held, or fails on a cut frame.
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), String> {
        match self {
            Framing::Sse(d) => d.finish(out).map_err(|e| e.to_string()),
            Framing::Lines(d) => d.finish(out),
            Framing::Aws(d) => d.finish(),
        }
    }
}

/// JSON lines: each non-blank line is one frame (no event name).
#[derive(Debug, Default)]
pub(crate) struct LineDecoder {
    line: Vec<u8>,
}

impl LineDecoder {
    fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), String> {
        while let Some(end) = chunk.iter().position(|b| *b == b'\n') {
            self.push(&chunk[..end])?;
            self.emit(out)?;
            chunk = &chunk[end + 1..];
        }
        self.push(chunk)
    }

    fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), String> {
        self.emit(out)
    }

    fn push(&mut self, bytes: &[u8]) -> Result<(), String> {
        if self.line.len() + bytes.len() > MAX_SSE_LINE_BYTES {
            return Err(format!(
                "a streamed line is longer than {MAX_SSE_LINE_BYTES} bytes"
            ));
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn emit(&mut self, out: &mut Vec<SseEvent>) -> Result<(), String> {
        let line = std::mem::take(&mut self.line);
        let text = String::from_utf8(line).map_err(|_| "a streamed line is not valid UTF-8")?;
        let text = text.trim();
        if !text.is_empty() {
            out.push(SseEvent {
                event: None,
                data: text.to_string(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_split_anywhere_give_the_same_frames() {
        let body = "{\"a\":\"\u{e9}\"}\r\n\n{\"b\":2}\n{\"c\":3}";
        let bytes = body.as_bytes();
        for cut in 0..=bytes.len() {
            let mut decoder = Framing::lines();
            let mut out = Vec::new();
            decoder.feed(&bytes[..cut], &mut out).unwrap();
            decoder.feed(&bytes[cut..], &mut out).unwrap();
            decoder.finish(&mut out).unwrap();
            let data: Vec<&str> = out.iter().map(|e| e.data.as_str()).collect();
            assert_eq!(
                data,
                vec!["{\"a\":\"\u{e9}\"}", "{\"b\":2}", "{\"c\":3}"],
                "cut at {cut}"
            );
        }
    }
}
