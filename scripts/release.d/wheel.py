#!/usr/bin/env python3
"""Build a binary-only wheel (the layout maturin's `bindings = "bin"` produces): the executable
under NAME-VERSION.data/scripts/, which pip, pipx and uv install as a command on PATH, plus the
.dist-info (METADATA, WHEEL, RECORD, the licence). Reproducible: sorted entries, one fixed
timestamp (SOURCE_DATE_EPOCH, clamped to 1980), fixed modes.

Usage: wheel.py --binary PATH --name DIST --version V --tag PLATFORM_TAG --out DIR
                --summary TEXT --license FILE [--license FILE...] --readme FILE [--homepage URL]
Prints the wheel's path.
"""
import argparse
import base64
import hashlib
import os
import re
import sys
import time
import zipfile


def main():
    p = argparse.ArgumentParser(usage=__doc__)
    for opt in ("--binary", "--name", "--version", "--tag", "--out", "--summary", "--readme"):
        p.add_argument(opt, required=True)
    p.add_argument("--license", action="append", required=True)
    p.add_argument("--homepage")
    a = p.parse_args()
    if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?", a.name):
        sys.exit(f"wheel.py: '{a.name}' is not a valid distribution name (PEP 508)")
    norm = re.sub(r"[-_.]+", "_", a.name).lower()
    epoch = max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)
    stamp = time.gmtime(epoch)[:6]
    exe = os.path.basename(a.binary)
    data, info = f"{norm}-{a.version}.data", f"{norm}-{a.version}.dist-info"

    with open(a.readme, encoding="utf-8") as f:
        readme = f.read()
    meta = [
        "Metadata-Version: 2.1",
        f"Name: {a.name}",
        f"Version: {a.version}",
        f"Summary: {a.summary}",
        "License: Apache-2.0",
        "Classifier: License :: OSI Approved :: Apache Software License",
        "Classifier: Programming Language :: Rust",
        "Classifier: Environment :: Console",
    ]
    if a.homepage:
        meta += [f"Home-page: {a.homepage}", f"Project-URL: Source, {a.homepage}"]
    meta += ["Description-Content-Type: text/markdown", "", readme]
    wheel = ["Wheel-Version: 1.0", "Generator: coyote scripts/release", "Root-Is-Purelib: false",
             f"Tag: py3-none-{a.tag}", ""]

    entries = []  # (archive path, bytes, mode)
    with open(a.binary, "rb") as f:
        entries.append((f"{data}/scripts/{exe}", f.read(), 0o755))
    for lic in a.license:
        with open(lic, "rb") as f:
            entries.append((f"{info}/licenses/{os.path.basename(lic)}", f.read(), 0o644))
    entries.append((f"{info}/METADATA", "\n".join(meta).encode(), 0o644))
    entries.append((f"{info}/WHEEL", "\n".join(wheel).encode(), 0o644))
    entries.sort(key=lambda e: e[0])
    record = []
    for path, body, _ in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(body)}")
    record.append(f"{info}/RECORD,,")
    entries.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))

    os.makedirs(a.out, exist_ok=True)
    out = os.path.join(a.out, f"{norm}-{a.version}-py3-none-{a.tag}.whl")
    with zipfile.ZipFile(out, "w") as z:
        for path, body, mode in entries:
            zi = zipfile.ZipInfo(path, date_time=stamp)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = (0o100000 | mode) << 16
            zi.create_system = 3  # Unix, so the modes above are read
            z.writestr(zi, body, compresslevel=9)
    print(out)


main()
