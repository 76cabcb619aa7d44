#!/usr/bin/env python3
"""Peak RSS of one process alone (not its children), for `scripts/bench rss`: runs CMD and
reads its VmHWM (and the file/anonymous split of its RSS) from /proc/<pid>/status every
millisecond until it exits; prints one JSON line with the medians over the runs.

Why not /usr/bin/time: wait4's ru_maxrss folds in the largest child the process reaped, and
coyote reaps its MCP servers (server-everything under node is ~60 MiB). The last reading is at
most ~1 ms before exit, so the figure is a lower bound of the true peak by whatever the
process allocates in its last millisecond (shutdown frees, it does not allocate).

Before the runs the executable is dropped from the page cache (posix_fadvise DONTNEED) and one
warm-up run reads it back, so its pages come in through the same readahead whatever wrote it
last (a linker, cp); see coolify_probe.py.

Usage: peak_rss.py [--runs N] [--prepare SHELL-CMD] -- CMD ARGS...
(stdout of CMD is discarded; env passed through; --prepare runs before every run, e.g. to
empty a cache)
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time


def status_kib(pid):
    """VmHWM, RssAnon and RssFile of pid in KiB, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
    except OSError:
        return None
    out = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmHWM", "RssAnon", "RssFile"):
            out[key] = int(rest.split()[0])
    return out if "VmHWM" in out else None


def one_run(argv, prepare=None):
    if prepare:
        subprocess.run(prepare, shell=True, check=True, stdout=subprocess.DEVNULL)
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    best = None
    while proc.poll() is None:
        s = status_kib(proc.pid)
        if s is not None and (best is None or s["VmHWM"] >= best["VmHWM"]):
            best = s
        time.sleep(0.001)
    if proc.returncode != 0:
        sys.exit(f"{argv} exited with {proc.returncode}")
    return best or {"VmHWM": 0, "RssAnon": 0, "RssFile": 0}


def drop_from_page_cache(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def main():
    args = sys.argv[1:]
    runs, prepare = 5, None
    while args[:1] in (["--runs"], ["--prepare"]):
        if args[0] == "--runs":
            runs = int(args[1])
        else:
            prepare = args[1]
        args = args[2:]
    if not args or args[0] != "--" or len(args) < 2:
        sys.exit(__doc__)
    argv = args[1:]
    exe = shutil.which(argv[0]) or argv[0]
    drop_from_page_cache(exe)
    one_run(argv, prepare)
    samples = [one_run(argv, prepare) for _ in range(runs)]
    print(json.dumps({
        "runs": runs,
        "peak_rss_kib": statistics.median(s["VmHWM"] for s in samples),
        "min_kib": min(s["VmHWM"] for s in samples),
        "max_kib": max(s["VmHWM"] for s in samples),
        "rss_anon_kib": statistics.median(s.get("RssAnon", 0) for s in samples),
        "rss_file_kib": statistics.median(s.get("RssFile", 0) for s in samples),
    }))


main()
