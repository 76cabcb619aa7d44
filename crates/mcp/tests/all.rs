//! The one integration test binary of coyote-mcp: the host API driven
//! against real processes and servers through the public API only.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers outside #[test] fns: a setup step that fails stops the test at once"
)]

mod host;
