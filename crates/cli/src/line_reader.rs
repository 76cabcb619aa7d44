//! Reading lines with a bound, for input coyote does not control (a batch's lines, a session
//! daemon client's messages): a line longer than the bound is skipped without being held
//! (only its length is counted), and a line that is not UTF-8 is reported, so one bad line
//! costs its own report and never the rest of the input — nor gigabytes of memory or minutes
//! of parsing that a signal cannot interrupt.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The longest batch line and session daemon request read (4 MiB); docs/mcp-cli.md names it.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// One line of input, or why it cannot be a command.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The line's text, without its line end.
    Text(String),
    /// Longer than the limit: how many bytes it had (the rest was skipped unread).
    TooLong { bytes: u64 },
    /// Not valid UTF-8.
    NotUtf8,
}

/// The next line of `input` (a final line may lack its `\n`); `None` at the end.
pub async fn next_line<R: AsyncBufRead + Unpin + ?Sized>(
    input: &mut R,
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut kept: Vec<u8> = Vec::new();
    let mut bytes: u64 = 0;
    let mut seen_any = false;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            break;
        }
        seen_any = true;
        let (piece, ended) = match chunk.iter().position(|b| *b == b'\n') {
            Some(at) => (&chunk[..at], true),
            None => (chunk, false),
        };
        bytes = bytes.saturating_add(piece.len() as u64);
        if kept.len().saturating_add(piece.len()) <= max {
            kept.extend_from_slice(piece);
        }
        let used = piece.len() + usize::from(ended);
        input.consume(used);
        if ended {
            break;
        }
        // A long line: give other tasks (the signal handler) a turn between chunks.
        tokio::task::yield_now().await;
    }
    if !seen_any {
        return Ok(None);
    }
    if bytes > max as u64 {
        return Ok(Some(Line::TooLong { bytes }));
    }
    if kept.last() == Some(&b'\r') {
        kept.pop();
    }
    Ok(Some(match String::from_utf8(kept) {
        Ok(text) => Line::Text(text),
        Err(_) => Line::NotUtf8,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = tokio::io::BufReader::with_capacity(3, input);
        let mut out = Vec::new();
        while let Some(line) = next_line(&mut reader, max).await.unwrap() {
            out.push(line);
        }
        out
    }

    #[tokio::test]
    async fn lines_over_the_limit_and_invalid_utf8_are_reported_and_reading_goes_on() {
        let input = b"servers\r\n0123456789abc\n\xff\xfe\ntools x\nlast";
        assert_eq!(
            all(input, 10).await,
            [
                Line::Text("servers".into()),
                Line::TooLong { bytes: 13 },
                Line::NotUtf8,
                Line::Text("tools x".into()),
                Line::Text("last".into()),
            ]
        );
        assert_eq!(all(b"", 10).await, []);
        assert_eq!(all(b"\n", 10).await, [Line::Text(String::new())]);
    }
}
