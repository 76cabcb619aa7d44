//! Parity with the reference server: golden files captured by `tests/golden/capture.mjs`
//! from `@masonator/coolify-mcp@3.5.0` on the same fixture (SPEC §8).
