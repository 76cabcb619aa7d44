//! The one integration-test binary of coyote-cli: runs the real `coyote` binary (assert_cmd)
//! against real MCP servers (server-everything from npm, the fake server binary).
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers outside #[test] fns: a setup step that fails stops the test at once"
)]

mod cli;
