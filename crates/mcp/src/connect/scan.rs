//! Finding the JSON-RPC `"id"` of a message too large to parse: a tiny scanner over the head
//! of the line (top-level keys until the first value that does not fit), and a strict matcher
//! for a line that *ends* with `"id": <value>}` (the TypeScript SDK writes `id` last). Neither
//! ever allocates more than the id itself; a line they cannot read yields `None`, and the
//! transport then fails every request in flight instead.

use rmcp::model::{NumberOrString, RequestId};

/// What the head of an oversized line says about it.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct HeadScan {
    pub(crate) id: Option<RequestId>,
    /// A top-level `"method"` key was seen: a request or notification, not a response.
    pub(crate) has_method: bool,
}

/// Scans top-level keys of the JSON object at the start of `head`.
pub(crate) fn scan_head(head: &[u8]) -> HeadScan {
    let mut scan = HeadScan::default();
    let mut p = Cursor { s: head, i: 0 };
    p.ws();
    if p.s.get(p.i..p.i + 3) == Some(b"\xEF\xBB\xBF") {
        p.i += 3;
        p.ws();
    }
    if !p.eat(b'{') {
        return scan;
    }
    loop {
        p.ws();
        let Some(key) = p.string() else { return scan };
        p.ws();
        if !p.eat(b':') {
            return scan;
        }
        p.ws();
        match key {
            b"id" => match p.id_value() {
                Some(id) => scan.id = Some(id),
                None => return scan,
            },
            b"method" => {
                scan.has_method = true;
                if p.skip_value().is_none() {
                    return scan;
                }
            }
            _ => {
                if p.skip_value().is_none() {
                    return scan;
                }
            }
        }
        p.ws();
        if !p.eat(b',') {
            return scan;
        }
    }
}

/// Matches a line ending in `"id": <number|string>}` where the key is top-level (preceded by
/// `,` or `{`). Ids containing escapes are not recognised.
pub(crate) fn scan_tail_for_id(tail: &[u8]) -> Option<RequestId> {
    let mut end = trim_end(tail, tail.len());
    if end == 0 || tail[end - 1] != b'}' {
        return None;
    }
    end = trim_end(tail, end - 1);
    let (value, start) = if end > 0 && tail[end - 1] == b'"' {
        let open = tail[..end - 1].iter().rposition(|&b| b == b'"')?;
        let text = &tail[open + 1..end - 1];
        if text.contains(&b'\\') {
            return None;
        }
        (
            NumberOrString::String(std::str::from_utf8(text).ok()?.into()),
            open,
        )
    } else {
        let start = tail[..end]
            .iter()
            .rposition(|b| !(b.is_ascii_digit() || *b == b'-'))?
            + 1;
        let number: i64 = std::str::from_utf8(&tail[start..end]).ok()?.parse().ok()?;
        (NumberOrString::Number(number), start)
    };
    let mut i = trim_end(tail, start);
    if i == 0 || tail[i - 1] != b':' {
        return None;
    }
    i = trim_end(tail, i - 1);
    if i < 4 || &tail[i - 4..i] != b"\"id\"" {
        return None;
    }
    i = trim_end(tail, i - 4);
    (i > 0 && matches!(tail[i - 1], b',' | b'{')).then_some(value)
}

fn trim_end(s: &[u8], mut end: usize) -> usize {
    while end > 0 && s[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// A string's raw bytes (escapes left as-is); `None` if it does not end in the head.
    fn string(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.i;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    let raw = &self.s[start..self.i];
                    self.i += 1;
                    return Some(raw);
                }
                _ => self.i += 1,
            }
        }
        None
    }

    fn id_value(&mut self) -> Option<RequestId> {
        if self.s.get(self.i) == Some(&b'"') {
            let start = self.i;
            self.string()?;
            let text: String = serde_json::from_slice(&self.s[start..self.i]).ok()?;
            return Some(NumberOrString::String(text.into()));
        }
        let start = self.i;
        while self.i < self.s.len() && (self.s[self.i].is_ascii_digit() || self.s[self.i] == b'-') {
            self.i += 1;
        }
        // A number running into the end of the head may be cut short; a fraction or an
        // exponent is not an integer id (its digits before `.` are not the id).
        if self.i == self.s.len() || matches!(self.s[self.i], b'.' | b'e' | b'E') {
            return None;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .parse()
            .ok()
            .map(NumberOrString::Number)
    }

    /// Skips one JSON value; `None` if it does not end inside the head.
    fn skip_value(&mut self) -> Option<()> {
        match self.s.get(self.i)? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let mut depth = 0usize;
                while self.i < self.s.len() {
                    match self.s[self.i] {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
                None
            }
            _ => {
                while self.i < self.s.len() && !matches!(self.s[self.i], b',' | b'}' | b']') {
                    self.i += 1;
                }
                (self.i < self.s.len()).then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(n: i64) -> Option<RequestId> {
        Some(NumberOrString::Number(n))
    }

    #[test]
    fn head_finds_no_id_in_a_fraction_or_an_exponent() {
        // Found by the line_transport fuzz target: `1111.1…` was read as the id 1111.
        for head in [
            &br#"{"jsonrpc":"2.0","id":1111.1111118}"#[..],
            br#"{"jsonrpc":"2.0","id":12e3,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":7E1,"result":{}}"#,
        ] {
            assert_eq!(
                scan_head(head).id,
                None,
                "{}",
                String::from_utf8_lossy(head)
            );
        }
    }

    #[test]
    fn head_finds_leading_id_and_stops_at_the_big_value() {
        let head = br#"{"jsonrpc":"2.0","id":42,"result":{"contents":[{"blob":"AAAA"#;
        assert_eq!(
            scan_head(head),
            HeadScan {
                id: num(42),
                has_method: false
            }
        );
    }

    #[test]
    fn head_reads_string_ids_with_escapes() {
        let head = br#" {"id":"a\"b","result":{"#;
        let expected = Some(NumberOrString::String("a\"b".into()));
        assert_eq!(
            scan_head(head),
            HeadScan {
                id: expected,
                has_method: false
            }
        );
    }

    #[test]
    fn head_skips_nested_values_and_sees_method() {
        let head = br#"{"params":{"x":[1,{"id":9}],"s":"}"},"method":"m","id":3,"more":"xx"#;
        assert_eq!(
            scan_head(head),
            HeadScan {
                id: num(3),
                has_method: true
            }
        );
    }

    #[test]
    fn head_without_id_before_the_cut_yields_none() {
        let head = br#"{"result":{"content":[{"type":"text","text":"aaaa"#;
        assert_eq!(scan_head(head), HeadScan::default());
        // A number cut by the end of the head is not trusted.
        assert_eq!(scan_head(br#"{"id":12"#), HeadScan::default());
        assert_eq!(scan_head(b"garbage"), HeadScan::default());
    }

    #[test]
    fn tail_matches_a_trailing_top_level_id() {
        assert_eq!(
            scan_tail_for_id(br#"AAAA"}]},"jsonrpc":"2.0","id":7}"#),
            num(7)
        );
        assert_eq!(scan_tail_for_id(b"AAA\"}] } , \"id\" : -3 }\r\n"), num(-3));
        assert_eq!(
            scan_tail_for_id(br#"xx"},"id":"req-1"}"#),
            Some(NumberOrString::String("req-1".into()))
        );
    }

    #[test]
    fn tail_rejects_nested_or_absent_ids() {
        assert_eq!(scan_tail_for_id(br#"AAAA"}]}}"#), None);
        assert_eq!(scan_tail_for_id(br#"{"x":{"id":5}}"#), None);
        assert_eq!(scan_tail_for_id(br#"AAAA"id":5}"#), None);
        assert_eq!(scan_tail_for_id(b""), None);
    }
}
