//! `coyote-fake-mcp`: the scenario-driven fake MCP server (see `coyote_test_support::binary`).

fn main() {
    coyote_test_support::binary::main()
}
