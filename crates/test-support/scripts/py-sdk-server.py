"""An MCP server on the Python SDK (mcp 2.3.0, pinned in scripts/python-peers.txt) over stdio,
for the protocol-negotiation and server-log tests.

    python py-sdk-server.py [--modern-only | --http PORT]

Its tool `log_and_echo(text)` sends one log message at each of debug, info, warning and error
(through the SDK's own `Context` logging, which at protocol 2026-07-28 delivers only what the
request's `_meta["io.modelcontextprotocol/logLevel"]` opts in to) and returns `text`. Its
resource `note://counter` holds a number that the tool `bump()` increments, publishing
`notifications/resources/updated` for it to `subscriptions/listen` streams (2026-07-28).

The SDK serves both protocol eras on one stdio connection. With `--modern-only` this script
runs the SDK server as a child and stands between it and the client, answering the legacy
`initialize` request itself with JSON-RPC error -32601 (method not found), as a server that
speaks only 2026-07-28 does; every other line passes through unchanged. With `--http PORT`
it serves streamable HTTP on 127.0.0.1:PORT at `/mcp` instead of stdio.
"""

import json
import subprocess
import sys
import threading


def serve(port: int | None = None) -> None:
    from mcp.server.mcpserver import Context, MCPServer

    server = MCPServer("py-sdk-test")

    @server.tool()
    async def log_and_echo(text: str, ctx: Context) -> str:
        """Logs at four levels, then echoes the text."""
        await ctx.debug(f"debug: {text}")
        await ctx.info(f"info: {text}")
        await ctx.warning(f"warning: {text}")
        await ctx.error(f"error: {text}")
        return text

    counter = {"value": 0}

    @server.resource("note://counter")
    def note_counter() -> str:
        """A number that `bump` increments."""
        return str(counter["value"])

    @server.tool()
    async def bump(ctx: Context) -> str:
        """Increments note://counter and tells its listeners."""
        counter["value"] += 1
        await ctx.notify_resource_updated("note://counter")
        return str(counter["value"])

    if port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=port)


def gate() -> None:
    child = subprocess.Popen(
        [sys.executable, __file__],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=0,
    )
    lock = threading.Lock()

    def write(data: bytes) -> None:
        with lock:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def relay_out() -> None:
        for line in child.stdout:
            write(line)

    threading.Thread(target=relay_out, daemon=True).start()
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("method") == "initialize":
            refusal = {
                "jsonrpc": "2.0",
                "id": message.get("id"),
                "error": {"code": -32601, "message": "Method not found: initialize"},
            }
            write((json.dumps(refusal) + "\n").encode())
            continue
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()
    child.wait()


if __name__ == "__main__":
    if "--modern-only" in sys.argv[1:]:
        gate()
    elif "--http" in sys.argv[1:]:
        serve(int(sys.argv[sys.argv.index("--http") + 1]))
    else:
        serve()
