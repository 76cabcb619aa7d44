#!/usr/bin/env python3
"""Peer-neutral stdio probe for `scripts/bench coolify` (coolify/SPEC.md section 8 recipe).

Speaks NDJSON JSON-RPC to CMD: initialize, initialized, tools/list, prompts/list,
resources/list, resources/templates/list, then closes stdin. Records spawn -> initialize
answered, spawn -> first tools/list answered, the four lists' total, the compact-JSON byte size
of the tools/list result and the server's peak RSS.

Each of the --runs rounds is two spawns:
- a timed run with CMD spawned directly (so the spawn timings hold the server's start, not
  /usr/bin/time's own fork+exec: ~1 ms on a quiet machine, several ms on a loaded one); it also
  reads VmHWM from /proc/<pid>/status right after the fourth list (vm_hwm_kib);
- an RSS run under `/usr/bin/time -v` as SPEC section 8 prescribes (peak_rss_kib, "Maximum
  resident set size", which also covers the server's shutdown: node grows by ~20 MiB there).
(wait4's ru_maxrss of a direct child is not usable: Linux folds the pre-exec RSS of the forked
Python parent, ~14 MiB, into it.)

Before the warm-up the server's executable is dropped from the page cache
(posix_fadvise DONTNEED), so it is read back by the same readahead whatever wrote it last (a
linker, cp): file-backed pages are mapped in page-cache folios, and their sizes, hence the
RSS of a big binary, otherwise depend on that history.

Prints one JSON object with the medians.

Usage: coolify_probe.py --runs N -- CMD ARGS...   (environment is passed through)
"""
import json
import os
import shutil
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


def vm_hwm_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmHWM in /proc/{pid}/status")


def drop_from_page_cache(program):
    path = shutil.which(program)
    if path is None:
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def one_run(cmd, time_v=False):
    timing = tempfile.NamedTemporaryFile(mode="r", suffix=".time") if time_v else None
    argv = ["/usr/bin/time", "-v", "-o", timing.name, *cmd] if time_v else cmd
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
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
    rss_kib = None if time_v else vm_hwm_kib(proc.pid)
    proc.stdin.close()
    proc.wait(timeout=30)
    if time_v:
        for line in open(timing.name):
            if "Maximum resident set size" in line:
                rss_kib = int(line.rsplit(":", 1)[1])
        timing.close()
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
    drop_from_page_cache(cmd[0])
    one_run(cmd)  # warm-up: page cache, JIT caches
    timed, rss = [], []
    for _ in range(runs):
        timed.append(one_run(cmd))
        rss.append(one_run(cmd, time_v=True)["peak_rss_kib"])
    summary = {
        key: (statistics.median_low if isinstance(timed[0][key], int) else statistics.median)(
            r[key] for r in timed)
        for key in timed[0]
    }
    summary["vm_hwm_kib"] = summary.pop("peak_rss_kib")
    summary["peak_rss_kib"] = statistics.median_low(rss)
    summary["runs"] = runs
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
