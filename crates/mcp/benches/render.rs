//! The content policy's hot paths (docs/benchmarks.md): `pattern` over a 100 MiB log (compare
//! with `rg -n -C2` on the file written to `$COYOTE_BENCH_DIR`, default the temp dir), paging a
//! 50 MiB text through a result handle, and a 50 MiB blob from base64 to spill file + sha256.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    missing_docs,
    reason = "a benchmark: it stops at the first failed setup step, prints its own notes, and \
              criterion_group! declares an undocumented pub fn"
)]

use base64::Engine as _;
use coyote_mcp::render::{LineFilter, ReadOptions, SpillStore, decode_blob, render_text};
use criterion::{Criterion, criterion_group, criterion_main};

const MIB: usize = 1024 * 1024;

/// ~100 MiB of log lines; one in 997 has "ERROR".
fn log(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 200);
    let mut i = 0u64;
    while s.len() < bytes {
        let level = if i.is_multiple_of(997) {
            "ERROR"
        } else if i.is_multiple_of(7) {
            "WARN"
        } else {
            "INFO"
        };
        s.push_str(&format!(
            "2026-12-02T11:{:02}:{:02}.{:03}Z {level} worker-{} request id={} path=/api/v1/items/{} took {}ms\n",
            (i / 60) % 60,
            i % 60,
            i % 1000,
            i % 16,
            i * 7919 % 1_000_003,
            i % 5000,
            i % 250
        ));
        i += 1;
    }
    s
}

fn bench(c: &mut Criterion) {
    let dir = std::env::var_os("COYOTE_BENCH_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let text = log(100 * MIB);
    let log_path = dir.join("coyote-bench-100mib.log");
    std::fs::write(&log_path, &text).expect("write bench log");
    let mut group = c.benchmark_group("render");
    group.sample_size(10);

    let filter = LineFilter::new("ERROR").unwrap();
    check_against_rg(&filter.filter(&text), &log_path);
    group.bench_function("pattern_100mib_log", |b| {
        b.iter(|| filter.filter(&text).len())
    });
    // Like `rg -n -C2 ERROR FILE`: the file streamed through one reused buffer.
    group.bench_function("pattern_100mib_log_from_file", |b| {
        b.iter(|| {
            filter
                .filter_reader(std::fs::File::open(&log_path).unwrap())
                .unwrap()
                .len()
        })
    });

    let spill_root = tempfile::tempdir().unwrap();
    let store = SpillStore::new(spill_root.path().join("mcp-resources"));
    let fifty = &text[..50 * MIB];
    let handle = store.put_result_text("bench", fifty).unwrap();
    let options = ReadOptions::default().with_offset(25 * MIB as u64);
    group.bench_function("page_50mib_text_via_handle", |b| {
        b.iter(|| {
            let full = store.read_result_text("bench", &handle).unwrap();
            render_text(&handle, None, &full, &options).text.len()
        })
    });

    let blob: Vec<u8> = (0..50 * MIB).map(|i| (i * 31 % 251) as u8 | 0x80).collect();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&blob);
    drop(blob);
    group.bench_function("blob_50mib_decode_sha256_spill", |b| {
        b.iter(|| {
            decode_blob(&b64, Some("image/png"), "bench", &store)
                .map(|_| ())
                .unwrap()
        })
    });
    group.finish();
}

/// The filter's output on the bench log must be byte-identical to ripgrep's (when installed).
fn check_against_rg(ours: &str, path: &std::path::Path) {
    let Ok(out) = std::process::Command::new("rg")
        .args([
            "--no-config",
            "-n",
            "-C2",
            "--color=never",
            "--no-heading",
            "-e",
            "ERROR",
        ])
        .arg(path)
        .output()
    else {
        eprintln!("note: rg not installed; the ripgrep comparison is skipped");
        return;
    };
    assert!(
        out.stdout == ours.as_bytes(),
        "pattern output differs from rg -n -C2"
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
