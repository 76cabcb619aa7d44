//! The one integration-test binary of coyote-llm: providers against fake endpoints that speak
//! the real wire protocols (wiremock, plus a raw chunked-HTTP server for split SSE writes).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers outside #[test] fns: a setup step that fails stops the test at once"
)]

mod suite;
