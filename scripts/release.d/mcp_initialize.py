#!/usr/bin/env python3
"""An MCP `initialize` over stdio against COMMAND: sends initialize and
notifications/initialized, checks that the answer is an InitializeResult whose serverInfo.name
is NAME, prints `NAME VERSION (protocol P)`, closes stdin and waits for the server to exit.
Exits non-zero on any error or after 60 s.

Usage: mcp_initialize.py NAME -- COMMAND [ARGS...]
"""
import json
import subprocess
import sys
import threading


def main():
    argv = sys.argv[1:]
    if len(argv) < 3 or argv[1] != "--":
        sys.exit(__doc__)
    want, cmd = argv[0], argv[2:]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    timer = threading.Timer(60, proc.kill)
    timer.start()
    try:
        proc.stdin.write((json.dumps({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "release-check", "version": "0"}}}) + "\n").encode())
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                err = proc.stderr.read().decode(errors="replace")
                sys.exit(f"mcp_initialize: the server closed stdout before answering\n{err}")
            reply = json.loads(line)
            if reply.get("id") == 1:
                break
        if "error" in reply:
            sys.exit(f"mcp_initialize: initialize failed: {reply['error']}")
        result = reply.get("result") or {}
        info = result.get("serverInfo") or {}
        if info.get("name") != want:
            sys.exit(f"mcp_initialize: serverInfo.name is {info.get('name')!r}, not {want!r}")
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.close()
        rc = proc.wait()
        if rc != 0:
            sys.exit(f"mcp_initialize: the server exited with {rc} after stdin closed")
        print(f"{info['name']} {info.get('version')} (protocol {result.get('protocolVersion')})")
    finally:
        timer.cancel()


main()
