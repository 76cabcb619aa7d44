//! The one integration-test binary of coyote-cli: runs the real `coyote` binary (assert_cmd)
//! against real MCP servers (server-everything from npm, the fake server binary).

mod cli;
