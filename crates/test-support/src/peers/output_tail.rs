//! The last bytes a peer process wrote to stdout/stderr, kept for error messages.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::thread;

/// Bytes of the server's combined stdout/stderr kept for error messages.
const OUTPUT_TAIL_BYTES: usize = 8 * 1024;

/// A bounded ring of the last bytes a child wrote; drained by one thread per pipe so a chatty
/// server never blocks on a full pipe.
#[derive(Clone, Default)]
pub(crate) struct OutputTail(Arc<Mutex<VecDeque<u8>>>);

impl OutputTail {
    pub(crate) fn drain(&self, mut pipe: impl Read + Send + 'static) {
        let buffer = Arc::clone(&self.0);
        thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let mut tail = buffer
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                tail.extend(&chunk[..n]);
                let excess = tail.len().saturating_sub(OUTPUT_TAIL_BYTES);
                tail.drain(..excess);
            }
        });
    }

    pub(crate) fn snapshot(&self) -> String {
        let tail = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        String::from_utf8_lossy(&tail.iter().copied().collect::<Vec<u8>>()).into_owned()
    }
}
