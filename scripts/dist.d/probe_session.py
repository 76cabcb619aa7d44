#!/usr/bin/env python3
"""One MCP session over stdio for scripts/dist's function order: initialize, the four lists,
close. Exits non-zero when the server fails a request or closes early.

Usage: probe_session.py -- COMMAND [ARGS...]
"""
import json
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    if not argv or argv[0] != "--" or len(argv) < 2:
        sys.exit(__doc__)
    proc = subprocess.Popen(argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)

    def rpc(msg_id, method, params):
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method,
                                      "params": params}) + "\n").encode())
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                sys.exit(f"the server closed stdout while waiting for {method}")
            reply = json.loads(line)
            if reply.get("id") == msg_id and "method" not in reply:
                if "error" in reply:
                    sys.exit(f"{method} failed: {reply['error']}")
                return

    rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "dist", "version": "0"}})
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    proc.stdin.flush()
    for i, method in enumerate(["tools/list", "prompts/list", "resources/list",
                                "resources/templates/list"]):
        rpc(2 + i, method, {})
    proc.stdin.close()
    proc.wait(timeout=300)


main()
