#!/usr/bin/env python3
"""Time from `coyote "hi"` start to the first answer byte on stdout (issue 4 acceptance 7).

A fake OpenAI-compatible endpoint (streamed SSE, answers at once) runs on 127.0.0.1 in this
process; a temp home gets config.yaml pointing at it and an mcp.json with N MCP servers
(`coyote-fake-mcp` with a small tools scenario, or server-everything with --everything).
Each run spawns coyote with piped stdout, records the first stdout byte and the exit, and the
script prints one JSON object: medians/min/max in milliseconds.
With --repl it instead starts `coyote repl` on a pseudo-terminal (answering the cursor-position
queries reedline sends, as a terminal would) and records the time until the prompt `coyote> `
is drawn; then it sends `.exit`.

  first_token.py --coyote target/release/coyote --fake-mcp target/release/coyote-fake-mcp \
      [--servers 5] [--runs 10] [--everything ENTRY.js] [--repl]
"""

import argparse
import http.server
import json
import os
import pty
import select
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


def summary(xs):
    return {"median_ms": round(statistics.median(xs), 1), "min_ms": round(min(xs), 1),
            "max_ms": round(max(xs), 1)}


def repl_prompt_ms(coyote, env):
    """Spawn `coyote repl` on a pty; milliseconds until `coyote> ` appears on it."""
    env = dict(env, TERM="xterm-256color")
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(coyote, [coyote, "repl"], env)
    seen, elapsed = b"", None
    deadline = start + 30
    while time.perf_counter() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        seen += chunk
        # Answer every cursor-position query (ESC [ 6 n) like a terminal would.
        for _ in range(chunk.count(b"\x1b[6n")):
            os.write(fd, b"\x1b[1;1R")
        if b"coyote> " in seen.replace(b"\x1b[", b"") or b"> " in seen and b"coyote" in seen:
            elapsed = (time.perf_counter() - start) * 1000
            break
    os.write(fd, b".exit\r")
    end = time.perf_counter() + 10
    while time.perf_counter() < end:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:
                pass
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    os.close(fd)
    if elapsed is None:
        raise SystemExit(f"no REPL prompt within 30 s; output: {seen[-500:]!r}")
    return elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coyote", required=True)
    ap.add_argument("--fake-mcp", required=True)
    ap.add_argument("--servers", type=int, default=5)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--everything", help="server-everything's dist/index.js: use it instead")
    ap.add_argument("--node", default="node")
    ap.add_argument("--repl", action="store_true", help="time start -> REPL prompt drawn")
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
    if args.repl:
        prompt = [repl_prompt_ms(args.coyote, env) for _ in range(args.runs)]
        server.shutdown()
        print(json.dumps({"servers": args.servers, "runs": args.runs,
                          "kind": "server-everything" if args.everything else "coyote-fake-mcp",
                          "repl_prompt": summary(prompt)}))
        return
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

    print(json.dumps({"servers": args.servers,
                      "kind": "server-everything" if args.everything else "coyote-fake-mcp",
                      "runs": args.runs, "first_token": summary(first),
                      "process_total": summary(total)}))


if __name__ == "__main__":
    main()
