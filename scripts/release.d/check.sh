#!/usr/bin/env bash
# scripts/release.d/check.sh — the checks of scripts/release's output (run by
# `scripts/release --check`, which makes both directories; usable alone on a finished one):
#
#   scripts/release.d/check.sh OUT [OUT2]
#
#   1. reproducible: OUT2 (a second run) holds the same files with the same bytes;
#      SHA256SUMS verifies (sha256sum -c).
#   2. archives: each NAME-V-TARGET.tar.gz has one top directory with the binary, LICENSE,
#      README.md, man/man1/NAME.1 (coyote: also coyote-mcp.1 and the bash/zsh/fish completions),
#      entries sorted, owned 0:0, one mtime; a copy without its man page must FAIL this check.
#      Then the archive way: sha256sum -c, tar x, `coyote --version`, `man -w` on the unpacked
#      man/, bash completion of `coyote mc<TAB>` from completions/coyote.bash, and
#      `coyote mcp servers` with the unpacked coolify-mcp configured (state ready, tools > 0).
#   3. cargo binstall: [package.metadata.binstall] of crates/cli and crates/coolify-mcp,
#      with { version } { target } … filled in, names an archive of OUT and a binary inside it.
#   4. .deb (Linux): the files each package must carry (dpkg-deb -c); a copy without the man page
#      must FAIL. As root (CI): dpkg -i both, `coyote --version`, `man -w coyote`, bash
#      completion of `coyote mc<TAB>` from /usr/share/bash-completion/completions/coyote,
#      `coyote mcp servers` against /usr/bin/coolify-mcp, then dpkg -r: both packages gone and
#      every file they installed removed. Not root: the install part is skipped, loudly.
#   5. npm: `npm install --prefix DIR --offline ./LAUNCHER.tgz ./PLATFORM.tgz` (no registry),
#      `npx coolify-mcp --version`, an MCP initialize over stdio through npx, and
#      `coyote mcp servers` with `npx --offline --prefix DIR coolify-mcp` as the server command.
#   6. PyPI: a venv, `pip install --no-index WHEEL`, `coolify-mcp --version`, initialize,
#      `coyote mcp servers` with the venv's coolify-mcp; when uv is on PATH the same through
#      `uvx --offline --from WHEEL coolify-mcp` (scripts/test installs uv into .tools/uv).
#   7. no placeholder (example.invalid, example.com, TODO, …) in the .deb control fields, the npm
#      package.json files or the wheel's METADATA headers.
# Every process started binds nothing (stdio only); the Coolify URL given to coolify-mcp is
# 127.0.0.1 and never contacted. Prints the time each way took from its artefact to a working
# `coyote mcp servers`. Exits non-zero at the first failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0; }
OUT="$(cd "${1:?usage: check.sh OUT [OUT2]}" && pwd)"
OUT2="${2:-}"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/release-check.XXXXXX")"
INSTALLED_DEBS=()
cleanup() {
  if ((${#INSTALLED_DEBS[@]})); then
    dpkg -r "${INSTALLED_DEBS[@]}" >/dev/null 2>&1 || true
  fi
  rm -rf "$SCRATCH"
}
trap cleanup EXIT
ok() { printf '  ok   %s\n' "$*"; }
die() { printf '  FAIL %s\n' "$*" >&2; exit 1; }
section() { printf '\n== %s\n' "$*"; }
TIMES=()
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# coyote sees nothing of the user's own configuration, cache or state.
export HOME="$SCRATCH/home" XDG_CONFIG_HOME="$SCRATCH/home/.config" XDG_STATE_HOME="$SCRATCH/home/.state" \
  XDG_CACHE_HOME="$SCRATCH/home/.cache" COYOTE_CACHE_DIR="$SCRATCH/home/.cache/coyote"
mkdir -p "$HOME"
export UV_CACHE_DIR="$SCRATCH/uv-cache" UV_NO_PROGRESS=1
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
export COOLIFY_BASE_URL="http://127.0.0.1:9" COOLIFY_ACCESS_TOKEN="release-check-not-a-token"

shopt -s nullglob
ARCHIVES=("$OUT"/*.tar.gz)
DEBS=("$OUT"/*.deb)
NPM_TGZ=("$OUT"/npm/*.tgz)
WHEELS=("$OUT"/pypi/*.whl)
((${#ARCHIVES[@]} == 2)) || die "want 2 archives in $OUT, found ${#ARCHIVES[@]}"

# ---- 1. reproducibility and checksums ---------------------------------------------------------
section "reproducible, SHA256SUMS"
if [[ -n "$OUT2" ]]; then
  diff <(cd "$OUT" && find . -type f | LC_ALL=C sort) <(cd "$OUT2" && find . -type f | LC_ALL=C sort) >/dev/null ||
    die "the two runs wrote different file sets"
  while IFS= read -r f; do
    cmp -s "$OUT/$f" "$OUT2/$f" || die "$f differs between two runs"
  done < <(cd "$OUT" && find . -type f -printf '%P\n' | LC_ALL=C sort)
  ok "two runs: $(cd "$OUT" && find . -type f | wc -l) files, byte-identical"
fi
(cd "$OUT" && sha256sum --quiet -c SHA256SUMS) || die "SHA256SUMS does not verify"
[[ "$(wc -l <"$OUT/SHA256SUMS")" == "$(cd "$OUT" && find . -type f ! -name SHA256SUMS | wc -l)" ]] ||
  die "SHA256SUMS does not list every artefact"
ok "SHA256SUMS verifies and lists all $(wc -l <"$OUT/SHA256SUMS") artefacts"

# ---- 2. archives ------------------------------------------------------------------------------
section "archives"
# check_archive FILE: the entries it must have, sorted, 0:0, one mtime. Prints the reason and
# returns 1 when something is wrong.
check_archive() {
  local file="$1" base top bin listing names want missing=()
  base="$(basename "$file" .tar.gz)"
  bin="${base%%-[0-9]*}"
  listing="$(tar --numeric-owner -tvzf "$file")" || { echo "cannot list $file"; return 1; }
  names="$(tar -tzf "$file")"
  top="$(cut -d/ -f1 <<<"$names" | sort -u)"
  [[ "$top" == "$base" ]] || { echo "$file: top directory '$top', want '$base'"; return 1; }
  want=("$bin" LICENSE README.md "man/man1/$bin.1")
  [[ "$bin" == coyote ]] && want+=(man/man1/coyote-mcp.1 man/man1/coyote-mcp-servers.1
    completions/coyote.bash completions/_coyote completions/coyote.fish)
  [[ "$bin" == coolify-mcp ]] && want+=(THIRD-PARTY.md)
  local w
  for w in "${want[@]}"; do
    grep -qxF "$base/$w" <<<"$names" || missing+=("$w")
  done
  ((${#missing[@]} == 0)) || { echo "$file: missing ${missing[*]}"; return 1; }
  awk '$2 != "0/0" { bad = 1 } END { exit bad }' <<<"$listing" ||
    { echo "$file: an entry not owned by 0/0"; return 1; }
  [[ "$(awk '{ print $4, $5 }' <<<"$listing" | sort -u | wc -l)" == 1 ]] ||
    { echo "$file: entries with different mtimes"; return 1; }
  diff <(printf '%s\n' "$names") <(printf '%s\n' "$names" | LC_ALL=C sort) >/dev/null ||
    { echo "$file: entries not sorted"; return 1; }
  grep -q "^-rwxr-xr-x .* $base/$bin\$" <<<"$listing" || { echo "$file: $bin is not mode 0755"; return 1; }
}
for a in "${ARCHIVES[@]}"; do
  reason="$(check_archive "$a")" || die "$reason"
  ok "$(basename "$a"): $(tar -tzf "$a" | wc -l) entries, $(du -h "$a" | cut -f1)"
done
# The check must bite: the coyote archive without its man page.
COYOTE_ARCHIVE="$(printf '%s\n' "${ARCHIVES[@]}" | grep '/coyote-')"
COOLIFY_ARCHIVE="$(printf '%s\n' "${ARCHIVES[@]}" | grep '/coolify-mcp-')"
mkdir -p "$SCRATCH/broken"
tar -xzf "$COYOTE_ARCHIVE" -C "$SCRATCH/broken"
rm "$SCRATCH/broken/$(basename "$COYOTE_ARCHIVE" .tar.gz)/man/man1/coyote.1"
tar --sort=name --owner=0 --group=0 --numeric-owner -C "$SCRATCH/broken" -czf "$SCRATCH/$(basename "$COYOTE_ARCHIVE")" \
  "$(basename "$COYOTE_ARCHIVE" .tar.gz)"
if reason="$(check_archive "$SCRATCH/$(basename "$COYOTE_ARCHIVE")")"; then
  die "an archive without man/man1/coyote.1 passed the archive check"
fi
[[ "$reason" == *"missing man/man1/coyote.1"* ]] || die "the archive without coyote.1 was rejected for another reason: $reason"
ok "an archive without coyote.1 is rejected ($reason)"
rm -rf "$SCRATCH/broken" "$SCRATCH/$(basename "$COYOTE_ARCHIVE")"

# bash_complete FILE COYOTE_DIR: the completions of `coyote mc<TAB>` with FILE sourced; the
# function is the one `complete -p coyote` names after sourcing.
bash_complete() {
  PATH="$2:$PATH" bash --norc --noprofile -c '
    source "$1" || exit 1
    fn="$(complete -p coyote | sed -n "s/.*-F \([^ ]*\) .*/\1/p")"
    [[ -n "$fn" ]] || { echo "no completion function for coyote" >&2; exit 1; }
    COMP_WORDS=(coyote mc); COMP_CWORD=1; COMP_LINE="coyote mc"; COMP_POINT=${#COMP_LINE}
    "$fn" coyote mc coyote
    echo "${COMPREPLY[*]}"' bash "$1"
}
# servers_ready COYOTE CONFIG_DIR: `coyote mcp servers` reports the coolify server ready with tools.
servers_ready() {
  local json
  json="$("$1" --config-dir "$2" mcp servers --json)" || return 1
  jq -e '.[] | select(.name == "coolify") | .state == "ready" and .counts.tools > 0' <<<"$json" >/dev/null ||
    { echo "coyote mcp servers: $json" >&2; return 1; }
}
# mcp_config DIR COMMAND [ARGS...]: DIR/mcp.json with the coolify server run as COMMAND ARGS.
mcp_config() {
  local dir="$1" cmd="$2"
  shift 2
  mkdir -p "$dir"
  local args='[]'
  (($#)) && args="$(printf '%s\n' "$@" | jq -R . | jq -sc .)"
  jq -n --arg cmd "$cmd" --argjson args "$args" '{mcpServers: {coolify: {command: $cmd, args: $args,
      env: {COOLIFY_BASE_URL: "http://127.0.0.1:9", COOLIFY_ACCESS_TOKEN: "release-check-not-a-token"}}}}' \
    >"$dir/mcp.json"
}

t0="$(now)"
A="$SCRATCH/archive"
mkdir -p "$A"
(cd "$OUT" && sha256sum --quiet -c --ignore-missing SHA256SUMS)
tar -xzf "$COYOTE_ARCHIVE" -C "$A"
tar -xzf "$COOLIFY_ARCHIVE" -C "$A"
CY="$A/$(basename "$COYOTE_ARCHIVE" .tar.gz)"
CM="$A/$(basename "$COOLIFY_ARCHIVE" .tar.gz)"
mcp_config "$SCRATCH/cfg-archive" "$CM/coolify-mcp"
servers_ready "$CY/coyote" "$SCRATCH/cfg-archive" || die "archive: coyote mcp servers"
TIMES+=("archives (sha256sum -c, tar x both, coyote mcp servers): $(since "$t0") s")
ok "archive: coyote mcp servers ready with the archive's coolify-mcp ($(since "$t0") s)"
VERSION_LINE="$("$CY/coyote" --version)"
[[ "$VERSION_LINE" == "coyote "* ]] || die "archive: coyote --version said '$VERSION_LINE'"
ok "archive: $VERSION_LINE; $("$CM/coolify-mcp" --version 2>&1)"
[[ "$(MANPATH="$CY/man" man -w coyote)" == "$CY/man/man1/coyote.1" ]] || die "archive: man -w coyote"
[[ "$(MANPATH="$CM/man" man -w coolify-mcp)" == "$CM/man/man1/coolify-mcp.1" ]] || die "archive: man -w coolify-mcp"
ok "archive: MANPATH=…/man man -w coyote / coolify-mcp find the pages"
words="$(bash_complete "$CY/completions/coyote.bash" "$CY")" || die "archive: bash completion"
[[ " $words " == *" mcp "* ]] || die "archive: coyote mc<TAB> gave '$words', no mcp"
ok "archive: bash completion of 'coyote mc<TAB>' -> $words"
VERSION="$(sed 's/^coyote //' <<<"$VERSION_LINE")"

# ---- 3. cargo binstall ------------------------------------------------------------------------
section "cargo binstall metadata"
for crate in crates/cli crates/coolify-mcp; do
  resolved="$(python3 - "$ROOT/$crate/Cargo.toml" "$VERSION" <<'PY'
import sys, tomllib, re
path, version = sys.argv[1], sys.argv[2]
with open(path, "rb") as f:
    pkg = tomllib.load(f)["package"]
meta = pkg.get("metadata", {}).get("binstall")
if not meta:
    sys.exit(f"{path}: no [package.metadata.binstall]")
if meta.get("pkg-fmt") != "tgz":
    sys.exit(f"{path}: pkg-fmt is {meta.get('pkg-fmt')!r}, want 'tgz'")
bins = "coyote" if path.endswith("/crates/cli/Cargo.toml") else "coolify-mcp"
values = {"name": pkg["name"], "version": version, "target": "x86_64-unknown-linux-gnu",
          "archive-suffix": ".tar.gz", "archive-format": "tgz", "binary-ext": "", "bin": bins,
          "repo": "REPO"}
def fill(t):
    out = re.sub(r"\{ *([a-z-]+) *\}", lambda m: values[m.group(1)], t)
    if "{" in out:
        sys.exit(f"{path}: unresolved placeholder in {t}")
    return out
url, bindir = fill(meta["pkg-url"]), fill(meta["bin-dir"])
if not url.startswith("REPO/releases/download/v"):
    sys.exit(f"{path}: pkg-url {meta['pkg-url']} is not under {{ repo }}/releases/download/v{{ version }}/")
print(url.rsplit("/", 1)[1], bindir)
PY
)" || die "binstall: $crate"
  read -r file bindir <<<"$resolved"
  target="$(basename "$COYOTE_ARCHIVE" .tar.gz)"
  target="${target#coyote-"$VERSION"-}"
  file="${file//x86_64-unknown-linux-gnu/$target}" bindir="${bindir//x86_64-unknown-linux-gnu/$target}"
  [[ -f "$OUT/$file" ]] || die "binstall: $crate's pkg-url names $file, which scripts/release does not write"
  grep -qxF "$bindir" <<<"$(tar -tzf "$OUT/$file")" || die "binstall: $crate's bin-dir $bindir is not in $file"
  ok "$crate: pkg-url -> $file, bin-dir -> $bindir"
done

# ---- 4. Debian packages -----------------------------------------------------------------------
# check_deb FILE: the files the package must carry.
check_deb() {
  local file="$1" pkg listing w missing=()
  pkg="$(dpkg-deb -f "$file" Package)"
  listing="$(dpkg-deb -c "$file" | awk '{ print $6 }')"
  local want=("./usr/bin/$pkg" "./usr/share/man/man1/$pkg.1.gz" "./usr/share/doc/$pkg/copyright")
  [[ "$pkg" == coyote ]] && want+=(./usr/share/man/man1/coyote-mcp.1.gz
    ./usr/share/bash-completion/completions/coyote ./usr/share/zsh/vendor-completions/_coyote
    ./usr/share/fish/vendor_completions.d/coyote.fish)
  [[ "$pkg" == coolify-mcp ]] && want+=(./usr/share/doc/coolify-mcp/README.md.gz)
  for w in "${want[@]}"; do
    grep -qxF "$w" <<<"$listing" || missing+=("$w")
  done
  ((${#missing[@]} == 0)) || { echo "$file: missing ${missing[*]}"; return 1; }
  dpkg-deb -c "$file" | awk '$2 != "root/root" { bad = 1 } END { exit bad }' || { echo "$file: not root/root"; return 1; }
  [[ -n "$(dpkg-deb -f "$file" Maintainer)" && -n "$(dpkg-deb -f "$file" Description)" ]] ||
    { echo "$file: no Maintainer or Description"; return 1; }
}
if ((${#DEBS[@]})); then
  section ".deb"
  ((${#DEBS[@]} == 2)) || die "want 2 .deb files, found ${#DEBS[@]}"
  for d in "${DEBS[@]}"; do
    reason="$(check_deb "$d")" || die "$reason"
    ok "$(basename "$d"): $(dpkg-deb -c "$d" | wc -l) entries, $(du -h "$d" | cut -f1)"
  done
  COYOTE_DEB="$(printf '%s\n' "${DEBS[@]}" | grep '/coyote_')"
  mkdir -p "$SCRATCH/deb-broken"
  dpkg-deb -R "$COYOTE_DEB" "$SCRATCH/deb-broken/root"
  rm "$SCRATCH/deb-broken/root/usr/share/man/man1/coyote.1.gz"
  dpkg-deb --root-owner-group -Znone --build "$SCRATCH/deb-broken/root" "$SCRATCH/deb-broken/coyote.deb" >/dev/null
  if reason="$(check_deb "$SCRATCH/deb-broken/coyote.deb")"; then
    die "a .deb without coyote.1.gz passed the package check"
  fi
  [[ "$reason" == *"missing ./usr/share/man/man1/coyote.1.gz"* ]] || die "the .deb without coyote.1.gz was rejected for another reason: $reason"
  ok "a .deb without coyote.1.gz is rejected ($reason)"
  rm -rf "$SCRATCH/deb-broken"

  if [[ "$(id -u)" != 0 ]]; then
    printf '\n!!! not root: dpkg -i / dpkg -r of the packages SKIPPED (CI runs them as root)\n\n' >&2
  else
    for p in coyote coolify-mcp; do
      if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
        die "package $p is already installed here: not touching it (dpkg -r $p first)"
      fi
      [[ -e "/usr/bin/$p" ]] && die "/usr/bin/$p exists outside any package: not overwriting it"
    done
    t0="$(now)"
    INSTALLED_DEBS=(coyote coolify-mcp)
    # Slim container images tell dpkg to drop man pages and docs (path-exclude); include ours
    # again there, or `man -w` could not find what the package does ship.
    include=()
    if grep -rqs '^path-exclude.*/usr/share/\(man\|doc\)' /etc/dpkg/dpkg.cfg /etc/dpkg/dpkg.cfg.d/; then
      include=(--path-include='/usr/share/man/man1/coyote*' --path-include='/usr/share/man/man1/coolify-mcp*'
        --path-include='/usr/share/doc/coyote/*' --path-include='/usr/share/doc/coolify-mcp/*')
      printf '  note dpkg here excludes man pages/docs (path-exclude): dpkg -i %s\n' "${include[*]}"
    fi
    dpkg -i "${include[@]}" "${DEBS[@]}" >/dev/null || die "dpkg -i"
    mcp_config "$SCRATCH/cfg-deb" coolify-mcp
    servers_ready coyote "$SCRATCH/cfg-deb" || die "deb: coyote mcp servers"
    TIMES+=(".deb (dpkg -i both, coyote mcp servers): $(since "$t0") s")
    ok "deb: dpkg -i, coyote mcp servers ready ($(since "$t0") s)"
    [[ "$(command -v coyote)" == /usr/bin/coyote ]] || die "deb: coyote on PATH is $(command -v coyote)"
    ok "deb: $(coyote --version); $(coolify-mcp --version 2>&1)"
    [[ "$(man -w coyote)" == /usr/share/man/man1/coyote.1.gz ]] || die "deb: man -w coyote said '$(man -w coyote 2>&1)'"
    [[ "$(man -w coolify-mcp)" == /usr/share/man/man1/coolify-mcp.1.gz ]] || die "deb: man -w coolify-mcp"
    [[ "$(man -w coyote-mcp-servers)" == /usr/share/man/man1/coyote-mcp-servers.1.gz ]] || die "deb: man -w coyote-mcp-servers"
    ok "deb: man -w coyote -> $(man -w coyote)"
    words="$(bash_complete /usr/share/bash-completion/completions/coyote /usr/bin)" || die "deb: bash completion"
    [[ " $words " == *" mcp "* ]] || die "deb: coyote mc<TAB> gave '$words', no mcp"
    ok "deb: bash completion of 'coyote mc<TAB>' -> $words"
    files="$(dpkg -L coyote coolify-mcp | sort -u)"
    dpkg -r coyote coolify-mcp >/dev/null || die "dpkg -r"
    INSTALLED_DEBS=()
    for p in coyote coolify-mcp; do
      st="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
      [[ -z "$st" || "$st" == *not-installed* ]] || die "deb: after dpkg -r, $p is '$st'"
    done
    left=()
    while IFS= read -r f; do
      [[ -f "$f" || -L "$f" ]] && left+=("$f")
    done <<<"$files"
    ((${#left[@]} == 0)) || die "deb: dpkg -r left ${left[*]}"
    ok "deb: dpkg -r removed both packages and all $(wc -l <<<"$files") paths' files"
  fi
fi

# ---- 5. npm -----------------------------------------------------------------------------------
if ((${#NPM_TGZ[@]})); then
  section "npm"
  LAUNCHER="" PLATFORM=""
  for t in "${NPM_TGZ[@]}"; do
    if tar -xzOf "$t" package/package.json | jq -e '.bin["coolify-mcp"]' >/dev/null; then LAUNCHER="$t"; else PLATFORM="$t"; fi
  done
  [[ -n "$LAUNCHER" && -n "$PLATFORM" ]] || die "npm: want a launcher and a platform tarball"
  lname="$(tar -xzOf "$LAUNCHER" package/package.json | jq -r .name)"
  pname="$(tar -xzOf "$PLATFORM" package/package.json | jq -r .name)"
  tar -xzOf "$LAUNCHER" package/package.json | jq -e --arg p "$pname" '.optionalDependencies[$p]' >/dev/null ||
    die "npm: $lname does not list $pname as an optional dependency"
  tar -xzOf "$PLATFORM" package/package.json | jq -e '(.os | length) == 1 and (.cpu | length) == 1' >/dev/null ||
    die "npm: $pname has no os/cpu fields"
  grep -q '^-rwxr-xr-x .* package/bin/coolify-mcp$' <<<"$(tar -tvzf "$PLATFORM")" || die "npm: $pname's binary is not executable"
  ok "npm: $lname (launcher) -> $pname (os/cpu, bin/coolify-mcp 0755)"
  P="$SCRATCH/npm-prefix"
  t0="$(now)"
  npm install --prefix "$P" --offline --no-audit --no-fund --loglevel=error "$LAUNCHER" "$PLATFORM" >/dev/null ||
    die "npm install from the local tarballs"
  mcp_config "$SCRATCH/cfg-npm" npx --offline --prefix "$P" coolify-mcp
  servers_ready "$CY/coyote" "$SCRATCH/cfg-npm" || die "npm: coyote mcp servers with npx coolify-mcp"
  TIMES+=("npm (npm install both tarballs, coyote mcp servers via npx): $(since "$t0") s")
  ok "npm: npm install + coyote mcp servers via npx coolify-mcp ($(since "$t0") s)"
  v="$(cd "$P" && npx --offline coolify-mcp --version 2>&1)" || die "npm: npx coolify-mcp --version: $v"
  [[ "$v" == "coolify-mcp $VERSION" ]] || die "npm: npx coolify-mcp --version said '$v'"
  ok "npm: (cd PREFIX && npx coolify-mcp --version) -> $v"
  init="$(cd "$P" && python3 "$ROOT/scripts/release.d/mcp_initialize.py" coolify -- npx --offline coolify-mcp)" ||
    die "npm: initialize through npx coolify-mcp"
  ok "npm: initialize over stdio through npx -> $init"
  # Without the platform package the launcher says what is wrong instead of crashing.
  mkdir -p "$SCRATCH/npm-bare"
  tar -xzf "$LAUNCHER" -C "$SCRATCH/npm-bare"
  if msg="$(node "$SCRATCH/npm-bare/package/bin/coolify-mcp.js" --version 2>&1)"; then
    die "npm: the launcher ran without its platform package"
  fi
  [[ "$msg" == *"is not installed"* ]] || die "npm: the launcher without its platform package said '$msg'"
  ok "npm: the launcher alone exits 1: ${msg%%;*}"
fi

# ---- 6. PyPI ----------------------------------------------------------------------------------
if ((${#WHEELS[@]})); then
  section "PyPI wheel"
  W="${WHEELS[0]}"
  python3 - "$W" <<'PY' || die "wheel layout"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
scripts = [n for n in names if ".data/scripts/" in n]
assert scripts == [s for s in scripts if s.endswith("/coolify-mcp")] and scripts, f"scripts: {scripts}"
assert (z.getinfo(scripts[0]).external_attr >> 16) & 0o111, "the binary is not executable"
for need in ("METADATA", "WHEEL", "RECORD"):
    assert any(n.endswith(".dist-info/" + need) for n in names), need
assert names == sorted(names[:-1]) + [names[-1]] and names[-1].endswith("RECORD"), "order"
PY
  ok "wheel: $(basename "$W") ($(du -h "$W" | cut -f1)): .data/scripts/coolify-mcp 0755, dist-info"
  V="$SCRATCH/venv"
  t0="$(now)"
  python3 -m venv "$V"
  "$V/bin/pip" install --quiet --no-index --no-deps --disable-pip-version-check "$W" || die "pip install the wheel"
  mcp_config "$SCRATCH/cfg-pypi" "$V/bin/coolify-mcp"
  servers_ready "$CY/coyote" "$SCRATCH/cfg-pypi" || die "pypi: coyote mcp servers"
  TIMES+=("PyPI wheel (python3 -m venv, pip install, coyote mcp servers): $(since "$t0") s")
  ok "pypi: venv + pip install + coyote mcp servers ($(since "$t0") s)"
  v="$("$V/bin/coolify-mcp" --version 2>&1)"
  [[ "$v" == "coolify-mcp $VERSION" ]] || die "pypi: coolify-mcp --version said '$v'"
  ok "pypi: $V/bin/coolify-mcp --version -> $v"
  init="$(python3 "$ROOT/scripts/release.d/mcp_initialize.py" coolify -- "$V/bin/coolify-mcp")" || die "pypi: initialize"
  ok "pypi: initialize over stdio -> $init"
  if command -v uvx >/dev/null; then
    t0="$(now)"
    mcp_config "$SCRATCH/cfg-uvx" uvx --offline --from "$W" coolify-mcp
    servers_ready "$CY/coyote" "$SCRATCH/cfg-uvx" || die "uvx: coyote mcp servers"
    TIMES+=("PyPI wheel through uvx (uvx --from WHEEL coolify-mcp as the server command, coyote mcp servers): $(since "$t0") s")
    ok "uvx: coyote mcp servers with uvx --from WHEEL coolify-mcp ($(since "$t0") s)"
    v="$(uvx --offline --from "$W" coolify-mcp --version 2>&1 | tail -n1)" || die "uvx: $v"
    [[ "$v" == "coolify-mcp $VERSION" ]] || die "uvx --from WHEEL coolify-mcp --version said '$v'"
    ok "uvx: uvx --from WHEEL coolify-mcp --version -> $v ($(uvx --version))"
    init="$(python3 "$ROOT/scripts/release.d/mcp_initialize.py" coolify -- uvx --offline --from "$W" coolify-mcp)" ||
      die "uvx: initialize"
    ok "uvx: initialize over stdio -> $init"
  else
    printf '  note uv is not installed: the uvx lines were not run (pip installed the same wheel)\n'
  fi
fi

# ---- 7. no placeholder in the packages' metadata ---------------------------------------------
section "package metadata: no placeholder names"
meta=""
for d in "${DEBS[@]}"; do meta+="$(dpkg-deb -f "$d")"$'\n'; done
for t in "${NPM_TGZ[@]}"; do meta+="$(tar -xzOf "$t" package/package.json)"$'\n'; done
for w in "${WHEELS[@]}"; do
  meta+="$(python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(next(z.read(n).decode().split("\n\n")[0] for n in z.namelist() if n.endswith(".dist-info/METADATA")))' "$w")"$'\n'
done
if bad="$(grep -nE 'example\.(invalid|com|org|net)|\.invalid\b|\bTODO\b|\bFIXME\b|\bplaceholder\b' <<<"$meta")"; then
  die "a placeholder in the packages' metadata: $bad"
fi
ok "control fields, package.json files and METADATA name no placeholder ($(wc -l <<<"$meta") lines)"

section "time from the artefact to a working coyote mcp servers"
printf '  %s\n' "${TIMES[@]}"
printf '\nrelease check: all passed\n'
