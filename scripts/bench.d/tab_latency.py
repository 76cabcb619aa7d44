#!/usr/bin/env python3
"""Tab latency in the REPL, measured in a pty: enters a partial dot-command, waits GAP ms after
its last byte, writes Tab and times from that write to the first byte coyote writes back (the
first redraw). The default completion (`.mcp restart s` -> the configured servers) is local
data: no server call. Prints one JSON line: median/min/max in ms per gap.

Modes (how the line arrives): `typed` — one key every 30 ms (a fast typist); `paste` — one
bracketed paste; `burst` — every key in one unbracketed write (tmux send-keys, keys typed ahead
while the editor was busy). The harness answers the terminal queries the REPL makes (cursor
position, device attributes, background colour) like a terminal would.

Usage: tab_latency.py [--runs N] [--gaps 0,20,40,60,200] [--mode typed|paste|burst] [--text '.mcp restart s'] [--expect TEXT] -- COYOTE [ARGS...]

completed_* is the time until TEXT has been drawn (default: the end of the redraw, ESC[?25h).

COYOTE is started once per run with a fresh pty (80x24, TERM=xterm-256color, NO_COLOR unset);
the REPL must come up without a model question (give it a config with a model).
"""
import json
import os
import pty
import select
import statistics
import struct
import sys
import termios
import fcntl
import time

PROMPT = b"> "
KEY_INTERVAL = 0.03
ROWS, COLS = 24, 80


class Term:
    """Answers what a terminal would: the cursor position report (ESC[6n, from a rough row
    count: lines written so far, capped at the screen), the device attributes (ESC[c) and the
    background colour (OSC 11), so the REPL never waits for its query timeouts; and, like a
    terminal, brackets a paste only when the application enabled bracketed paste (?2004h)."""

    def __init__(self, fd):
        self.fd = fd
        self.row = 1
        self.tail = b""
        self.bracketed_paste = False  # DECSET 2004, as the application last set it

    def feed(self, data):
        buf = self.tail + data
        for b in data:
            if b == 0x0A:
                self.row = min(ROWS, self.row + 1)
        i = 0
        while True:
            j = buf.find(b"\x1b", i)
            if j < 0:
                self.tail = b""
                break
            rest = buf[j:j + 32]
            if rest.startswith(b"\x1b[6n"):
                os.write(self.fd, b"\x1b[%d;1R" % self.row)
                i = j + 4
            elif rest.startswith(b"\x1b[c"):
                os.write(self.fd, b"\x1b[?1;2c")
                i = j + 3
            elif rest.startswith(b"\x1b[?2004h") or rest.startswith(b"\x1b[?2004l"):
                self.bracketed_paste = rest[7:8] == b"h"
                i = j + 8
            elif rest.startswith(b"\x1b]11;?"):
                os.write(self.fd, b"\x1b]11;rgb:0000/0000/0000\x1b\\")
                i = j + 7
            elif len(rest) < 8 and j + len(rest) == len(buf):
                self.tail = rest  # a query cut at the end of this read
                break
            else:
                i = j + 1
        return data

    def read(self, n=65536):
        return self.feed(os.read(self.fd, n))


def read_until(term, needle, deadline):
    """Reads until `needle` appears in what was read; returns the bytes read."""
    fd = term.fd
    seen = b""
    while needle not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no {needle!r} within the deadline; got {seen[-300:]!r}")
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                chunk = term.read()
            except OSError:
                raise TimeoutError(f"pty closed; got {seen[-300:]!r}")
            if not chunk:
                raise TimeoutError(f"pty closed; got {seen[-300:]!r}")
            seen += chunk
    return seen


def drain(term, quiet_s):
    """Reads until nothing arrives for quiet_s seconds."""
    fd = term.fd
    while True:
        r, _, _ = select.select([fd], [], [], quiet_s)
        if not r:
            return
        try:
            if not term.read():
                return
        except OSError:
            return


def one_run(argv, text, gap_s, expect, mode):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ.pop("NO_COLOR", None)
        os.execvp(argv[0], argv)
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        term = Term(fd)
        read_until(term, PROMPT, time.monotonic() + 60)
        drain(term, 0.3)
        # The line, then the gap after its last byte, then Tab.
        if mode == "typed":  # one key at a time, KEY_INTERVAL apart (a fast typist)
            for ch in text.encode():
                os.write(fd, bytes([ch]))
                time.sleep(KEY_INTERVAL)
        elif mode == "paste":  # a terminal's paste: bracketed when the application asked for it
            if term.bracketed_paste:
                os.write(fd, b"\x1b[200~" + text.encode() + b"\x1b[201~")
            else:
                os.write(fd, text.encode())
        else:  # "burst": every key in one write, unbracketed (tmux send-keys, typeahead)
            os.write(fd, text.encode())
        # Everything the keys drew is read before the gap ends, so only the Tab's redraw counts.
        end = time.monotonic() + gap_s
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            r, _, _ = select.select([fd], [], [], left)
            if r:
                term.read()
        r, _, _ = select.select([fd], [], [], 0)
        if r:
            term.read()
        t0 = time.monotonic()
        os.write(fd, b"\t")
        r, _, _ = select.select([fd], [], [], 10)
        if not r:
            raise TimeoutError("no redraw within 10 s of Tab")
        first = time.monotonic() - t0
        if expect is None:
            return first, first
        seen = term.read()
        if expect.encode() not in seen:
            read_until(term, expect.encode(), time.monotonic() + 10)
        return first, time.monotonic() - t0
    finally:
        try:
            os.write(fd, b"\x15\x04")  # Ctrl-U, Ctrl-D: leave the REPL
            drain(Term(fd), 0.5)
        except OSError:
            pass
        try:
            os.kill(pid, 15)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)


def main():
    args = sys.argv[1:]
    # The end of a redraw: reedline shows the cursor again last.
    runs, gaps, text, expect, mode = 5, [0, 20, 40, 60, 200], ".mcp restart s", "\x1b[?25h", "typed"
    while args and args[0] != "--":
        opt = args.pop(0)
        if opt == "--runs":
            runs = int(args.pop(0))
        elif opt == "--gaps":
            gaps = [int(g) for g in args.pop(0).split(",")]
        elif opt == "--text":
            text = args.pop(0)
        elif opt == "--mode":
            mode = args.pop(0)
        elif opt == "--expect":
            expect = args.pop(0)
        else:
            sys.exit(__doc__)
    if not args or len(args) < 2:
        sys.exit(__doc__)
    argv = args[1:]
    report = {"text": text, "mode": mode, "runs": runs, "gaps": {}}
    for gap in gaps:
        pairs = [one_run(argv, text, gap / 1000, expect, mode) for _ in range(runs)]
        firsts = sorted(p[0] * 1000 for p in pairs)
        dones = sorted(p[1] * 1000 for p in pairs)
        report["gaps"][str(gap)] = {
            "median_ms": statistics.median(firsts),
            "min_ms": firsts[0],
            "max_ms": firsts[-1],
            "completed_median_ms": statistics.median(dones),
            "completed_max_ms": dones[-1],
        }
    print(json.dumps(report))


main()
