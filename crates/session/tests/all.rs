//! The one integration-test binary of coyote-session: the turn loop against a scripted model
//! endpoint (test-support `fake_llm`, both wire formats) and the fake MCP server, asserting the
//! event stream, the captured requests and what the server observed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers outside #[test] fns: a setup step that fails stops the test at once"
)]

mod suite;
