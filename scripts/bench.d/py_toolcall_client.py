#!/usr/bin/env python3
"""Peer for `scripts/bench toolcall`: the official Python SDK (`mcp`, installed by scripts/bench
into a git-ignored venv) calls `echo` N times in one process against a stdio server and prints
{median_us, p10_us, p90_us, ready_ms, client_peak_rss_kib} like bench_toolcall.rs.

Usage: py_toolcall_client.py WARMUP CALLS -- CMD ARGS...
       py_toolcall_client.py WARMUP CALLS --url URL   (streamable HTTP)
BENCH_TOOL / BENCH_TOOL_ARGS (JSON) choose the tool (default: echo {"message": "hi"}).
"""
import asyncio
import contextlib
import json
import os
import re
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


@contextlib.asynccontextmanager
async def connect(dashes, target, args):
    if dashes == "--url":
        from mcp.client import streamable_http

        # `streamable_http_client` yields (read, write); SDKs before 2.x named it
        # `streamablehttp_client` and yielded a session-id getter as well.
        if hasattr(streamable_http, "streamable_http_client"):
            async with streamable_http.streamable_http_client(target) as streams:
                yield streams[0], streams[1]
        else:
            async with streamable_http.streamablehttp_client(target) as streams:
                yield streams[0], streams[1]
        return
    params = StdioServerParameters(command=target, args=args, env=dict(os.environ))
    with open("/dev/null", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            yield read, write


async def main():
    warmup, calls, dashes, target, *args = sys.argv[1:]
    if dashes not in ("--", "--url"):
        sys.exit(__doc__)
    tool = os.environ.get("BENCH_TOOL", "echo")
    tool_args = json.loads(os.environ.get("BENCH_TOOL_ARGS", '{"message": "hi"}'))
    started = time.perf_counter()
    async with connect(dashes, target, args) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            ready_ms = (time.perf_counter() - started) * 1e3
            for _ in range(int(warmup)):
                await session.call_tool(tool, tool_args)
            samples = []
            for _ in range(int(calls)):
                t = time.perf_counter()
                await session.call_tool(tool, tool_args)
                samples.append((time.perf_counter() - t) * 1e6)
    samples.sort()
    at = lambda f: samples[int((len(samples) - 1) * f)]
    status = open("/proc/self/status").read()
    hwm = re.search(r"VmHWM:\s+(\d+)", status)
    print(json.dumps({
        "client": "python-sdk", "calls": int(calls), "median_us": at(0.5), "p10_us": at(0.1),
        "p90_us": at(0.9), "ready_ms": ready_ms, "client_peak_rss_kib": int(hwm.group(1)) if hwm else 0,
    }))


asyncio.run(main())
