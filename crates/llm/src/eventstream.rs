//! The AWS event-stream framing (`application/vnd.amazon.eventstream`) Bedrock's
//! `converse-stream` answers with: binary messages of `total length | headers length | prelude
//! CRC32 | headers | payload | message CRC32`, big-endian. Each message becomes one frame named
//! by its `:event-type` header (or `exception:<:exception-type>` for an exception message),
//! carrying its JSON payload.
//!
//! Invariants: both CRCs are checked; a message may not be larger than [`MAX_SSE_LINE_BYTES`];
//! a body that ends inside a message is an error.
//! Format: <https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html>
//! ("Event stream encoding").

use crate::sse::{MAX_SSE_LINE_BYTES, SseEvent};

/// Bytes before the headers: total length, headers length, prelude CRC.
const PRELUDE: usize = 12;
/// The trailing message CRC.
const TRAILER: usize = 4;

/// CRC-32 (IEEE 802.3, reflected, as zlib computes it).
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

fn be32(bytes: &[u8]) -> u32 {
    u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// Buffers the body until whole messages are there.
#[derive(Debug, Default)]
pub(crate) struct EventStreamDecoder {
    buffer: Vec<u8>,
}

impl EventStreamDecoder {
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), String> {
        self.buffer.extend_from_slice(chunk);
        while self.buffer.len() >= PRELUDE {
            let total = be32(&self.buffer[0..4]) as usize;
            if !(PRELUDE + TRAILER..=MAX_SSE_LINE_BYTES).contains(&total) {
                return Err(format!("an event-stream message claims {total} bytes"));
            }
            if be32(&self.buffer[8..12]) != crc32(&self.buffer[0..8]) {
                return Err("an event-stream message has a bad prelude checksum".to_string());
            }
            if self.buffer.len() < total {
                break;
            }
            let message: Vec<u8> = self.buffer.drain(..total).collect();
            out.push(decode_message(&message)?);
        }
        Ok(())
    }

    pub fn finish(&mut self) -> Result<(), String> {
        if self.buffer.is_empty() {
            Ok(())
        } else {
            Err("the event stream ended inside a message".to_string())
        }
    }
}

fn decode_message(message: &[u8]) -> Result<SseEvent, String> {
    let total = message.len();
    let headers_len = be32(&message[4..8]) as usize;
    if be32(&message[total - TRAILER..]) != crc32(&message[..total - TRAILER]) {
        return Err("an event-stream message has a bad checksum".to_string());
    }
    if PRELUDE + headers_len > total - TRAILER {
        return Err("an event-stream message's headers overrun it".to_string());
    }
    let headers = parse_headers(&message[PRELUDE..PRELUDE + headers_len])?;
    let payload = &message[PRELUDE + headers_len..total - TRAILER];
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let event = match header(":message-type") {
        Some("exception") | Some("error") => format!(
            "exception:{}",
            header(":exception-type")
                .or(header(":error-code"))
                .unwrap_or("unknown")
        ),
        _ => header(":event-type").unwrap_or("").to_string(),
    };
    let data = String::from_utf8(payload.to_vec())
        .map_err(|_| "an event-stream payload is not UTF-8".to_string())?;
    Ok(SseEvent {
        event: Some(event),
        data,
    })
}

/// The string-valued headers (the only kind Bedrock sends); other kinds are skipped.
fn parse_headers(mut bytes: &[u8]) -> Result<Vec<(String, String)>, String> {
    let cut = || "an event-stream header is cut off".to_string();
    let mut headers = Vec::new();
    while !bytes.is_empty() {
        let name_len = bytes[0] as usize;
        let name = bytes.get(1..1 + name_len).ok_or_else(cut)?;
        let name = String::from_utf8_lossy(name).into_owned();
        let kind = *bytes.get(1 + name_len).ok_or_else(cut)?;
        let rest = &bytes[2 + name_len..];
        let (value, used) = match kind {
            0 | 1 => (None, 0),
            2 => (None, 1),
            3 => (None, 2),
            4 => (None, 4),
            5 | 8 => (None, 8),
            9 => (None, 16),
            6 | 7 => {
                let len = rest.get(0..2).ok_or_else(cut)?;
                let len = u16::from_be_bytes([len[0], len[1]]) as usize;
                let value = rest.get(2..2 + len).ok_or_else(cut)?;
                let text = (kind == 7).then(|| String::from_utf8_lossy(value).into_owned());
                (text, 2 + len)
            }
            other => return Err(format!("an event-stream header has unknown type {other}")),
        };
        if rest.len() < used {
            return Err(cut());
        }
        if let Some(value) = value {
            headers.push((name, value));
        }
        bytes = &rest[used..];
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One message with string headers, built independently of the decoder.
    fn message(headers: &[(&str, &str)], payload: &str) -> Vec<u8> {
        let mut head = Vec::new();
        for (name, value) in headers {
            head.push(name.len() as u8);
            head.extend_from_slice(name.as_bytes());
            head.push(7);
            head.extend_from_slice(&(value.len() as u16).to_be_bytes());
            head.extend_from_slice(value.as_bytes());
        }
        let total = PRELUDE + head.len() + payload.len() + TRAILER;
        let mut out = Vec::new();
        out.extend_from_slice(&(total as u32).to_be_bytes());
        out.extend_from_slice(&(head.len() as u32).to_be_bytes());
        let prelude_crc = crc32(&out);
        out.extend_from_slice(&prelude_crc.to_be_bytes());
        out.extend_from_slice(&head);
        out.extend_from_slice(payload.as_bytes());
        let crc = crc32(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn messages_split_anywhere_decode_the_same() {
        let mut body = message(
            &[
                (":event-type", "contentBlockDelta"),
                (":message-type", "event"),
            ],
            "{\"delta\":{\"text\":\"hi\"}}",
        );
        body.extend(message(
            &[
                (":exception-type", "throttlingException"),
                (":message-type", "exception"),
            ],
            "{\"message\":\"slow down\"}",
        ));
        let expected = vec![
            SseEvent {
                event: Some("contentBlockDelta".into()),
                data: "{\"delta\":{\"text\":\"hi\"}}".into(),
            },
            SseEvent {
                event: Some("exception:throttlingException".into()),
                data: "{\"message\":\"slow down\"}".into(),
            },
        ];
        for cut in 0..=body.len() {
            let mut decoder = EventStreamDecoder::default();
            let mut out = Vec::new();
            decoder.feed(&body[..cut], &mut out).unwrap();
            decoder.feed(&body[cut..], &mut out).unwrap();
            decoder.finish().unwrap();
            assert_eq!(out, expected, "cut at {cut}");
        }
    }

    #[test]
    fn a_corrupted_message_or_a_cut_body_is_an_error() {
        let mut body = message(&[(":event-type", "messageStop")], "{}");
        let mut decoder = EventStreamDecoder::default();
        decoder
            .feed(&body[..body.len() - 1], &mut Vec::new())
            .unwrap();
        assert!(decoder.finish().is_err());
        let last = body.len() - 5;
        body[last] ^= 1;
        assert!(
            EventStreamDecoder::default()
                .feed(&body, &mut Vec::new())
                .is_err()
        );
    }
}
