#!/usr/bin/env python3
"""Prints the markdown table of scripts/bench from RESULTS.jsonl.

Each line: {"section", "name", "metric", "value", "unit", "peer_of"?, "note"?}. One table row
per (section, metric): the coyote value (the row without `peer_of`), then every peer with its
value and the ratio peer / coyote (> 1 means coyote is faster or smaller).
Usage: summarize.py RESULTS.jsonl
"""
import json
import sys


def fmt(value, unit):
    if value is None:
        return "n/a"
    if unit == "s":
        return f"{value * 1000:.0f} ms" if value >= 0.01 else f"{value * 1000:.2f} ms"
    if unit == "us":
        return f"{value:.0f} µs"
    if unit == "ns":
        return f"{value / 1000:.2f} µs" if value >= 1000 else f"{value:.0f} ns"
    if unit == "KiB":
        return f"{value / 1024:.1f} MiB"
    if unit == "B":
        return f"{value:,.0f} B"
    return f"{value:g} {unit}"


def with_note(text, row):
    return f"{text} ({row['note']})" if row.get("note") else text


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    groups = {}
    for r in rows:
        groups.setdefault((r["section"], r["metric"]), []).append(r)
    print("| benchmark | metric | coyote | peers (ratio peer / coyote) |")
    print("| --- | --- | --- | --- |")
    for (section, metric), members in groups.items():
        base = next((r for r in members if not r.get("peer_of")), None)
        coyote = with_note(f"{base['name']}: **{fmt(base['value'], base['unit'])}**", base) if base else ""
        peers = []
        for r in members:
            if r is base:
                continue
            text = f"{r['name']}: {fmt(r['value'], r['unit'])}"
            if base and base.get("value") and r.get("value") is not None:
                text += f" **{r['value'] / base['value']:.2f}×**"
            peers.append(with_note(text, r))
        print(f"| {section} | {metric} | {coyote} | {'; '.join(peers)} |")


if __name__ == "__main__":
    main()
