#!/usr/bin/env bash
# Build the install bundles of coolify-mcp:
#
#   crates/coolify-mcp/scripts/bundle.sh --binary PATH --out DIR [--version V]
#       [--name NAMESPACE/NAME --repository URL [--url URL]]
#
# writes into DIR
#   manifest.json                         the MCP Bundle manifest (manifest_version 0.3)
#   coolify-mcp-<V>-linux-x64.mcpb        a zip of manifest.json + server/coolify-mcp (file
#                                         entries only, no directory entries), which Claude
#                                         Desktop installs by double-click or drag-and-drop
#   server.json                           only with --name: the MCP registry entry, the .mcpb as
#                                         its package, with its SHA-256 and download URL
# --name is the registry name you publish under (e.g. io.github.OWNER/coolify-mcp; an
# io.github.OWNER name needs --repository https://github.com/OWNER/…); --repository is the
# public source repository (default: the workspace's, when it is a real https URL); --url is
# where the .mcpb will be downloaded from (default for a GitHub repository: its release asset
# for v<V>). All three are checked before anything is written: placeholder hosts (example.*,
# *.invalid, *.example, *.test, *.localhost, localhost) and non-https URLs are refused.
# V defaults to the workspace version. PATH is the binary to ship (build it first, e.g.
# crates/coolify-mcp/scripts/build-small.sh or cargo build --release -p coolify-mcp).
# Needs: sha256sum, and zip or python3 for the archive. Nothing is downloaded.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
BINARY="" OUT="" VERSION="" URL="" REPO="" REG_NAME=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) BINARY="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --version) VERSION="$2"; shift 2 ;;
    --url) URL="$2"; shift 2 ;;
    --repository) REPO="$2"; shift 2 ;;
    --name) REG_NAME="$2"; shift 2 ;;
    -h | --help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "bundle.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
die() { echo "bundle.sh: $*" >&2; exit 2; }
[ -n "$BINARY" ] && [ -n "$OUT" ] || die "--binary and --out are required"
[ -x "$BINARY" ] || { echo "bundle.sh: $BINARY is not an executable" >&2; exit 1; }
if [ -z "$VERSION" ]; then
  VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n1)"
fi
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] || die "--version '$VERSION' is not a semantic version (e.g. 1.2.3)"
NAME="coolify-mcp-$VERSION-linux-x64.mcpb"

# real_https_url URL — succeeds for an https URL whose host is not a documentation placeholder.
real_https_url() {
  [[ "$1" =~ ^https://([A-Za-z0-9.-]+)(:[0-9]+)?(/[^[:space:]\"]*)?$ ]] || return 1
  local host="${BASH_REMATCH[1],,}"
  case "$host" in
    localhost | *.localhost | *.invalid | *.example | *.test | example.com | example.net | example.org | *.example.com | *.example.net | *.example.org) return 1 ;;
  esac
  [[ "$host" == *.* ]]
}

WORKSPACE_REPO="$(sed -n 's/^repository = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n1)"
if [ -n "$REPO" ]; then
  real_https_url "$REPO" || die "--repository '$REPO' must be the public https URL of the source repository (a placeholder or non-https URL is refused)"
elif real_https_url "$WORKSPACE_REPO"; then
  REPO="$WORKSPACE_REPO"
fi
REPO="${REPO%/}"
if [ -n "$REG_NAME" ]; then
  [[ "$REG_NAME" =~ ^[A-Za-z0-9.-]+/[A-Za-z0-9._-]+$ ]] || die "--name '$REG_NAME' must look like NAMESPACE/NAME, e.g. io.github.OWNER/coolify-mcp"
  [ -n "$REPO" ] || die "--name needs --repository https://… (the workspace's repository '$WORKSPACE_REPO' is a placeholder)"
  if [[ "$REG_NAME" =~ ^io\.github\.([A-Za-z0-9-]+)/ ]]; then
    owner="${BASH_REMATCH[1]}"
    [[ "${REPO,,}" == "https://github.com/${owner,,}/"* ]] || die "--name '$REG_NAME' is in the GitHub namespace of '$owner': --repository must be https://github.com/$owner/…"
  fi
  if [ -z "$URL" ]; then
    [[ "$REPO" == https://github.com/* ]] || die "--url is required: where will $NAME be downloaded from?"
    URL="$REPO/releases/download/v$VERSION/$NAME"
  fi
  real_https_url "$URL" || die "--url '$URL' must be the public https download URL of the bundle (a placeholder or non-https URL is refused)"
elif [ -n "$URL" ]; then
  die "--url only goes into server.json: pass --name (and --repository) as well"
fi
REPO_SOURCE=""
case "$REPO" in
  https://github.com/*) REPO_SOURCE=github ;;
  https://gitlab.com/*) REPO_SOURCE=gitlab ;;
esac
[ -z "$REG_NAME" ] || [ -n "$REPO_SOURCE" ] || die "--repository '$REPO' must be on github.com or gitlab.com for the registry entry"
REPO_JSON=""
[ -n "$REPO" ] && REPO_JSON="
  \"repository\": { \"type\": \"git\", \"url\": \"$REPO\" },"

mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/server"
cp "$BINARY" "$STAGE/server/coolify-mcp"
chmod 0755 "$STAGE/server/coolify-mcp"

cat >"$STAGE/manifest.json" <<JSON
{
  "manifest_version": "0.3",
  "name": "coolify-mcp",
  "display_name": "Coolify",
  "version": "$VERSION",
  "description": "Manage a self-hosted Coolify: applications, databases, services, deployments and servers, with human confirmation before destructive operations.",
  "long_description": "An MCP server for the Coolify PaaS. 45 tools cover reads, deployments, environment variables, backups and diagnostics; destructive operations ask you first. Set COOLIFY_MCP_READONLY=true for a read-only server.",
  "author": { "name": "coyote maintainers" },$REPO_JSON
  "license": "Apache-2.0",
  "keywords": ["coolify", "paas", "devops", "self-hosted"],
  "server": {
    "type": "binary",
    "entry_point": "server/coolify-mcp",
    "mcp_config": {
      "command": "\${__dirname}/server/coolify-mcp",
      "args": [],
      "env": {
        "COOLIFY_BASE_URL": "\${user_config.coolify_base_url}",
        "COOLIFY_ACCESS_TOKEN": "\${user_config.coolify_access_token}",
        "COOLIFY_MCP_READONLY": "\${user_config.read_only}"
      }
    }
  },
  "tools_generated": true,
  "prompts_generated": true,
  "compatibility": { "platforms": ["linux"] },
  "user_config": {
    "coolify_base_url": {
      "type": "string",
      "title": "Coolify URL",
      "description": "The root URL of your Coolify, e.g. https://coolify.example.com (without /api/v1).",
      "required": true
    },
    "coolify_access_token": {
      "type": "string",
      "title": "Coolify API token",
      "description": "An API token from Coolify (Keys & Tokens). Stored by Claude Desktop in the OS keychain.",
      "sensitive": true,
      "required": true
    },
    "read_only": {
      "type": "boolean",
      "title": "Read-only",
      "description": "Register only tools that change nothing.",
      "default": false,
      "required": false
    }
  }
}
JSON

rm -f "$OUT/$NAME"
if command -v zip >/dev/null 2>&1; then
  # -D: no directory entries (the official mcpb tool fails with EISDIR on a `server/` entry).
  (cd "$STAGE" && zip -q -X -D -r "$OUT/$NAME.tmp" manifest.json server)
  mv "$OUT/$NAME.tmp" "$OUT/$NAME"
else
  python3 - "$STAGE" "$OUT/$NAME" <<'PY'
import os, sys, zipfile
stage, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
    z.write(os.path.join(stage, "manifest.json"), "manifest.json")
    info = zipfile.ZipInfo("server/coolify-mcp")
    info.external_attr = 0o755 << 16
    with open(os.path.join(stage, "server", "coolify-mcp"), "rb") as f:
        z.writestr(info, f.read(), zipfile.ZIP_DEFLATED)
PY
fi
cp "$STAGE/manifest.json" "$OUT/manifest.json"
SHA="$(sha256sum "$OUT/$NAME" | cut -d' ' -f1)"

rm -f "$OUT/server.json"
if [ -z "$REG_NAME" ]; then
  echo "wrote $OUT/$NAME, $OUT/manifest.json (no server.json: pass --name and --repository to write the registry entry)"
  exit 0
fi
cat >"$OUT/server.json" <<JSON
{
  "\$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
  "name": "$REG_NAME",
  "description": "Manage a self-hosted Coolify: apps, databases, services, deployments, servers.",
  "version": "$VERSION",
  "repository": { "url": "$REPO", "source": "$REPO_SOURCE" },
  "packages": [
    {
      "registryType": "mcpb",
      "identifier": "$URL",
      "version": "$VERSION",
      "fileSha256": "$SHA",
      "transport": { "type": "stdio" },
      "environmentVariables": [
        { "name": "COOLIFY_BASE_URL", "description": "Root URL of your Coolify (without /api/v1)", "isRequired": true, "format": "string" },
        { "name": "COOLIFY_ACCESS_TOKEN", "description": "Coolify API token", "isRequired": true, "isSecret": true, "format": "string" }
      ]
    }
  ]
}
JSON
echo "wrote $OUT/$NAME, $OUT/manifest.json, $OUT/server.json"
