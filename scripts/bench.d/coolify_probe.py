#!/usr/bin/env python3
"""Peer-neutral stdio probe for `scripts/bench coolify` (coolify/SPEC.md section 8 recipe).

Spawns CMD under `/usr/bin/time -v`, speaks NDJSON JSON-RPC: initialize, initialized,
tools/list, prompts/list, resources/list, resources/templates/list, then closes stdin.
Per run it records spawn -> initialize answered, spawn -> first tools/list answered, the four
lists' total, the compact-JSON byte size of the tools/list result and the server's peak RSS.
Prints one JSON object with the medians over --runs runs.

Usage: coolify_probe.py --runs N -- CMD ARGS...   (environment is passed through)
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def rpc(proc, msg_id, method, params=None):
    msg = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        msg["params"] = params
    proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"server closed stdout while waiting for {method}")
        reply = json.loads(line)
        if reply.get("id") == msg_id and "method" not in reply:
            if "error" in reply:
                raise RuntimeError(f"{method} failed: {reply['error']}")
            return reply["result"]
        if "method" in reply and "id" in reply:
            # A server request (roots/list, ...): answer "not supported" and keep waiting.
            err = {"jsonrpc": "2.0", "id": reply["id"], "error": {"code": -32601, "message": "unsupported"}}
            proc.stdin.write((json.dumps(err) + "\n").encode())
            proc.stdin.flush()


def compact_len(value):
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def one_run(cmd):
    with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as timing:
        started = time.perf_counter()
        proc = subprocess.Popen(
            ["/usr/bin/time", "-v", "-o", timing.name, *cmd],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        rpc(proc, 1, "initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bench-probe", "version": "0.0.0"},
        })
        init_s = time.perf_counter() - started
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
        lists_started = time.perf_counter()
        tools = rpc(proc, 2, "tools/list", {})
        first_tools_s = time.perf_counter() - started
        rpc(proc, 3, "prompts/list", {})
        rpc(proc, 4, "resources/list", {})
        rpc(proc, 5, "resources/templates/list", {})
        lists_s = time.perf_counter() - lists_started
        proc.stdin.close()
        proc.wait(timeout=30)
        rss_kib = 0
        for line in open(timing.name):
            if "Maximum resident set size" in line:
                rss_kib = int(line.rsplit(":", 1)[1])
        return {
            "init_s": init_s, "first_tools_list_s": first_tools_s, "four_lists_s": lists_s,
            "tools": len(tools.get("tools", [])), "tools_list_bytes": compact_len(tools),
            "peak_rss_kib": rss_kib,
        }


def main():
    args = sys.argv[1:]
    runs = 5
    if args[:1] == ["--runs"]:
        runs = int(args[1])
        args = args[2:]
    if args[:1] != ["--"] or len(args) < 2:
        sys.exit(__doc__)
    cmd = args[1:]
    one_run(cmd)  # warm-up: page cache, JIT caches
    results = [one_run(cmd) for _ in range(runs)]
    summary = {
        key: (statistics.median_low if isinstance(results[0][key], int) else statistics.median)(
            r[key] for r in results)
        for key in results[0]
    }
    summary["runs"] = runs
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
