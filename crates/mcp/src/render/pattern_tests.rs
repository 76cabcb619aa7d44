//! The line filter against ripgrep (the oracle) on edge cases, and the streaming reader against
//! the in-memory filter with block boundaries everywhere.

use std::io::{self, Read};
use std::path::Path;

use super::{FilterReadError, LineFilter, READ_BUFFER_BYTES};

/// Inputs where line bookkeeping goes wrong first.
fn edge_inputs() -> Vec<(&'static str, String)> {
    let mut log = String::new();
    for i in 1..=400u32 {
        let level = match i {
            _ if i % 37 == 0 || i % 37 == 3 => "ERROR",
            _ if i % 11 == 0 => "WARN",
            _ => "INFO",
        };
        log.push_str(&format!(
            "{i:04} {level} worker-{} took {}ms\n",
            i % 5,
            i * 7 % 300
        ));
    }
    vec![
        ("match on the first line", "ERROR\na\nb\nc\nd\n".into()),
        ("match on the last line", "a\nb\nc\nd\nERROR\n".into()),
        ("last line without newline", "a\nb\nc\nd\nERROR".into()),
        ("context runs into eof", "a\nb\nERROR\nc".into()),
        ("only newlines", "\n\n\n\n".into()),
        ("empty lines around", "\n\nERROR\n\n\n\n\nERROR\n\n".into()),
        // Groups: gap of 4 merges (2 after + 2 before), gap of 5 separates with `--`.
        (
            "adjacent groups merge",
            "ERROR\n1\n2\n3\n4\nERROR\n1\n2\n3\n4\n5\nERROR\n".into(),
        ),
        (
            "consecutive matches",
            "x\nERROR\nERROR\nERROR\nx\nx\nx\nx\nx\nx\nERROR\n".into(),
        ),
        (
            "crlf",
            "a\r\nb\r\nERROR\r\nc\r\n\r\nd\r\ne\r\nf\r\nERROR".into(),
        ),
        (
            "many matches per line",
            "ERROR ERROR ERROR\nno\nERRORERROR\nno\nno\nno\nno\nno\nERROR x ERROR\n".into(),
        ),
        (
            "multibyte",
            "é\n漢字 ERROR ü\n😀\nx\nx\nx\nx\n😀 ERROR é\n漢\n".into(),
        ),
        ("log", log),
    ]
}

const EDGE_PATTERNS: &[&str] = &[
    "ERROR",
    "^$",
    "^",
    "$",
    "R$",
    r"\r$",
    "(?i)error",
    r"ERROR\s",
    r"\bERROR\b",
    "é|😀|漢",
    "ERROR ERROR",
    r"\d+ms$",
    "x|ERROR",
    ".*",
    "zzz",
];

#[test]
#[expect(
    clippy::print_stderr,
    reason = "the skip note is for the person reading the test output"
)]
fn edge_cases_match_ripgrep() {
    let Some(rg) = rg_binary() else {
        eprintln!("note: `rg` not installed; skipping the ripgrep oracle test");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (name, input) in edge_inputs() {
        let path = dir.path().join("input.txt");
        std::fs::write(&path, &input).unwrap();
        for pattern in EDGE_PATTERNS {
            let expected = run_rg(rg, pattern, &path);
            let got = LineFilter::new(pattern).unwrap().filter(&input);
            assert_eq!(got, expected, "{name}: pattern {pattern:?} input {input:?}");
        }
    }
}

#[test]
fn context_at_start_end_and_merging_without_rg() {
    let filter = LineFilter::new("ERROR").unwrap();
    assert_eq!(
        filter.filter("ERROR\n1\n2\n3\n4\nERROR\n1\n2\n3\n4\n5\nERROR"),
        "1:ERROR\n2-1\n3-2\n4-3\n5-4\n6:ERROR\n7-1\n8-2\n--\n10-4\n11-5\n12:ERROR\n"
    );
    assert_eq!(filter.filter("a\nb\nc\nERROR\r\n"), "2-b\n3-c\n4:ERROR\r\n");
    assert_eq!(filter.filter("\n\nERROR"), "1-\n2-\n3:ERROR\n");
    assert_eq!(
        LineFilter::new("^$").unwrap().filter("a\n\nb\n"),
        "1-a\n2:\n3-b\n"
    );
}

/// Both entry points scan in blocks: every window and buffer size (so every block boundary)
/// gives the bytes of one whole-text scan.
#[test]
fn block_boundaries_never_change_the_output() {
    for (name, input) in edge_inputs() {
        for pattern in EDGE_PATTERNS {
            let filter = LineFilter::new(pattern).unwrap();
            let expected = filter.filter_windowed(&input, usize::MAX);
            for capacity in [1, 2, 3, 5, 8, 13, 64, 1000, READ_BUFFER_BYTES] {
                let got = filter.filter_windowed(&input, capacity);
                assert_eq!(got, expected, "{name}: {pattern:?} window {capacity}");
                let got = filter.filter_buffered(input.as_bytes(), capacity).unwrap();
                assert_eq!(got, expected, "{name}: {pattern:?} capacity {capacity}");
                // Short reads move the block boundaries again.
                let got = filter
                    .filter_buffered(Trickle(input.as_bytes(), 3), capacity)
                    .unwrap();
                assert_eq!(got, expected, "{name}: {pattern:?} trickle {capacity}");
            }
        }
    }
}

#[test]
fn reader_rejects_invalid_utf8_with_its_offset() {
    let filter = LineFilter::new("a").unwrap();
    let mut input = b"a\nbb\n".repeat(10);
    input.extend_from_slice(b"ok \xff no\n");
    for capacity in [4, 64, READ_BUFFER_BYTES] {
        let err = filter.filter_buffered(&input[..], capacity).unwrap_err();
        assert!(
            matches!(err, FilterReadError::NotUtf8 { offset: 53 }),
            "{capacity}: {err:?}"
        );
    }
}

#[test]
fn reader_passes_io_errors_on() {
    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("disk on fire"))
        }
    }
    let err = LineFilter::new("a")
        .unwrap()
        .filter_reader(Broken)
        .unwrap_err();
    assert!(matches!(&err, FilterReadError::Io(e) if e.to_string() == "disk on fire"));
}

/// A reader that returns at most `.1` bytes per call.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.len().min(buf.len()).min(self.1);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fn rg_binary() -> Option<&'static str> {
    std::process::Command::new("rg")
        .arg("--version")
        .output()
        .ok()
        .map(|_| "rg")
}

fn run_rg(rg: &str, pattern: &str, path: &Path) -> String {
    let out = std::process::Command::new(rg)
        .args(["--no-config", "-n", "-C2", "--color=never", "--no-heading"])
        .args(["-e", pattern])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// A log several read buffers long with matches on both sides of every buffer boundary: the
/// same bytes as the in-memory scan.
#[test]
fn many_buffers_give_the_in_memory_output() {
    let mut log = String::new();
    let mut n = 0u32;
    while log.len() < 5 * READ_BUFFER_BYTES {
        n += 1;
        let level = if n.is_multiple_of(97) || n % 431 < 3 {
            "ERROR"
        } else {
            "INFO"
        };
        log.push_str(&format!("{n:06} {level} status={} é\n", 200 + n % 7));
    }
    log.push_str("last ERROR line without a newline");
    for pattern in ["ERROR", r"status=20[56]", "^$", "é$", "zzz"] {
        let filter = LineFilter::new(pattern).unwrap();
        let expected = filter.filter(&log);
        let got = filter.filter_reader(log.as_bytes()).unwrap();
        assert_eq!(got, expected, "{pattern:?}");
        // Short reads: every refill ends somewhere else.
        let got = filter
            .filter_buffered(Trickle(log.as_bytes(), 4093), READ_BUFFER_BYTES)
            .unwrap();
        assert_eq!(got, expected, "{pattern:?} trickle");
    }
}

/// A line longer than the buffer (which grows) holding the match, with context lines on both
/// sides, and a match straddling what was the buffer's end.
#[test]
fn a_line_longer_than_the_buffer_grows_it() {
    let long = format!("{}ERROR{}", "x".repeat(150), "y".repeat(300));
    let input = format!("a\nb\n{long}\nc\nd\ne\n{}ERR\nOR\nERROR\n", "z".repeat(61));
    let filter = LineFilter::new("ERROR").unwrap();
    let expected = filter.filter(&input);
    assert!(expected.starts_with("1-a\n2-b\n3:x"), "{expected}");
    for capacity in [16, 64, 100, 155, 157] {
        let got = filter.filter_buffered(input.as_bytes(), capacity).unwrap();
        assert_eq!(got, expected, "capacity {capacity}");
    }
}

/// An error after some input has been scanned is the error reported (not a hang, not a
/// half result).
#[test]
fn reader_error_after_data_is_reported() {
    struct FailsLater(usize);
    impl Read for FailsLater {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::other("cable pulled"));
            }
            self.0 -= 1;
            let line = b"ERROR\n";
            let n = line.len().min(buf.len());
            buf[..n].copy_from_slice(&line[..n]);
            Ok(n)
        }
    }
    for capacity in [6, 64, READ_BUFFER_BYTES] {
        let err = LineFilter::new("ERROR")
            .unwrap()
            .filter_buffered(FailsLater(50), capacity)
            .unwrap_err();
        assert!(
            matches!(&err, FilterReadError::Io(e) if e.to_string() == "cable pulled"),
            "{capacity}: {err:?}"
        );
    }
}
