//! The checked-in corpus of the `line_transport` fuzz target (`fuzz/corpus/line_transport`:
//! seeds plus what the fuzzer kept), replayed through the same checks on every `cargo test`.

use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/line_transport")
}

#[test]
fn the_line_transport_corpus_replays_without_a_failure() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("the corpus directory is checked in")
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the corpus holds the seeds at least");
    for file in files {
        let data = std::fs::read(&file).expect("a corpus file");
        let outcome = std::panic::catch_unwind(|| super::check(&data));
        assert!(outcome.is_ok(), "{} fails the checks", file.display());
    }
}
