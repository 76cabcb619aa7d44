#!/usr/bin/env python3
"""Run the e2e task set: coyote one-shot against llama-server, per exposure mode.

Usage: run.py --coyote BIN --fake-mcp BIN --api-base URL --model NAME --out DIR
              [--modes direct,meta,auto] [--tasks ID,...] [--task-timeout S] [--max-rounds N]
              [--parallel N]

Owns: one config dir per (mode, task) under OUT (config.yaml -> the llama-server client,
mcp.json -> one `coyote-fake-mcp` server with `"expose": MODE`), the fake server's scenario and
event log per run, the verdicts (OUT/results.jsonl) and the summary table on stdout.

Invariants: a task's outcome never changes the exit code (the model is being measured, not
gated); exit 2 only for infrastructure errors — coyote missing, a configuration coyote rejects
(exit 2), a fake server that never started, or a model server that stopped answering
--health-url. Every coyote run is bounded by --task-timeout
and by `max_tool_rounds`. With --parallel N, N runs are in flight at once (the model server has
N slots); a signal kills every running coyote's process group before exiting.
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

HERE = os.path.dirname(os.path.abspath(__file__))


class InfraError(Exception):
    pass


# coyote processes in flight (one per worker), so that a signal or an infrastructure error can
# kill all of them, not only the one the main thread would know about.
LIVE = set()
LIVE_LOCK = threading.Lock()
STOPPING = threading.Event()


def kill_live():
    STOPPING.set()
    with LIVE_LOCK:
        for proc in list(LIVE):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def scenario_for(spec, task, event_log):
    """The fake server: the whole catalog; the task's tools answer its fixed texts."""
    tools = []
    for tool in spec["catalog"]:
        text = task["results"].get(tool["name"])
        behavior = ({"kind": "text", "text": text} if text is not None else
                    {"kind": "error", "text": f"{tool['name']} has no data for this request"})
        tools.append(dict(tool, behavior=behavior))
    return {"server_name": "e2e-tools", "tools": tools, "event_log": event_log,
            "capabilities": {"tools": True, "resources": False, "prompts": False,
                             "completions": False, "logging": False}}


# Every expected answer is one sentence and every call well under 100 tokens: 256 only cuts off
# the rambling (explanations of how one would call a function) that costs minutes per task.
MAX_TOKENS = 256


def write_config(cdir, args, spec, mode, scenario_path):
    os.makedirs(cdir, exist_ok=True)
    with open(os.path.join(cdir, "config.yaml"), "w") as f:
        f.write(f"""model: local:{args.model}
temperature: 0
max_tool_rounds: {args.max_rounds}
clients:
  - type: openai-compatible
    name: local
    api_base: {args.api_base}
    models:
      - name: {args.model}
        max_tokens: {MAX_TOKENS}
        context_window: {args.context}
""")
    # "approve": "never": the task tools carry no annotations, so MCP's defaults make them
    # destructive, and a one-shot run refuses them without --yes; the run measures the model,
    # not the approval prompt (every tool of the fake server only answers a made-up fact).
    mcp = {"mcpServers": {spec["server"]: {
        "command": args.fake_mcp, "args": [scenario_path], "expose": mode,
        "approve": "never", "startupTimeoutSec": 30, "toolTimeoutSec": 30}}}
    with open(os.path.join(cdir, "mcp.json"), "w") as f:
        json.dump(mcp, f, indent=2)


def norm(text):
    """Lower case, digit-group commas dropped (6,912 -> 6912)."""
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", text).lower()


def value_matches(want, got):
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        try:
            return abs(float(got) - float(want)) < 1e-6
        except (TypeError, ValueError):
            return False
    return isinstance(got, str) and str(want).lower() in got.lower()


def call_matches(want, call):
    if call.get("name") != want["tool"]:
        return False
    got = call.get("arguments") or {}
    if not isinstance(got, dict):
        return False
    if "values" in want:
        left = list(got.values())
        for w in want["values"]:
            hit = next((i for i, g in enumerate(left) if value_matches(w, g)), None)
            if hit is None:
                return False
            left.pop(hit)
        return True
    return all(value_matches(w, got.get(k)) for k, w in want.get("args", {}).items())


def read_events(path):
    events = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    events.append(json.loads(line))
    return events


def request_stats(stdout):
    """Per model request: (functions declared, estimated tokens of the retrieved tools, input
    tokens the model server counted) from `request_started` and `usage` events."""
    requests, inputs = [], []
    for line in stdout.splitlines():
        try:
            ev = json.loads(line)
        except json.JSONDecodeError:
            continue
        if ev.get("type") == "request_started":
            retrieved = ev.get("retrieved") or []
            requests.append({"functions": ev.get("tools"),
                             "retrieved": [r.get("function") for r in retrieved],
                             "retrieved_tokens": sum(r.get("tokens", 0) for r in retrieved)})
        elif ev.get("type") == "usage":
            inputs.append(ev.get("input"))
    for r, n in zip(requests, inputs):
        r["input_tokens"] = n
    return requests


def parse_coyote_json(stdout):
    """(answer text, tool-call names as the model wrote them, stop reason, error message)."""
    answer, names, stop, error = [], [], None, None
    for line in stdout.splitlines():
        try:
            ev = json.loads(line)
        except json.JSONDecodeError:
            continue
        t = ev.get("type")
        if t == "text_delta":
            answer.append(ev.get("text", ""))
        elif t == "tool_call_finished":
            names.append(f"{ev.get('name')}:{ev.get('status')}")
        elif t == "turn_finished":
            stop = (ev.get("stop") or {}).get("reason")
            rounds = ev.get("rounds")
            stop = f"{stop}/{rounds}r"
        elif t == "error":
            error = ev.get("message")
    return "".join(answer), names, stop, error


def server_alive(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status == 200
    except OSError:
        return False


def run_task(args, spec, mode, task):
    tdir = os.path.join(args.out, mode, task["id"])
    os.makedirs(tdir, exist_ok=True)
    event_log = os.path.join(tdir, "events.jsonl")
    if os.path.exists(event_log):
        os.remove(event_log)
    scenario = os.path.join(tdir, "scenario.json")
    with open(scenario, "w") as f:
        json.dump(scenario_for(spec, task, event_log), f, indent=2)
    cdir = os.path.join(tdir, "config")
    write_config(cdir, args, spec, mode, scenario)
    env = dict(os.environ, COYOTE_STATE_DIR=os.path.join(tdir, "state"),
               COYOTE_CACHE_DIR=os.path.join(tdir, "cache"), NO_COLOR="1")
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST",
                "COYOTE_CONFIG_DIR"):
        env.pop(var, None)
    cmd = [args.coyote, "--config-dir", cdir, "--json", task["prompt"]]
    t0 = time.monotonic()
    # Own process group, so a timeout kills coyote and the fake server it started.
    with LIVE_LOCK:
        if STOPPING.is_set():
            raise InfraError("stopped")
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
        LIVE.add(proc)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=args.task_timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    finally:
        # Interrupted (SIGTERM from the script's trap): never leave coyote or its server behind.
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        with LIVE_LOCK:
            LIVE.discard(proc)
    secs = time.monotonic() - t0
    if STOPPING.is_set():
        raise InfraError("stopped")
    with open(os.path.join(tdir, "coyote.jsonl"), "w") as f:
        f.write(out)
    with open(os.path.join(tdir, "coyote.stderr"), "w") as f:
        f.write(err)
    if proc.returncode == 2 and not timed_out:
        raise InfraError(f"coyote rejected the setup of {mode}/{task['id']} (exit 2): "
                         f"{err.strip()[-800:]}")
    answer, names, stop, error = parse_coyote_json(out)
    if (error or timed_out) and args.health_url and not server_alive(args.health_url):
        raise InfraError(f"the model server stopped answering {args.health_url} during "
                         f"{mode}/{task['id']}; see llama-server.log")
    events = read_events(event_log)
    if not any(e.get("event") == "started" for e in events) and not timed_out:
        raise InfraError(f"the fake MCP server never started for {mode}/{task['id']}; "
                         f"see {tdir}/coyote.stderr")
    calls = [e for e in events if e.get("event") == "call_tool"]
    missing = [w["tool"] for w in task["calls"] if not any(call_matches(w, c) for c in calls)]
    text = norm(answer)
    absent = [a if isinstance(a, str) else "|".join(a) for a in task["answer"]
              if not any(norm(x) in text for x in ([a] if isinstance(a, str) else a))]
    if timed_out:
        verdict = f"timeout after {args.task_timeout}s"
    elif error:
        verdict = f"error: {error[:120]}"
    elif missing:
        verdict = "no matching call: " + ",".join(missing)
    elif absent:
        verdict = "answer lacks: " + ",".join(absent)
    else:
        verdict = "ok"
    return {"mode": mode, "task": task["id"], "kind": task["kind"], "ok": verdict == "ok",
            "verdict": verdict, "seconds": round(secs, 1), "exit": proc.returncode,
            "stop": stop, "model_calls": names,
            "server_calls": [{"name": c.get("name"), "arguments": c.get("arguments")} for c in calls],
            "requests": request_stats(out),
            "answer": answer.strip()[:400]}


def summary(results, modes):
    lines = ["", "| mode | single-step | multi-step | all | time (s) | input tokens/request |",
             "|---|---|---|---|---|---|"]
    for mode in modes:
        rs = [r for r in results if r["mode"] == mode]
        if not rs:
            continue
        cell = []
        for kind in ("single", "multi", None):
            k = [r for r in rs if kind is None or r["kind"] == kind]
            cell.append(f"{sum(r['ok'] for r in k)}/{len(k)}")
        inputs = [q["input_tokens"] for r in rs for q in r.get("requests", [])
                  if q.get("input_tokens") is not None]
        per_request = f"{sum(inputs) / len(inputs):.0f}" if inputs else "-"
        lines.append(f"| {mode} | {cell[0]} | {cell[1]} | {cell[2]} | "
                     f"{sum(r['seconds'] for r in rs):.0f} | {per_request} |")
    return "\n".join(lines)


def on_term(signum, _frame):
    kill_live()
    raise SystemExit(128 + signum)


def main():
    signal.signal(signal.SIGTERM, on_term)
    ap = argparse.ArgumentParser()
    ap.add_argument("--coyote", required=True)
    ap.add_argument("--fake-mcp", required=True)
    ap.add_argument("--api-base", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--modes", default="direct,meta,auto")
    ap.add_argument("--task-set", default="small", choices=("small", "large"),
                    help="small: tasks.json (8 tools); large: tasks-large.json (250 tools)")
    ap.add_argument("--tasks", default="")
    ap.add_argument("--task-timeout", type=float, default=300)
    ap.add_argument("--max-rounds", type=int, default=6)
    ap.add_argument("--context", type=int, default=8192)
    ap.add_argument("--health-url", default="")
    ap.add_argument("--parallel", type=int, default=1,
                    help="runs in flight at once; the model server needs as many slots")
    args = ap.parse_args()
    name = "tasks.json" if args.task_set == "small" else "tasks-large.json"
    with open(os.path.join(HERE, name)) as f:
        spec = json.load(f)
    if "catalog_file" in spec:
        with open(os.path.join(HERE, spec["catalog_file"])) as f:
            spec["catalog"] = [{k: v for k, v in t.items() if k != "behavior"}
                               for t in json.load(f)["tools"]]
    tasks = spec["tasks"]
    if args.tasks:
        wanted = args.tasks.split(",")
        tasks = [t for t in tasks if t["id"] in wanted]
        if not tasks:
            print(f"e2e-local-llm: no task matches --tasks {args.tasks}", file=sys.stderr)
            return 2
    modes = [m for m in args.modes.split(",") if m]
    bad = [m for m in modes if m not in ("direct", "meta", "auto", "retrieve")]
    if bad:
        print(f"e2e-local-llm: unknown mode(s) {bad}; use direct, meta, auto, retrieve",
              file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    if args.parallel < 1:
        print("e2e-local-llm: --parallel must be at least 1", file=sys.stderr)
        return 2
    # Single-step tasks of every mode first, then the multi-step ones, so that a run cut short
    # still compares the modes on the same tasks. Within a kind, mode by mode: consecutive
    # requests share the tool declarations, and llama-server gives a request the slot whose
    # cached prompt shares the longest prefix with it, so the prompt cache is reused.
    order = [(m, t) for kind in ("single", "multi") for m in modes
             for t in tasks if t["kind"] == kind]
    results = []
    out_lock = threading.Lock()
    with open(os.path.join(args.out, "results.jsonl"), "w") as rf:

        def one(mode, task):
            r = run_task(args, spec, mode, task)
            calls = " ".join(f"{c['name']}{json.dumps(c['arguments'], separators=(',', ':'))}"
                             for c in r["server_calls"]) or "-"
            with out_lock:
                results.append(r)
                rf.write(json.dumps(r) + "\n")
                rf.flush()
                print(f"{mode:6} {task['kind']:6} {task['id']:20} "
                      f"{'PASS' if r['ok'] else 'FAIL'} {r['seconds']:6.1f}s "
                      f"{r['stop'] or '-':14} {r['verdict'][:60]} | calls: {calls[:120]}",
                      flush=True)

        pool = ThreadPoolExecutor(max_workers=args.parallel)
        try:
            futures = [pool.submit(one, m, t) for m, t in order]
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            # The first failure stops the run; `finally` kills the runs still in flight.
            failed = next((f.exception() for f in done if f.exception()), None)
            if failed is not None:
                raise failed
        except InfraError as e:
            print(f"e2e-local-llm: {e}", file=sys.stderr)
            return 2
        finally:
            kill_live()
            pool.shutdown(wait=True, cancel_futures=True)
    rank = {(m, t["id"]): i for i, (m, t) in enumerate(order)}
    results.sort(key=lambda r: rank[(r["mode"], r["task"])])
    table = summary(results, modes)
    print(table)
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
