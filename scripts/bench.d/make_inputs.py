#!/usr/bin/env python3
"""Inputs for scripts/bench: a deterministic ~100 MiB log (1 line in 1000 has `ERROR`),
its first ~50 MiB as a fake-server text resource, and the fake-server scenarios.

Usage: make_inputs.py DIR
"""
import json
import os
import random
import sys

MIB = 1024 * 1024


def make_log(path, size):
    rng = random.Random(42)
    levels = ["INFO"] * 90 + ["DEBUG"] * 8 + ["WARN"] * 2
    paths = ["/api/v1/users", "/api/v1/apps", "/healthz", "/api/v1/deploy", "/static/app.js"]
    written = 0
    n = 0
    with open(path, "w") as out:
        chunk = []
        while written < size:
            n += 1
            level = "ERROR" if n % 1000 == 0 else rng.choice(levels)
            line = (
                f"2026-12-02T12:{(n // 60000) % 60:02d}:{(n // 1000) % 60:02d}.{n % 1000:03d}Z "
                f"{level} worker-{n % 8} req={n:09d} path={rng.choice(paths)} "
                f"status={500 if level == 'ERROR' else 200} dur={rng.randint(1, 900)}ms "
                f"ua=\"Mozilla/5.0 (X11; Linux x86_64) bench/{n % 17}\"\n"
            )
            chunk.append(line)
            written += len(line)
            if len(chunk) >= 10000:
                out.write("".join(chunk))
                chunk = []
        out.write("".join(chunk))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    log = os.path.join(out, "log100.txt")
    if not os.path.exists(log) or os.path.getsize(log) < 100 * MIB:
        make_log(log, 100 * MIB)
    with open(log) as f:
        text50 = f.read(50 * MIB)
    text50 = text50[: text50.rfind("\n") + 1]
    with open(os.path.join(out, "log50.txt"), "w") as f:
        f.write(text50)
    base = {
        "server_name": "fake",
        "capabilities": {"tools": True, "resources": True, "prompts": False, "completions": False, "logging": False},
        "tools": [{"name": "echo", "behavior": {"kind": "echo"}}],
    }
    blob = dict(base, resources=[{
        "uri": "fake://blob50", "name": "blob50", "mime_type": "application/octet-stream",
        "body": {"kind": "generated_blob", "bytes": 50 * MIB},
    }])
    with open(os.path.join(out, "blob50.json"), "w") as f:
        json.dump(blob, f)
    text = dict(base, resources=[{
        "uri": "fake://text50", "name": "text50", "mime_type": "text/plain",
        "body": {"kind": "text", "text": text50},
    }])
    with open(os.path.join(out, "text50.json"), "w") as f:
        json.dump(text, f)
    with open(os.path.join(out, "echo.json"), "w") as f:
        json.dump(base, f)


if __name__ == "__main__":
    main()
