#!/usr/bin/env python3
"""Time from `coyote "hi"` start to the first answer byte on stdout (issue 4 acceptance 7).

A fake OpenAI-compatible endpoint (streamed SSE, answers at once) runs on 127.0.0.1 in this
process; a temp home gets config.yaml pointing at it and an mcp.json with N MCP servers
(`coyote-fake-mcp` with a small tools scenario, or server-everything with --everything).
Each run spawns coyote with piped stdout, records the first stdout byte and the exit, and the
script prints one JSON object: medians/min/max in milliseconds.

  first_token.py --coyote target/release/coyote --fake-mcp target/release/coyote-fake-mcp \
      [--servers 5] [--runs 10] [--everything ENTRY.js]
"""

import argparse
import http.server
import json
import os
import statistics
import subprocess
import tempfile
import threading
import time

ANSWER = "Hello from the fake model."


class FakeModel(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        self.rfile.read(length)
        chunks = [
            {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ANSWER}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}},
        ]
        body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        data = body.encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coyote", required=True)
    ap.add_argument("--fake-mcp", required=True)
    ap.add_argument("--servers", type=int, default=5)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--everything", help="server-everything's dist/index.js: use it instead")
    ap.add_argument("--node", default="node")
    args = ap.parse_args()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"

    home = tempfile.mkdtemp(prefix="coyote-first-token-")
    config = os.path.join(home, "config")
    os.makedirs(config)
    with open(os.path.join(config, "config.yaml"), "w") as f:
        f.write(
            "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n"
            f"    api_base: {base}\n    models:\n      - name: fake-model\n"
        )
    scenario = os.path.join(home, "scenario.json")
    with open(scenario, "w") as f:
        json.dump({"tools": [{"name": "echo", "behavior": {"kind": "echo"}}],
                   "capabilities": {"tools": True, "resources": False, "prompts": False,
                                    "completions": False}}, f)
    servers = {}
    for i in range(args.servers):
        if args.everything:
            servers[f"s{i}"] = {"command": args.node, "args": [args.everything, "stdio"]}
        else:
            servers[f"s{i}"] = {"command": args.fake_mcp, "args": [scenario]}
    with open(os.path.join(config, "mcp.json"), "w") as f:
        json.dump({"mcpServers": servers}, f)

    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": home,
        "COYOTE_CONFIG_DIR": config,
        "COYOTE_STATE_DIR": os.path.join(home, "state"),
        "COYOTE_CACHE_DIR": os.path.join(home, "cache"),
    }
    first, total = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        proc = subprocess.Popen([args.coyote, "hi"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        byte = proc.stdout.read(1)
        t_first = time.perf_counter() - start
        rest = proc.stdout.read()
        err = proc.stderr.read()
        code = proc.wait()
        t_total = time.perf_counter() - start
        if code != 0 or (byte + rest).decode().strip() != ANSWER:
            raise SystemExit(f"coyote failed ({code}): {err.decode()}")
        first.append(t_first * 1000)
        total.append(t_total * 1000)
    server.shutdown()

    def summary(xs):
        return {"median_ms": round(statistics.median(xs), 1), "min_ms": round(min(xs), 1),
                "max_ms": round(max(xs), 1)}

    print(json.dumps({"servers": args.servers,
                      "kind": "server-everything" if args.everything else "coyote-fake-mcp",
                      "runs": args.runs, "first_token": summary(first),
                      "process_total": summary(total)}))


if __name__ == "__main__":
    main()
