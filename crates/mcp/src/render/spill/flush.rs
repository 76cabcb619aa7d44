//! Handing a big spilled file's pages back (long-lived reads): after a new spill file
//! of at least [`RELEASE_FROM_BYTES`] is in place, a background thread writes it to disk and
//! drops its pages from the page cache (`fdatasync`, then `posix_fadvise(DONTNEED)`).
//!
//! Why: a process that reads blob after blob (a REPL, an agent) otherwise grows the page cache
//! by the size of every blob, and a write into fresh page-cache memory costs several times a
//! write into pages the kernel just freed — measured on this project's VM with 50 MiB writes:
//! ~110 ms of system time each while the earlier files' pages stay cached, ~15 ms when they were
//! released (docs/benchmarks.md, "long-lived reads"). The 10th read then costs what the 1st did.
//!
//! Invariants: best effort and off the caller's path — the read has returned before the flush
//! ends; a failure changes nothing but the cache; the file's bytes are never touched (the thread
//! only syncs and advises); a process that exits meanwhile just leaves the pages to the kernel.

use std::fs::File;

/// Spill files smaller than this stay cached (a thread is not worth it).
pub(crate) const RELEASE_FROM_BYTES: u64 = 8 * 1024 * 1024;

/// Syncs `file` and drops its pages from the page cache, on a background thread, when it is at
/// least [`RELEASE_FROM_BYTES`] long.
pub(crate) fn release_in_background(file: File, size_bytes: u64) {
    if size_bytes < RELEASE_FROM_BYTES {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("spill-release".into())
        .spawn(move || release(&file));
    if let Err(e) = spawned {
        tracing::debug!(error = %e, "cannot start the spill-release thread; the pages stay cached");
    }
}

/// Syncs `file` (dirty pages cannot be dropped) and advises the kernel to drop its pages
/// (where `posix_fadvise` exists; elsewhere the sync alone).
pub(crate) fn release(file: &File) -> std::io::Result<()> {
    file.sync_data()?;
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::DontNeed)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Seek, Write};

    use super::*;

    #[test]
    fn releasing_keeps_the_bytes() {
        let mut file = tempfile::tempfile().unwrap();
        let bytes: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
        file.write_all(&bytes).unwrap();
        release(&file).unwrap();
        file.rewind().unwrap();
        let mut back = Vec::new();
        file.read_to_end(&mut back).unwrap();
        assert_eq!(back, bytes);
    }
}
