#!/usr/bin/env python3
"""A minimal stdio MCP server for `scripts/bench blob`'s client-side row: it loads a blob's
base64 (one file, no newline) into memory at startup, then answers `initialize` and every
`resources/read` with that blob in one pre-built line, written with one write call. Its own
cost per read is a memcpy into the pipe, so a client's read time against it is the client's
(receive, parse, decode, sha256, spill) — unlike coyote-fake-mcp, which generates and
encodes the blob while answering.

Usage: replay_blob_server.py BLOB.b64 [MIME]
"""
import json
import sys


def main():
    with open(sys.argv[1], "rb") as f:
        b64 = f.read().strip()
    mime = sys.argv[2] if len(sys.argv) > 2 else "application/octet-stream"
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        msg = json.loads(line)
        method, msg_id = msg.get("method"), msg.get("id")
        if msg_id is None:
            continue
        if method == "initialize":
            result = {
                "protocolVersion": msg["params"].get("protocolVersion", "2025-06-18"),
                "capabilities": {"resources": {}},
                "serverInfo": {"name": "replay-blob", "version": "0"},
            }
            out.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}).encode() + b"\n")
        elif method == "resources/read":
            uri = json.dumps(msg["params"]["uri"]).encode()
            head = b'{"jsonrpc":"2.0","id":' + json.dumps(msg_id).encode() + \
                b',"result":{"contents":[{"uri":' + uri + b',"mimeType":' + \
                json.dumps(mime).encode() + b',"blob":"'
            out.write(head)
            out.write(b64)
            out.write(b'"}]}}\n')
        elif method == "resources/list":
            result = {"resources": [{"uri": "replay://blob", "name": "blob", "mimeType": mime}]}
            out.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}).encode() + b"\n")
        else:
            err = {"code": -32601, "message": f"{method} is not supported by the replay server"}
            out.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": err}).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
