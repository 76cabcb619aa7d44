#!/usr/bin/env bash
# Build the small distribution binary of coolify-mcp (Linux x86_64, glibc):
#
#   crates/coolify-mcp/scripts/build-small.sh        # -> target/<profile>/coolify-mcp
#
# What makes it small, each measured in docs/benchmarks.md (coolify section):
#   1. profile: opt-level "s", fat LTO, one codegen unit (passed with --config, so the
#      workspace's release profile, which every other binary uses, is untouched);
#   2. linking: static and non-PIE (-C target-feature=+crt-static -C relocation-model=static,
#      final crate only): no ld.so, no shared libc/libm/libgcc_s mappings, no start-up
#      relocations of .data.rel.ro;
#   3. function order (two passes, like PGO): pass 1 is linked with symbols and run under
#      valgrind's callgrind for one probe session against coolify-fixture (initialize, the four
#      lists, close); every function it executed is written to an order file, and pass 2 is linked
#      with `--symbol-ordering-file` (rust-lld, the default linker of x86_64-unknown-linux-gnu
#      since Rust 1.90), so start-up code shares a few contiguous pages instead of being spread
#      over the whole text (the kernel maps file pages 64 KiB around each fault).
#      Without valgrind the order step is skipped (the binary is then only 1 + 2).
#
# The order file names mangled symbols of exactly this build, so it is regenerated every time
# and never committed. Static glibc note: getaddrinfo in a static binary still loads the NSS
# modules of the host glibc for anything beyond files/dns; hosts resolved through plain DNS or
# /etc/hosts work. Env: PROFILE (default dist-small).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PROFILE="${PROFILE:-dist-small}"
OUT="$ROOT/target/$PROFILE"
WORK="$ROOT/target/$PROFILE-work"
mkdir -p "$WORK"
log() { printf '== %s\n' "$*" >&2; }

profile=(
  --config "profile.$PROFILE.inherits=\"release\""
  --config "profile.$PROFILE.opt-level=\"s\""
  --config "profile.$PROFILE.lto=\"fat\""
  --config "profile.$PROFILE.codegen-units=1"
  --profile "$PROFILE"
)
static=(-C target-feature=+crt-static -C relocation-model=static)

build() { # extra rustc flags for the final crate...
  (cd "$ROOT" && cargo rustc -p coolify-mcp --bin coolify-mcp "${profile[@]}" -- "${static[@]}" "$@")
}

if ! command -v valgrind >/dev/null; then
  log "valgrind not found: building without a function order"
  build
  log "built $OUT/coolify-mcp"
  exit 0
fi

log "pass 1: linked with symbols, for callgrind"
build -C strip=none
cp "$OUT/coolify-mcp" "$WORK/coolify-mcp.pass1"
# The fixture in the same profile: its dependencies are already built there, and the profile's
# own lock is not shared with other release builds.
(cd "$ROOT" && cargo build -p coolify-fixture --bin coolify-fixture "${profile[@]}")

log "callgrind over one probe session against coolify-fixture"
token="fixture-token-not-a-real-credential"
"$OUT/coolify-fixture" --no-stdin --token "$token" >"$WORK/fixture.url" 2>/dev/null &
fixture_pid=$!
trap 'kill "$fixture_pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [[ -s "$WORK/fixture.url" ]] && break; sleep 0.1; done
COOLIFY_BASE_URL="$(head -n1 "$WORK/fixture.url")" COOLIFY_ACCESS_TOKEN="$token" \
  python3 - "$WORK" <<'EOF'
import json, re, subprocess, sys

work = sys.argv[1]
out = f"{work}/callgrind.out"
proc = subprocess.Popen(
    ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}",
     f"{work}/coolify-mcp.pass1"],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

def rpc(msg_id, method, params):
    proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method,
                                  "params": params}) + "\n").encode())
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            sys.exit(f"coolify-mcp closed stdout while waiting for {method}")
        reply = json.loads(line)
        if reply.get("id") == msg_id and "method" not in reply:
            if "error" in reply:
                sys.exit(f"{method} failed: {reply['error']}")
            return

rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "build-small", "version": "0"}})
proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
proc.stdin.flush()
for i, method in enumerate(["tools/list", "prompts/list", "resources/list",
                            "resources/templates/list"]):
    rpc(2 + i, method, {})
proc.stdin.close()
proc.wait(timeout=120)

# Every function with a cost is named once as `fn=(id) name` (or `cfn=` when first seen as a
# callee); `'N` suffixes mark recursion levels of the same symbol.
seen, order = set(), []
for line in open(out):
    m = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
    if m:
        name = re.sub(r"'\d+$", "", m.group(1))
        if not name.startswith("0x") and name not in seen:
            seen.add(name)
            order.append(name)
with open(f"{work}/symbol-order.txt", "w") as f:
    f.write("\n".join(order) + "\n")
print(f"{len(order)} executed functions", file=sys.stderr)
EOF

log "pass 2: start-up functions first"
if ! build -C "link-arg=-Wl,--symbol-ordering-file=$WORK/symbol-order.txt" \
  -C link-arg=-Wl,--no-warn-symbol-ordering; then
  # Only lld knows --symbol-ordering-file; a GNU ld setup still gets steps 1 and 2.
  log "the linker refused the order file (not lld?): building without it"
  build
fi
log "built $OUT/coolify-mcp"
