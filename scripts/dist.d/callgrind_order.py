#!/usr/bin/env python3
"""Writes a linker symbol-ordering file from callgrind outputs (run with --demangle=no): every
function that executed, in first-seen order, the first file's functions first.

Usage: callgrind_order.py ORDER_FILE CALLGRIND_OUT...
"""
import re
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    seen, order = set(), []
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                # A function is named once as `fn=(id) name` (or `cfn=` when first seen as a
                # callee); `'N` suffixes mark recursion levels of the same symbol.
                m = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
                if not m:
                    continue
                name = re.sub(r"'\d+$", "", m.group(1))
                if not name.startswith("0x") and name not in seen:
                    seen.add(name)
                    order.append(name)
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        f.write("\n".join(order) + "\n")
    print(f"{len(order)} executed functions -> {sys.argv[1]}", file=sys.stderr)


main()
