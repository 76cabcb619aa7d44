#!/usr/bin/env python3
"""The code sections a *native* run touched first, from its page faults: scripts/link-order's
second step, after callgrind. callgrind misses code a native run executes — valgrind's CPU
lacks some extensions (sha2 then takes its portable path, not the SHA-NI one), it lacks some
system calls (tokio then reaps children without pidfd), and it runs ~50x slower, which changes
which timers and background tasks fire. Such code lies outside the start-up section, and each
fault on it maps a whole fault-around window (64 KiB or more) of code that does not run.

This reads a `perf record -e page-faults -c 1 -d` recording of BINARY (which must be the
binary MAP describes, stripped or not), keeps the faults whose address is in BINARY's code,
and prints the input section of each, in fault order, once. A fault names one section per
window (the kernel maps the rest of the window with it), so link-order adds what this prints
to the run's callgrind list, links again and repeats: each pass brings the next ones.

Usage: fault_sections.py MAP BINARY PERF.DATA   (section names on stdout)
"""
import bisect
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from map_order import text_sections  # noqa: E402  (the same reading of an lld map)

MMAP = re.compile(r"\[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ 0x([0-9a-f]+) [^\]]*\]: r-xp (\S+)")


def load_segments(binary):
    """(file offset, virtual address, file size) of each PT_LOAD of binary."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout
    return [(int(f[1], 16), int(f[2], 16), int(f[4], 16))
            for f in (line.split() for line in out.splitlines()) if f and f[0] == "LOAD"]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    map_path, binary, data = sys.argv[1:]
    sections = [s for s in text_sections(map_path) if s[2]]
    if not sections:
        sys.exit(f"{map_path}: no text input sections (not an lld map?)")
    starts = [s[0] for s in sections]
    loads = load_segments(binary)
    script = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events", "-F", "pid,ip,addr"],
                            capture_output=True, text=True, check=True).stdout
    # The code mapping of the binary in each process of the recording (pid -> start, size, offset).
    texts, seen = {}, set()
    for line in script.splitlines():
        m = MMAP.search(line)
        if m and m.group(4).endswith("/" + binary.rsplit("/", 1)[-1]):
            texts[line.split()[0]] = (int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16))
            continue
        fields = line.split()
        if len(fields) < 3 or fields[0] not in texts:
            continue
        try:
            addr = int(fields[1], 16)  # with -d, the faulting data address comes first
        except ValueError:
            continue
        start, size, offset = texts[fields[0]]
        if not start <= addr < start + size:
            continue
        file_offset = addr - start + offset
        vaddr = next((v + file_offset - o for o, v, fs in loads if o <= file_offset < o + fs), None)
        if vaddr is None:
            continue
        i = bisect.bisect_right(starts, vaddr) - 1
        if i >= 0 and sections[i][0] <= vaddr < sections[i][1] and sections[i][2] not in seen:
            seen.add(sections[i][2])
            print(sections[i][2])


main()
