//! `coyote-fake-mcp`: the scenario-driven fake MCP server (see `coyote_test_support::binary`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a dev-only fake: a scenario it cannot run stops it at once"
)]

fn main() {
    coyote_test_support::binary::main()
}
